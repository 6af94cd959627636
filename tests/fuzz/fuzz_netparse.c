/* fuzz_netparse.c — libFuzzer harness for the parsers that read what the jail
 * sends to the supervisor's network side: the SNI gate's ClientHello reader
 * (tlshello.c) and the resolver's DNS packet code (dns.c), queries from the
 * jail and responses from upstream alike.  A crash here is a denial of
 * service of the supervisor, an accepted wrong length a hole.  Build and run:
 *   clang -std=gnu11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
 *     -Isrc -Isrc/net -o build/fuzz_netparse tests/fuzz/fuzz_netparse.c src/net/dns.c src/net/tlshello.c
 *   build/fuzz_netparse -max_total_time=60
 * The first byte picks the parser (odd: a ClientHello, even: a DNS packet). */
#include "dns.h"
#include "tlshello.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static void fuzz_hello(const uint8_t *d, size_t n)
{
	char sni[TLSHELLO_NAME_MAX];
	const char *why;
	size_t end = 0, skip = 0;
	if (tlshello_sni_end(d, n, sni, sizeof(sni), &why, &end) == TLSHELLO_OK &&
	    (end > n || strlen(sni) >= sizeof(sni)))
		__builtin_trap();
	tlshello_retry(d, n);
	tlshello_skip_ccs(d, n, &skip);
	if (skip > n)
		__builtin_trap();
}

static void fuzz_dns(const uint8_t *d, size_t n)
{
	struct dns_question q;
	unsigned char out[4096];
	if (dns_parse_query(d, n, &q) == 0) {
		if (q.end > n || strlen(q.name) >= DNS_MAX_NAME)
			__builtin_trap();
		dns_build_upstream(&q, 1, out, sizeof(out));
		dns_build_truncated(d, &q, out, sizeof(out));
		dns_build_answer(d, &q, DNS_RCODE_NXDOMAIN, NULL, 0, out, sizeof(out));
	}
	if (dns_parse_response(d, n, &q) == 0) {
		struct dns_addr addrs[32];
		size_t k = 0;
		if (dns_answer_addrs(d, n, q.name, addrs, 32, &k) == 0 && k > 32)
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n < 1)
		return 0;
	if (d[0] & 1)
		fuzz_hello(d + 1, n - 1);
	else
		fuzz_dns(d + 1, n - 1);
	return 0;
}
