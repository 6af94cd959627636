/* fuzz_broker.c — libFuzzer harness for the broker's request rewriter (what
 * the agent sends reaches this parser in the supervisor).  The first byte
 * picks the read size; the rest is fed as the jail's bytes.  Invariants: the
 * real value never comes out more often than the placeholder (or the real
 * value itself, which the fuzzer may guess) went in, and only as a whole
 * credential at the end of a header line.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -std=gnu11 \
 *     -Isrc -Isrc/broker -o build/fuzz_broker tests/fuzz/fuzz_broker.c src/broker/brokerhttp.c src/util.c
 *   build/fuzz_broker -max_total_time=60
 */
#include "brokerhttp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PH "sk-fz-PLACEHOLDER0123456789"
#define REAL "sk-fz-REALVALUExyz98765432"

static size_t count(const char *h, size_t hl, const char *n)
{
	size_t c = 0, nl = strlen(n);
	for (const char *p = h; (p = memmem(p, hl - (size_t)(p - h), n, nl)); p += nl)
		c++;
	return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static struct strv hdrs;
	if (!hdrs.n) {
		strv_push(&hdrs, "Authorization");
		strv_push(&hdrs, "x-api-key");
	}
	struct broker_cred cred = {"K", PH, REAL, &hdrs};
	struct reqp r;
	reqp_init(&r, "api.example.com", &cred, 1);
	size_t step = data[0] ? data[0] : 4096;
	const char *in = (const char *)data + 1;
	size_t len = size - 1;
	struct strbuf out = {0};
	for (size_t i = 0; i < len; i += step) {
		size_t n = len - i < step ? len - i : step;
		if (reqp_feed(&r, in + i, n, &out) < 0)
			break;
	}
	if (out.len && count(out.s, out.len, REAL) > count(in, len, PH) + count(in, len, REAL))
		abort();
	/* and it goes out only as a whole credential: "NAME: REAL" or
	 * "NAME: SCHEME REAL", the line ending right after it */
	for (const char *p = out.s; !count(in, len, REAL) && p && (p = memmem(p, out.len - (size_t)(p - out.s), REAL, strlen(REAL))); p++)
		if (p == out.s || p[-1] != ' ' || p[strlen(REAL)] != '\r')
			abort();
	reqp_free(&r);
	sb_free(&out);
	return 0;
}
