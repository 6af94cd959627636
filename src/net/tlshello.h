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
#endif
