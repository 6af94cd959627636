/* dns.h — the DNS wire format, just enough for the jail's filtering resolver:
 * read a query's question, build an answer or an error for it, and pull the
 * A/AAAA records (after CNAMEs) out of an upstream response.  Pure code; every
 * parser is bounded by the packet length and rejects what it does not expect. */
#ifndef JAIL_DNS_H
#define JAIL_DNS_H
#include <stdint.h>

#include "util.h"

#define DNS_HEADER 12
#define DNS_MAX_NAME 256   /* dotted text with NUL */
#define DNS_T_A 1
#define DNS_T_CNAME 5
#define DNS_T_AAAA 28
#define DNS_T_OPT 41
#define DNS_C_IN 1
#define DNS_RCODE_OK 0
#define DNS_RCODE_SERVFAIL 2
#define DNS_RCODE_NXDOMAIN 3
#define DNS_RCODE_NOTIMP 4
#define DNS_RCODE_REFUSED 5

struct dns_question {
	uint16_t id;
	uint16_t flags;
	char name[DNS_MAX_NAME];   /* lower case, no trailing dot; "" for the root */
	uint16_t qtype, qclass;
	size_t end;                /* offset just past the question */
	bool edns;                 /* a query: it carried an OPT record */
	uint16_t udp_size;         /* ... and the UDP size it gave there */
};

struct dns_addr {
	int family;                /* AF_INET or AF_INET6 */
	unsigned char addr[16];
	uint32_t ttl;
};

/* Read a (possibly compressed) name at *off; *off moves past it.  -1 when
 * malformed (out of bounds, pointer loop, label > 63, name > 255). */
int dns_read_name(const unsigned char *pkt, size_t len, size_t *off, char *out,
                  size_t outlen) WUR;
/* A query: QR clear, opcode 0, exactly one uncompressed question, then at
 * most an OPT record and nothing else: no other records, no bytes after. */
int dns_parse_query(const unsigned char *pkt, size_t len, struct dns_question *q) WUR;
/* The query jail sends upstream for q: built anew from its name, type and
 * class with this id, RD set, and jail's own OPT record (no options) when q
 * had one; nothing the client sent is copied.  Returns the length, 0 if it
 * does not fit. */
size_t dns_build_upstream(const struct dns_question *q, uint16_t id, unsigned char *out,
                          size_t cap);
/* The largest reply the client of q takes over UDP (RFC 6891: 512 without
 * an OPT record). */
size_t dns_udp_limit(const struct dns_question *q);
/* A reply to q with TC set and no records: "ask again over TCP". */
size_t dns_build_truncated(const unsigned char *qpkt, const struct dns_question *q,
                           unsigned char *out, size_t cap);
/* A response's header and question (QR set, one question). */
int dns_parse_response(const unsigned char *pkt, size_t len, struct dns_question *q) WUR;
/* A query for name/type with this id and RD set; returns its length, 0 if it
 * does not fit or the name is invalid. */
size_t dns_build_query(const char *name, uint16_t type, uint16_t id, unsigned char *out,
                       size_t cap);
/* An answer to query q (whose packet is qpkt): its question, rcode, and the
 * given addresses as A/AAAA records of the queried name (those matching the
 * query type).  Returns the length, 0 if it does not fit. */
size_t dns_build_answer(const unsigned char *qpkt, const struct dns_question *q,
                        uint8_t rcode, const struct dns_addr *addrs, size_t n,
                        unsigned char *out, size_t cap);
/* The A/AAAA records of a response that belong to qname, following CNAMEs
 * from it (at most 8 steps).  *n gets how many (at most max); -1 if malformed. */
int dns_answer_addrs(const unsigned char *pkt, size_t len, const char *qname,
                     struct dns_addr *out, size_t max, size_t *n) WUR;
#endif
