/* tlshello.h — the server name (SNI) of a TLS ClientHello, read without
 * terminating TLS, for the SNI gate (snigate.c).  Pure code: a small strict
 * parser of the first bytes a client sends, bounded by TLSHELLO_MAX bytes and
 * TLSHELLO_MAX_RECORDS records; anything it does not expect is refused. */
#ifndef JAIL_TLSHELLO_H
#define JAIL_TLSHELLO_H
#include <stddef.h>

#define TLSHELLO_MAX 16384       /* bytes read from a client before its ClientHello is whole */
#define TLSHELLO_MAX_RECORDS 4   /* TLS records it may be split over */
#define TLSHELLO_NAME_MAX 256    /* the name with its NUL */

enum tlshello_result {
	TLSHELLO_BAD = -1,       /* not a ClientHello we take: *why says what */
	TLSHELLO_MORE = 0,       /* well-formed so far: read more */
	TLSHELLO_OK = 1,         /* sni holds the host_name (as sent, NUL-terminated) */
};

/* The host_name of the ClientHello at the start of buf (the client's first
 * len bytes): TLS handshake record(s) carrying handshake type 1, its
 * extensions read to the end, exactly one server_name extension holding
 * exactly one entry, of type host_name, of printable non-space characters;
 * no encrypted ClientHello (ECH) extension, real or GREASE (the name that
 * counts would be the hidden inner one). */
enum tlshello_result tlshello_sni(const unsigned char *buf, size_t len, char *sni, size_t cap,
                                  const char **why);

/* The same, and where the ClientHello's last record ends (*end, on
 * TLSHELLO_OK): the gate sends the server nothing after it until it has seen
 * the server's answer.  The hello must fill its last record: a server reads
 * what follows in a record as the next handshake message. */
enum tlshello_result tlshello_sni_end(const unsigned char *buf, size_t len, char *sni,
                                      size_t cap, const char **why, size_t *end);

/* Whether a server's first bytes begin a TLS 1.3 HelloRetryRequest (a
 * ServerHello whose random is RFC 8446 4.1.3's fixed value), after which the
 * client sends a second ClientHello in the clear: TLSHELLO_OK it is,
 * TLSHELLO_BAD it is not (another first message, another record type),
 * TLSHELLO_MORE read more.  A ServerHello whose random is not whole in its
 * first record counts as one: no server splits it, and the gate then checks
 * the client's next message as a ClientHello, which ends anything else. */
enum tlshello_result tlshello_retry(const unsigned char *buf, size_t len);

/* How many bytes at the start of buf are whole change_cipher_spec records
 * (a TLS 1.3 client may send one before its second ClientHello, RFC 8446
 * D.4): *skip; TLSHELLO_MORE when one is still cut short. */
enum tlshello_result tlshello_skip_ccs(const unsigned char *buf, size_t len, size_t *skip);
#endif
