/* fuzz_policy.c — libFuzzer harness for the policy parser: any bytes as one
 * layer over the embedded default, then `policy show` of the result.  A crash
 * file replays with: build/fuzz_policy CRASHFILE.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -std=gnu11 \
 *     -DJAIL_DATADIR='"/nonexistent"' $(find src -type d -printf '-I%p ') -Ibuild -o build/fuzz_policy \
 *     tests/fuzz/fuzz_policy.c $(find src -name '*.c' ! -name main.c) build/embedded_policy.c \
 *     $(pkg-config --cflags --libs libmnl libnftnl libseccomp libcap-ng inih fuse3) -lm
 *   mkdir -p /tmp/corpus && cp policies/*.ini /tmp/corpus
 *   build/fuzz_policy -max_total_time=60 /tmp/corpus
 */
#include "policy.h"

#include <stdint.h>
#include <string.h>

extern const char embedded_default_policy[];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';  /* a NUL inside is an error at its line, as in a file read */
	struct policy p;
	struct jail_err e = {0};
	policy_init(&p);
	if (policy_load_text(&p, "<embedded default.ini>", embedded_default_policy, &e) < 0)
		abort();
	if (policy_load_buf(&p, "fuzz.ini", text, size, &e) == 0) {
		FILE *f = fopen("/dev/null", "w");
		if (f) {
			policy_print(&p, f);
			fclose(f);
		}
	} else if (!strstr(e.msg, "fuzz.ini:") && !strstr(e.msg, "policy '")) {
		abort();  /* every error of a file names file:line (or the missing policy) */
	}
	policy_free(&p);
	free(text);
	return 0;
}
