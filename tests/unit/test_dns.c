/* test_dns.c — DNS packet parsing and building for the filtering resolver. */
#include <arpa/inet.h>
#include <sys/socket.h>

#include "dns.h"
#include "t.h"

static size_t put_name(unsigned char *p, const char *name)
{
	unsigned char tmp[300];
	size_t n = dns_build_query(name, 1, 0, tmp, sizeof(tmp));
	size_t len = n - DNS_HEADER - 4;
	memcpy(p, tmp + DNS_HEADER, len);
	return len;
}

/* Append an RR whose owner is either a pointer (ptr != 0) or a plain name. */
static size_t put_rr(unsigned char *p, uint16_t ptr, const char *owner, uint16_t type,
                     uint32_t ttl, const void *rdata, size_t rdlen)
{
	size_t o = 0;
	if (ptr) {
		p[o++] = (unsigned char)(0xc0 | ptr >> 8);
		p[o++] = (unsigned char)ptr;
	} else {
		o = put_name(p, owner);
	}
	unsigned char h[10] = {(unsigned char)(type >> 8), (unsigned char)type, 0, 1,
	                       (unsigned char)(ttl >> 24), (unsigned char)(ttl >> 16),
	                       (unsigned char)(ttl >> 8), (unsigned char)ttl,
	                       (unsigned char)(rdlen >> 8), (unsigned char)rdlen};
	memcpy(p + o, h, 10);
	memcpy(p + o + 10, rdata, rdlen);
	return o + 10 + rdlen;
}

/* A response to "www.Example.com A": www CNAME cdn.example.net, cdn A 192.0.2.10,
 * an unrelated A record, in the order given by cname_last. */
static size_t make_response(unsigned char *pkt, bool cname_last)
{
	size_t n = dns_build_query("www.Example.com", DNS_T_A, 0x1234, pkt, 512);
	pkt[2] |= 0x80;  /* QR */
	pkt[7] = 3;      /* ANCOUNT */
	unsigned char target[64], a[4], other[4];
	size_t tlen = put_name(target, "cdn.example.net");
	inet_pton(AF_INET, "192.0.2.10", a);
	inet_pton(AF_INET, "198.51.100.1", other);
	size_t cname_at = n;
	if (!cname_last)
		n += put_rr(pkt + n, DNS_HEADER, NULL, DNS_T_CNAME, 60, target, tlen);
	n += put_rr(pkt + n, 0, "cdn.example.net", DNS_T_A, 300, a, 4);
	n += put_rr(pkt + n, 0, "other.example.org", DNS_T_A, 300, other, 4);
	if (cname_last)
		n += put_rr(pkt + n, DNS_HEADER, NULL, DNS_T_CNAME, 60, target, tlen);
	(void)cname_at;
	return n;
}

T(query_round_trip_lowercases)
{
	unsigned char pkt[512];
	size_t n = dns_build_query("API.Example.COM", DNS_T_AAAA, 0xbeef, pkt, sizeof(pkt));
	CHECK(n > DNS_HEADER);
	struct dns_question q;
	CHECK_INT(dns_parse_query(pkt, n, &q), 0);
	CHECK_STR(q.name, "api.example.com");
	CHECK_INT(q.qtype, DNS_T_AAAA);
	CHECK_INT(q.id, 0xbeef);
	CHECK_INT(q.end, n);
}

T(query_rejects_responses_and_odd_shapes)
{
	unsigned char pkt[512];
	struct dns_question q;
	size_t n = dns_build_query("a.example.com", DNS_T_A, 1, pkt, sizeof(pkt));
	pkt[2] |= 0x80;
	CHECK_INT(dns_parse_query(pkt, n, &q), -1);          /* a response */
	pkt[2] &= 0x7f;
	pkt[5] = 2;
	CHECK_INT(dns_parse_query(pkt, n, &q), -1);          /* two questions */
	pkt[5] = 1;
	pkt[7] = 1;
	CHECK_INT(dns_parse_query(pkt, n, &q), -1);          /* answers in a query */
	pkt[7] = 0;
	CHECK_INT(dns_parse_query(pkt, n - 1, &q), -1);      /* truncated */
	CHECK_INT(dns_parse_query(pkt, 5, &q), -1);
	CHECK_INT(dns_parse_query(pkt, n, &q), 0);
}

T(label_with_a_dot_is_refused)
{
	/* one label "x.example" under "com" must not read as x.example.com */
	unsigned char pkt[64] = {0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0,
	                         9, 'x', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e',
	                         3, 'c', 'o', 'm', 0, 0, 1, 0, 1};
	struct dns_question q;
	CHECK_INT(dns_parse_query(pkt, 31, &q), -1);
	pkt[14] = 'y';
	CHECK_INT(dns_parse_query(pkt, 31, &q), 0);
	CHECK_STR(q.name, "xyexample.com");
}

T(pointer_loop_is_malformed)
{
	unsigned char pkt[32] = {0, 1, 0x80, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 12, 0, 1, 0, 1};
	struct dns_question q;
	CHECK_INT(dns_parse_response(pkt, 18, &q), -1);
	char name[DNS_MAX_NAME];
	size_t off = 12;
	CHECK_INT(dns_read_name(pkt, 18, &off, name, sizeof(name)), -1);
}

T(nxdomain_answer_keeps_id_and_question)
{
	unsigned char pkt[512], out[512];
	size_t n = dns_build_query("evil.example", DNS_T_A, 0x4242, pkt, sizeof(pkt));
	struct dns_question q, r;
	CHECK_INT(dns_parse_query(pkt, n, &q), 0);
	size_t m = dns_build_answer(pkt, &q, DNS_RCODE_NXDOMAIN, NULL, 0, out, sizeof(out));
	CHECK_INT(m, n);
	CHECK_INT(dns_parse_response(out, m, &r), 0);
	CHECK_INT(r.id, 0x4242);
	CHECK_INT(r.flags & 0xf, DNS_RCODE_NXDOMAIN);
	CHECK(r.flags & 0x0100); /* RD copied */
	CHECK_STR(r.name, "evil.example");
	CHECK_INT(out[7], 0);
}

T(local_answer_only_matching_type)
{
	unsigned char pkt[512], out[512];
	size_t n = dns_build_query("host.jail.internal", DNS_T_A, 7, pkt, sizeof(pkt));
	struct dns_question q;
	CHECK_INT(dns_parse_query(pkt, n, &q), 0);
	struct dns_addr addrs[2] = {{.family = AF_INET, .ttl = 5}, {.family = AF_INET6, .ttl = 5}};
	inet_pton(AF_INET, "10.0.2.2", addrs[0].addr);
	inet_pton(AF_INET6, "fd00::1", addrs[1].addr);
	size_t m = dns_build_answer(pkt, &q, 0, addrs, 2, out, sizeof(out));
	CHECK_INT(m, n + 16);
	struct dns_addr got[4];
	size_t k;
	CHECK_INT(dns_answer_addrs(out, m, "host.jail.internal", got, 4, &k), 0);
	CHECK_INT(k, 1);
	CHECK_INT(got[0].family, AF_INET);
	CHECK(memcmp(got[0].addr, addrs[0].addr, 4) == 0);
	CHECK_INT(dns_build_answer(pkt, &q, 0, addrs, 2, out, n + 10), 0); /* does not fit */
}

T(answers_follow_cnames_in_any_order)
{
	for (int last = 0; last < 2; last++) {
		unsigned char pkt[512];
		size_t n = make_response(pkt, last);
		struct dns_addr got[4];
		size_t k = 99;
		CHECK_INT(dns_answer_addrs(pkt, n, "www.example.com", got, 4, &k), 0);
		CHECK_INT(k, 1);
		char a[64];
		inet_ntop(AF_INET, got[0].addr, a, sizeof(a));
		CHECK_STR(a, "192.0.2.10");
		CHECK_INT(got[0].ttl, 300);
		/* a name that is not the question's gets nothing */
		CHECK_INT(dns_answer_addrs(pkt, n, "other.example.net", got, 4, &k), 0);
		CHECK_INT(k, 0);
	}
}

T(answers_bounds_checked)
{
	unsigned char pkt[512];
	size_t n = make_response(pkt, false);
	struct dns_addr got[4];
	size_t k;
	for (size_t cut = DNS_HEADER; cut < n; cut++)
		CHECK_INT(dns_answer_addrs(pkt, cut, "www.example.com", got, 4, &k), -1);
	pkt[7] = 4; /* one more answer than there is */
	CHECK_INT(dns_answer_addrs(pkt, n, "www.example.com", got, 4, &k), -1);
}

/* ---- what goes upstream: only the question jail rebuilt ---- */

static const unsigned char opt_cookie[] = {0, 0, 41, 0x10, 0, 0, 0, 0x80, 0, 0, 12,
                                           0, 10, 0, 8, 'c', 'a', 'f', 'e', 'c', 'a', 'f', 'e'};

/* "Api.Test A" with ARCOUNT ar, then extra bytes. */
static size_t agent_query(unsigned char *pkt, uint8_t ar, const void *extra, size_t n)
{
	size_t len = dns_build_query("Api.Test", DNS_T_A, 0x5151, pkt, 512);
	pkt[11] = ar;
	memcpy(pkt + len, extra, n);
	return len + n;
}

T(query_with_anything_after_the_question_is_refused)
{
	unsigned char pkt[512];
	struct dns_question q;
	static const unsigned char txt_rr[] = {0, 0, 16, 0, 1, 0, 0, 0, 0, 0, 4, 'b', 'e', 'e', 'f'};
	CHECK_INT(dns_parse_query(pkt, agent_query(pkt, 0, "junk", 4), &q), -1);
	CHECK_INT(dns_parse_query(pkt, agent_query(pkt, 1, txt_rr, sizeof(txt_rr)), &q), -1);
	unsigned char opt_then_junk[sizeof(opt_cookie) + 4];
	memcpy(opt_then_junk, opt_cookie, sizeof(opt_cookie));
	memcpy(opt_then_junk + sizeof(opt_cookie), "junk", 4);
	CHECK_INT(dns_parse_query(pkt, agent_query(pkt, 1, opt_then_junk, sizeof(opt_then_junk)), &q), -1);
	CHECK_INT(dns_parse_query(pkt, agent_query(pkt, 1, opt_cookie, sizeof(opt_cookie) - 1), &q), -1);
	CHECK_INT(dns_parse_query(pkt, agent_query(pkt, 2, opt_cookie, sizeof(opt_cookie)), &q), -1);
	/* an OPT record owned by a name other than the root */
	unsigned char named_opt[sizeof(opt_cookie) + 2] = {1, 'x'};
	memcpy(named_opt + 2, opt_cookie, sizeof(opt_cookie));
	CHECK_INT(dns_parse_query(pkt, agent_query(pkt, 1, named_opt, sizeof(named_opt)), &q), -1);
	/* a compressed question name pointing into the header */
	unsigned char ptr[] = {0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 2, 0, 1, 0, 1};
	CHECK_INT(dns_parse_query(ptr, sizeof(ptr), &q), -1);
	/* ... or one label, then a pointer: "api" + the id and flags read as "x" */
	unsigned char tail_ptr[] = {1, 'x', 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 3, 'a', 'p', 'i', 0xc0, 0,
	                            0, 1, 0, 1};
	CHECK_INT(dns_parse_query(tail_ptr, sizeof(tail_ptr), &q), -1);
	size_t off = DNS_HEADER;
	char name[DNS_MAX_NAME];
	CHECK_INT(dns_read_name(tail_ptr, sizeof(tail_ptr), &off, name, sizeof(name)), 0);
	CHECK_STR(name, "api.x");  /* readable, but not as a question */
	CHECK_INT(dns_parse_query(pkt, agent_query(pkt, 0, "", 0), &q), 0);
	CHECK(!q.edns);
}

T(upstream_gets_the_rebuilt_question_only)
{
	unsigned char pkt[512], up[512], want[512];
	struct dns_question q;
	size_t len = agent_query(pkt, 1, opt_cookie, sizeof(opt_cookie));
	pkt[3] |= 0x70;  /* flag bits of the agent's (Z, AD, CD) */
	CHECK_INT(dns_parse_query(pkt, len, &q), 0);
	CHECK(q.edns);
	CHECK_INT(q.udp_size, 4096);
	CHECK_INT(dns_udp_limit(&q), 4096);
	size_t n = dns_build_upstream(&q, 0x0707, up, sizeof(up));
	/* exactly: header(id 0x0707, RD, 1 question, 1 additional), "api.test" A IN,
	 * and jail's own OPT: root, type 41, size 1232, ttl 0, no options */
	size_t w = dns_build_query("api.test", DNS_T_A, 0x0707, want, sizeof(want));
	want[11] = 1;
	static const unsigned char our_opt[] = {0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 0};
	memcpy(want + w, our_opt, sizeof(our_opt));
	w += sizeof(our_opt);
	CHECK_INT(n, w);
	CHECK(memcmp(up, want, w) == 0);
	CHECK(memmem(up, n, "cafe", 4) == NULL);
	/* without an OPT record of the client's, none upstream */
	len = agent_query(pkt, 0, "", 0);
	CHECK_INT(dns_parse_query(pkt, len, &q), 0);
	CHECK_INT(dns_udp_limit(&q), 512);
	n = dns_build_upstream(&q, 0x0707, up, sizeof(up));
	CHECK_INT(n, w - sizeof(our_opt));
	CHECK_INT(up[11], 0);
	struct dns_question back;
	CHECK_INT(dns_parse_query(up, n, &back), 0);
	CHECK_STR(back.name, "api.test");
	CHECK_INT(back.id, 0x0707);
}

T(truncated_reply_says_so)
{
	unsigned char pkt[512], out[512];
	struct dns_question q, r;
	size_t len = agent_query(pkt, 0, "", 0);
	CHECK_INT(dns_parse_query(pkt, len, &q), 0);
	size_t n = dns_build_truncated(pkt, &q, out, sizeof(out));
	CHECK_INT(n, len);
	CHECK_INT(dns_parse_response(out, n, &r), 0);
	CHECK(r.flags & 0x0200);
	CHECK_INT(r.id, 0x5151);
}
