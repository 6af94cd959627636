/* dns.c — DNS packets (RFC 1035) for the filtering resolver. */
#include "dns.h"

#include <ctype.h>
#include <string.h>
#include <sys/socket.h>

#define DNS_QR 0x8000
#define DNS_OPCODE 0x7800
#define DNS_RD 0x0100
#define DNS_RA 0x0080
#define DNS_TC 0x0200
#define DNS_OUR_UDP_SIZE 1232  /* the EDNS size jail offers upstream (DNS flag day 2020) */
#define DNS_MAX_CHAIN 8

static uint16_t get16(const unsigned char *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static void put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}
static void put32(unsigned char *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/* Append one label's text to out, lower-cased.  A '.' or NUL inside a label
 * would make the text name differ from the wire name (one label "a.example"
 * under "com" would read as a name below example.com): refused.  Other bytes
 * that cannot be in a host name pass here and fail the allowlist check. */
static int name_append(char *out, size_t outlen, size_t *o, const unsigned char *label,
                       size_t n)
{
	if (*o + n + 2 > outlen)
		return -1;
	if (*o)
		out[(*o)++] = '.';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = label[i];
		if (c == '.' || c == 0)
			return -1;
		out[(*o)++] = (char)tolower(c);
	}
	out[*o] = '\0';
	return 0;
}

int dns_read_name(const unsigned char *pkt, size_t len, size_t *off, char *out,
                  size_t outlen)
{
	size_t pos = *off, o = 0, end = 0, wire = 0;
	int jumps = 0;
	out[0] = '\0';
	for (;;) {
		if (pos >= len)
			return -1;
		unsigned char c = pkt[pos];
		if ((c & 0xc0) == 0xc0) {
			if (pos + 1 >= len || ++jumps > 16)
				return -1;
			if (!end)
				end = pos + 2;
			pos = (size_t)(c & 0x3f) << 8 | pkt[pos + 1];
			continue;
		}
		if (c & 0xc0)
			return -1;  /* the reserved label types */
		if (c == 0)
			break;
		if (pos + 1 + c > len || (wire += c + 1u) > 254 ||
		    name_append(out, outlen, &o, pkt + pos + 1, c) < 0)
			return -1;
		pos += 1u + c;
	}
	*off = end ? end : pos + 1;
	return 0;
}

static int parse_question(const unsigned char *pkt, size_t len, struct dns_question *q)
{
	if (len < DNS_HEADER || get16(pkt + 4) != 1)
		return -1;
	q->id = get16(pkt);
	q->flags = get16(pkt + 2);
	size_t off = DNS_HEADER;
	if (dns_read_name(pkt, len, &off, q->name, sizeof(q->name)) < 0 || off + 4 > len)
		return -1;
	q->qtype = get16(pkt + off);
	q->qclass = get16(pkt + off + 2);
	q->end = off + 4;
	q->edns = false;
	q->udp_size = 0;
	return 0;
}

/* The one additional record a query may carry: an OPT record owned by the
 * root, ending the packet exactly. */
static int parse_query_opt(const unsigned char *pkt, size_t len, struct dns_question *q)
{
	size_t o = q->end;
	if (o + 11 > len || pkt[o] != 0 || get16(pkt + o + 1) != DNS_T_OPT)
		return -1;
	q->edns = true;
	q->udp_size = get16(pkt + o + 3);
	return o + 11 + get16(pkt + o + 9) == len ? 0 : -1;
}

int dns_parse_query(const unsigned char *pkt, size_t len, struct dns_question *q)
{
	if (parse_question(pkt, len, q) < 0)
		return -1;
	/* A compressed name in a question is legal but no stub resolver sends
	 * one; the answer builder copies the question and needs it plain.  A
	 * plain name takes one byte more than its dotted text, two unless root. */
	size_t wire = q->end - 4 - DNS_HEADER, text = strlen(q->name);
	if (wire != (text ? text + 2 : 1))
		return -1;
	if ((q->flags & (DNS_QR | DNS_OPCODE)) || get16(pkt + 6) != 0 || get16(pkt + 8) != 0)
		return -1;
	uint16_t ar = get16(pkt + 10);
	if (ar == 0)
		return q->end == len ? 0 : -1;
	return ar == 1 ? parse_query_opt(pkt, len, q) : -1;
}

size_t dns_build_upstream(const struct dns_question *q, uint16_t id, unsigned char *out,
                          size_t cap)
{
	size_t n = dns_build_query(q->name, q->qtype, id, out, cap);
	if (!n || (q->edns && n + 11 > cap))
		return 0;
	put16(out + n - 2, q->qclass);
	if (!q->edns)
		return n;
	put16(out + 10, 1);
	out[n] = 0;                           /* owner: the root */
	put16(out + n + 1, DNS_T_OPT);
	put16(out + n + 3, DNS_OUR_UDP_SIZE); /* class: our UDP size */
	put32(out + n + 5, 0);                /* extended rcode, version 0, no DO */
	put16(out + n + 9, 0);                /* no options */
	return n + 11;
}

size_t dns_udp_limit(const struct dns_question *q)
{
	return q->edns && q->udp_size > 512 ? q->udp_size : 512;
}

size_t dns_build_truncated(const unsigned char *qpkt, const struct dns_question *q,
                           unsigned char *out, size_t cap)
{
	size_t n = dns_build_answer(qpkt, q, DNS_RCODE_OK, NULL, 0, out, cap);
	if (n)
		put16(out + 2, (uint16_t)(get16(out + 2) | DNS_TC));
	return n;
}

int dns_parse_response(const unsigned char *pkt, size_t len, struct dns_question *q)
{
	if (parse_question(pkt, len, q) < 0)
		return -1;
	return q->flags & DNS_QR ? 0 : -1;
}

size_t dns_build_query(const char *name, uint16_t type, uint16_t id, unsigned char *out,
                       size_t cap)
{
	size_t o = DNS_HEADER;
	if (cap < DNS_HEADER + 1 + 4)
		return 0;
	memset(out, 0, DNS_HEADER);
	put16(out, id);
	put16(out + 2, DNS_RD);
	put16(out + 4, 1);
	for (const char *p = name; *p;) {
		size_t n = strcspn(p, ".");
		if (n == 0 || n > 63 || o + 1 + n + 5 > cap)
			return 0;
		out[o++] = (unsigned char)n;
		memcpy(out + o, p, n);
		o += n;
		p += n;
		if (*p == '.')
			p++;
	}
	out[o++] = 0;
	put16(out + o, type);
	put16(out + o + 2, DNS_C_IN);
	return o + 4;
}

static size_t put_addr_rr(const struct dns_addr *a, unsigned char *out, size_t o, size_t cap)
{
	size_t alen = a->family == AF_INET ? 4 : 16;
	if (o + 12 + alen > cap)
		return 0;
	put16(out + o, 0xc000 | DNS_HEADER);  /* the name: a pointer to the question's */
	put16(out + o + 2, a->family == AF_INET ? DNS_T_A : DNS_T_AAAA);
	put16(out + o + 4, DNS_C_IN);
	put32(out + o + 6, a->ttl);
	put16(out + o + 10, (uint16_t)alen);
	memcpy(out + o + 12, a->addr, alen);
	return o + 12 + alen;
}

size_t dns_build_answer(const unsigned char *qpkt, const struct dns_question *q,
                        uint8_t rcode, const struct dns_addr *addrs, size_t n,
                        unsigned char *out, size_t cap)
{
	if (q->end > cap)
		return 0;
	memcpy(out, qpkt, q->end);
	put16(out + 2, (uint16_t)(DNS_QR | (q->flags & DNS_RD) | DNS_RA | (rcode & 0xf)));
	put16(out + 4, 1);
	memset(out + 6, 0, 6);
	size_t o = q->end;
	uint16_t count = 0;
	for (size_t i = 0; i < n; i++) {
		uint16_t t = addrs[i].family == AF_INET ? DNS_T_A : DNS_T_AAAA;
		if (t != q->qtype)
			continue;
		if (!(o = put_addr_rr(&addrs[i], out, o, cap)))
			return 0;
		count++;
	}
	put16(out + 6, count);
	return o;
}

struct rr {
	char name[DNS_MAX_NAME];
	uint16_t type, class;
	uint32_t ttl;
	size_t rdata, rdlen;
};

static int read_rr(const unsigned char *pkt, size_t len, size_t *off, struct rr *rr)
{
	if (dns_read_name(pkt, len, off, rr->name, sizeof(rr->name)) < 0 || *off + 10 > len)
		return -1;
	rr->type = get16(pkt + *off);
	rr->class = get16(pkt + *off + 2);
	rr->ttl = get32(pkt + *off + 4);
	rr->rdlen = get16(pkt + *off + 8);
	rr->rdata = *off + 10;
	if (rr->rdata + rr->rdlen > len)
		return -1;
	*off = rr->rdata + rr->rdlen;
	return 0;
}

static bool in_chain(char chain[][DNS_MAX_NAME], size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(chain[i], name) == 0)
			return true;
	return false;
}

/* Walk the answer section once: extend the CNAME chain, and (when out is not
 * NULL) collect the addresses of names on it.  Returns -1 if malformed. */
static int answer_pass(const unsigned char *pkt, size_t len, char chain[][DNS_MAX_NAME],
                       size_t *n_chain, struct dns_addr *out, size_t max, size_t *n)
{
	struct dns_question q;
	if (dns_parse_response(pkt, len, &q) < 0)
		return -1;
	size_t off = q.end;
	for (uint16_t i = 0, an = get16(pkt + 6); i < an; i++) {
		struct rr rr;
		if (read_rr(pkt, len, &off, &rr) < 0)
			return -1;
		if (rr.class != DNS_C_IN || !in_chain(chain, *n_chain, rr.name))
			continue;
		if (rr.type == DNS_T_CNAME && *n_chain < DNS_MAX_CHAIN) {
			size_t t = rr.rdata;
			char target[DNS_MAX_NAME];
			if (dns_read_name(pkt, len, &t, target, sizeof(target)) < 0)
				return -1;
			if (!in_chain(chain, *n_chain, target))
				strcpy(chain[(*n_chain)++], target);
		} else if (out && *n < max && ((rr.type == DNS_T_A && rr.rdlen == 4) ||
		                               (rr.type == DNS_T_AAAA && rr.rdlen == 16))) {
			struct dns_addr *a = &out[(*n)++];
			memset(a, 0, sizeof(*a));
			a->family = rr.type == DNS_T_A ? AF_INET : AF_INET6;
			memcpy(a->addr, pkt + rr.rdata, rr.rdlen);
			a->ttl = rr.ttl;
		}
	}
	return 0;
}

int dns_answer_addrs(const unsigned char *pkt, size_t len, const char *qname,
                     struct dns_addr *out, size_t max, size_t *n)
{
	char chain[DNS_MAX_CHAIN][DNS_MAX_NAME];
	size_t n_chain = 1, before;
	*n = 0;
	if (strlen(qname) >= DNS_MAX_NAME)
		return -1;
	strcpy(chain[0], qname);
	/* CNAMEs may come in any order: extend the chain until it stops growing. */
	do {
		before = n_chain;
		if (answer_pass(pkt, len, chain, &n_chain, NULL, 0, n) < 0)
			return -1;
	} while (n_chain != before);
	return answer_pass(pkt, len, chain, &n_chain, out, max, n);
}
