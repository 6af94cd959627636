/* fuzz_brokerresp.c — libFuzzer harness for the broker's response reader
 * (what an upstream sends, quoting whatever the agent asked it to, reaches
 * this in the supervisor).  The first byte picks the read size, the second
 * whether the request was HEAD; the rest is fed as the upstream's bytes.
 * Invariant: the real value never comes out whole (nor do the reader's
 * own chunks make it whole).  Memory errors: the sanitizers.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -std=gnu11 \
 *     -Isrc -Isrc/broker -o build/fuzz_brokerresp tests/fuzz/fuzz_brokerresp.c \
 *     src/broker/brokerresp.c src/broker/brokerscrub.c src/util.c
 *   build/fuzz_brokerresp -max_total_time=60
 */
#include "brokerresp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PH "sk-fz-PLACEHOLDER012345678" /* the real value's length */
#define REAL "sk-fz-REALVALUExyz98765432"

static bool has_real(const char *s, size_t n)
{
	return n && memmem(s, n, REAL, strlen(REAL)) != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	struct broker_cred cred = {"K", PH, REAL, NULL, NULL};
	struct resp r;
	resp_init(&r, &cred, 1);
	r.head_request = data[1] & 1;
	size_t step = data[0] ? data[0] : 4096;
	const char *in = (const char *)data + 2;
	size_t len = size - 2;
	struct strbuf out = {0};
	for (size_t i = 0; i < len; i += step) {
		size_t n = len - i < step ? len - i : step;
		resp_feed(&r, in + i, n, &out);
	}
	resp_flush(&r, &out);
	if (has_real(out.s, out.len))
		abort();
	resp_free(&r);
	sb_free(&out);
	return 0;
}
