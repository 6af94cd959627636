/* Unit tests: termfilter.c.  Every input is also fed one byte per call, and in
 * two halves at every split point: the output must not depend on how reads
 * split the stream. */
#include "t.h"
#include "termfilter.h"

#include <stdlib.h>

static char *run_chunks(const char *in, size_t n, size_t chunk)
{
	struct term_filter *f = calloc(1, sizeof(*f));
	char *out = malloc(n + sizeof(f->hold) + 1), *p = out;
	for (size_t i = 0; i < n; i += chunk) {
		size_t k = n - i < chunk ? n - i : chunk;
		p += term_filter_run(f, in + i, k, p);
	}
	*p = '\0';
	free(f);
	return out;
}

static char *run_split(const char *in, size_t n, size_t at)
{
	struct term_filter *f = calloc(1, sizeof(*f));
	char *out = malloc(n + sizeof(f->hold) + 1), *p = out;
	p += term_filter_run(f, in, at, p);
	p += term_filter_run(f, in + at, n - at, p);
	*p = '\0';
	free(f);
	return out;
}

/* in filtered whole, byte by byte and split at every point must be want. */
static void expect(const char *in, const char *want)
{
	size_t n = strlen(in);
	char *whole = run_chunks(in, n, n ? n : 1);
	CHECK_STR(whole, want);
	char *bytes = run_chunks(in, n, 1);
	CHECK_STR(bytes, want);
	for (size_t at = 0; at <= n; at++) {
		char *s = run_split(in, n, at);
		if (strcmp(s, want) != 0)
			CHECK_STR(s, want);
		free(s);
	}
	free(whole);
	free(bytes);
}

T(plain_text_and_utf8_pass)
{
	expect("hello, world\r\n", "hello, world\r\n");
	expect("caf\xc3\xa9 \xe2\x9c\x9c \xf0\x9f\x98\x80 \xc2\xa9", "caf\xc3\xa9 \xe2\x9c\x9c \xf0\x9f\x98\x80 \xc2\xa9");
	expect("tab\there\a", "tab\there\a");
}

T(harmless_sequences_pass)
{
	expect("\x1b[1;31mred\x1b[0m", "\x1b[1;31mred\x1b[0m");
	expect("\x1b[2J\x1b[H\x1b[?25l\x1b[?1049h", "\x1b[2J\x1b[H\x1b[?25l\x1b[?1049h");
	expect("\x1b" "7\x1b" "8\x1b(B\x1b=", "\x1b" "7\x1b" "8\x1b(B\x1b=");
	expect("\x1b]0;my title\a", "\x1b]0;my title\a");
	expect("\x1b]2;t\x1b\\", "\x1b]2;t\x1b\\");
	expect("\x1b]8;;https://x.test/?q=1\x1b\\link\x1b]8;;\x1b\\",
	       "\x1b]8;;https://x.test/?q=1\x1b\\link\x1b]8;;\x1b\\");
	expect("\x1b]11;#000000\a", "\x1b]11;#000000\a");
}

T(clipboard_dropped)
{
	expect("a\x1b]52;c;ZXZpbA==\ab", "ab");
	expect("a\x1b]52;c;ZXZpbA==\x1b\\b", "ab");
	expect("a\x1b]52;c;?\ab", "ab");
	expect("a\xc2\x9d" "52;c;ZXZpbA==\ab", "ab");
	expect("a\x9d" "52;c;ZXZpbA==\ab", "ab");
}

T(osc_queries_and_unknown_osc_dropped)
{
	expect("a\x1b]11;?\ab", "ab");
	expect("a\x1b]4;1;?\ab", "ab");
	expect("a\x1b]10;?\x1b\\b", "ab");
	expect("a\x1b]1337;File=name=eA==:AAAA\ab", "ab");
	expect("a\x1b]50;?\ab", "ab");
	expect("a\x1b]0;ti\x1btle\ab", "a\x1btle\ab"); /* ESC ends it: the OSC is dropped */
	expect("a\x1b]0;t\xc2\x9b" "6n\ab", "ab"); /* encoded C1 inside the body */
}

T(answering_csi_dropped)
{
	expect("a\x1b[6nb", "ab");
	expect("a\x1b[5nb", "ab");
	expect("a\x1b[?6nb", "ab");
	expect("a\x1b[cb\x1b[>cc\x1b[=c", "abc");
	expect("a\x1b[21tb\x1b[14t\x1b[8;1000;1000t", "ab");
	expect("a\x1b[?2004$pb", "ab");
	expect("a\x1b[1;1;1;1;1;1*yb", "ab");
	expect("a\x1b[>qb\x1b[?u", "ab");
	expect("a\x9b" "6nb", "ab");
	expect("a\xc2\x9b" "6nb", "ab");
	expect("a\x1bZb", "ab");
	expect("a\x05" "b\x1b[\x05m", "ab\x1b[m"); /* ENQ: the answerback */
}

T(control_strings_dropped)
{
	expect("a\x1bP$qm\x1b\\b", "ab");
	expect("a\x1bP+q544e\x1b\\b", "ab");
	expect("a\x1b_Gi=1;AAAA\x1b\\b", "ab");
	/* BEL does not end a DCS: the query after it stays inside, dropped */
	expect("a\x1bP\a$qm\x1b\\b", "ab");
	expect("a\x90$qm\x1b\\b", "ab");
}

T(aborted_and_restarted_sequences)
{
	expect("a\x1b[6\x18n", "an");
	expect("a\x1b[6\x1b[6nb", "ab");
	expect("a\x1b[1\n;31mx", "a\n\x1b[1;31mx");
	expect("a\x1b\x1b[0mb", "a\x1b[0mb");
}

T(overlong_sequences_dropped_whole_and_bounded)
{
	size_t n = 3 * TERM_FILTER_HOLD;
	char *in = malloc(n + 16);
	memcpy(in, "\x1b]0;", 4);
	memset(in + 4, 'A', n - 4);
	memcpy(in + n, "\axy", 4);
	char *out = run_chunks(in, n + 3, 1000);
	CHECK_STR(out, "xy");
	free(out);
	memcpy(in, "\x1b[", 2);
	memset(in + 2, '1', n - 2);
	memcpy(in + n, "mxy", 4);
	out = run_chunks(in, n + 3, 7);
	CHECK_STR(out, "xy");
	free(out);
	free(in);
}

T(output_bound_holds_byte_by_byte)
{
	/* a held sequence completing in a one-byte call: out <= 1 + hold */
	struct term_filter *f = calloc(1, sizeof(*f));
	char in[TERM_FILTER_HOLD + 8];
	memcpy(in, "\x1b]0;", 4);
	memset(in + 4, 'x', TERM_FILTER_HOLD - 5);
	in[TERM_FILTER_HOLD - 1] = '\a';
	char out[TERM_FILTER_HOLD * 2];
	size_t total = 0, max = 0;
	for (size_t i = 0; i < TERM_FILTER_HOLD; i++) {
		size_t k = term_filter_run(f, in + i, 1, out);
		total += k;
		max = k > max ? k : max;
	}
	CHECK_INT(total, TERM_FILTER_HOLD);
	CHECK(max <= 1 + TERM_FILTER_HOLD);
	free(f);
}

/* Random streams over the bytes that matter, in random chunks: the output
 * bound holds and no dangerous sequence survives, however it was split. */
T(random_streams_never_leak_queries)
{
	static const unsigned char alphabet[] = {0x1b, '[', ']', '5', '2', ';', '6', 'n', 0x07,
	                                         '\\', 'P', '$', 'q', 'c', 't', '?', 0xc2,
	                                         0x9b, 0x9d, 0x90, 'a', 0x18, 'm', '1'};
	/* in each introducer form: 7-bit, UTF-8 encoded C1, raw C1 */
	static const char *const bad[] = {
		"\x1b]52", "\xc2\x9d" "52", "\x9d" "52",       /* clipboard */
		"\x1b[6n", "\xc2\x9b" "6n", "\x9b" "6n",       /* cursor report */
		"\x1b[?6n", "\xc2\x9b?6n", "\x9b?6n",
		"\x1b[c", "\xc2\x9b" "c", "\x9b" "c",          /* device attributes */
		"\x1b[1c", "\x1b[?c",
		"\x1bP", "\xc2\x90", "\x90",                  /* any DCS */
		"\x1b]5;?", "\x1b]2;?\x07",
	};
	unsigned seed = 12345;
	for (int round = 0; round < 200; round++) {
		struct term_filter *f = calloc(1, sizeof(*f));
		char in[4096], out[4096 + TERM_FILTER_HOLD], all[64 * 1024];
		size_t total = 0;
		for (int chunk = 0; chunk < 8; chunk++) {
			size_t n = (seed = seed * 1103515245 + 12345) % sizeof(in);
			for (size_t i = 0; i < n; i++)
				in[i] = (char)alphabet[((seed = seed * 1103515245 + 12345) >> 16) %
				                       sizeof(alphabet)];
			size_t m = term_filter_run(f, in, n, out);
			CHECK(m <= n + TERM_FILTER_HOLD);
			if (total + m < sizeof(all)) {
				memcpy(all + total, out, m);
				total += m;
			}
		}
		for (size_t b = 0; b < ARRAY_SIZE(bad); b++)
			CHECK(memmem(all, total, bad[b], strlen(bad[b])) == NULL);
		free(f);
	}
}
