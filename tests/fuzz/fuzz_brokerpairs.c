/* fuzz_brokerpairs.c — libFuzzer harness for the broker's HTTP/2 header-list
 * rewriter (reqp_pairs: what the agent sends on an h2 stream reaches it once
 * nghttp2 has decoded the block).  The input is lines, each "NAME: VALUE"
 * (the first ": " after the first byte splits them, so ":path: /x" works).
 * Invariants: the real value comes out no more often than the placeholder
 * (or the real value, which the fuzzer may guess) went in, only as a whole
 * value or after one scheme word, only in a value marked sensitive, and
 * only in a field whose name no other field has (a server would join them).
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -std=gnu11 \
 *     -Isrc -Isrc/broker -o build/fuzz_brokerpairs tests/fuzz/fuzz_brokerpairs.c src/broker/brokerhttp.c \
 *     src/broker/brokerrules.c src/util.c
 *   build/fuzz_brokerpairs -max_total_time=60
 */
#include "brokerhttp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PH "sk-fz-PLACEHOLDER0123456789"
#define REAL "sk-fz-REALVALUExyz98765432"
#define MAXP 64

static size_t count(const char *h, size_t hl, const char *n)
{
	size_t c = 0, nl = strlen(n);
	for (const char *p = h; hl && (p = memmem(p, hl - (size_t)(p - h), n, nl)); p += nl)
		c++;
	return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct strv hdrs, rules;
	if (!hdrs.n) {
		strv_push(&hdrs, "authorization");
		strv_push(&hdrs, "x-api-key");
		strv_push(&rules, "GET *");
		strv_push(&rules, "POST /v1/*");
	}
	char *in = malloc(size + 1);
	memcpy(in, data, size);
	in[size] = '\0';
	struct broker_pair p[MAXP];
	size_t n = 0;
	for (char *line = in; line < in + size && n < MAXP;) {
		char *end = memchr(line, '\n', (size_t)(in + size - line));
		if (!end)
			end = in + size;
		char *sep = end - line > 1 ? memmem(line + 1, (size_t)(end - line - 1), ": ", 2) : NULL;
		if (sep)
			p[n++] = (struct broker_pair){line, sep + 2, (size_t)(sep - line), (size_t)(end - sep - 2)};
		line = end + 1;
	}
	struct broker_cred cred = {"K", PH, REAL, &hdrs, size && data[0] & 1 ? &rules : NULL};
	struct reqp r;
	reqp_init(&r, "api.example.com", &cred, 1);
	size_t off[MAXP], len[MAXP];
	bool sens[MAXP];
	struct strbuf out = {0};
	if (reqp_pairs(&r, p, n, &out, off, len, sens) == 0) {
		size_t guessed = count(in, size, REAL);
		if (out.len && count(out.s, out.len, REAL) > count(in, size, PH) + guessed)
			abort();
		for (size_t i = 0; i < n && !guessed; i++) {
			const char *v = out.s + off[i];
			const char *at = len[i] ? memmem(v, len[i], REAL, strlen(REAL)) : NULL;
			if (at && (!sens[i] || at + strlen(REAL) != v + len[i] ||
			           (at != v && (at[-1] != ' ' || memchr(v, ' ', (size_t)(at - v - 1))))))
				abort();
			for (size_t k = 0; sens[i] && k < n; k++)
				if (k != i && p[k].nlen == p[i].nlen &&
				    strncasecmp(p[k].name, p[i].name, p[i].nlen) == 0)
					abort();
		}
	}
	reqp_data(&r, in, size);
	reqp_trailers(&r, p, n);
	reqp_free(&r);
	sb_free(&out);
	free(in);
	return 0;
}
