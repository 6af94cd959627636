/* Unit tests: brokerscrub.c (real values out of the upstream's responses). */
#include "t.h"
#include "brokerscrub.h"

#include <stdlib.h>
#include <string.h>

#define REAL "sk-ant-api03-REALvalue0123456789abcdef"
#define PH "sk-ant-api03-PHldrvalu9876543210zyxwvu"
#define REAL2 "ghp_SecondREALtoken0123456789AB"
#define PH2 "ghp_SecondPHldrtoken987654321ZY"

static struct broker_cred creds[] = {
	{.name = "A", .placeholder = PH, .real = REAL},
	{.name = "B", .placeholder = PH2, .real = REAL2},
	{.name = "C", .placeholder = "sk-other-host-placeholder000", .real = NULL},
};

/* text fed in pieces cut at the given offsets, then flushed */
static char *run(const char *text, const size_t *cuts, size_t ncuts)
{
	struct scrub s;
	struct strbuf out = {0};
	scrub_init(&s, creds, 3);
	size_t at = 0, len = strlen(text);
	for (size_t i = 0; i <= ncuts; i++) {
		size_t to = i < ncuts ? cuts[i] : len;
		scrub_feed(&s, text + at, to - at, &out);
		at = to;
	}
	scrub_flush(&s, &out);
	scrub_free(&s);
	sb_append(&out, "", 1);
	return out.s;
}

T(scrub_replaces_a_whole_value_in_one_read)
{
	char *o = run("{\"echo\":\"x-api-key: " REAL "\",\"b\":\"" REAL2 REAL "\"}", NULL, 0);
	CHECK_STR(o, "{\"echo\":\"x-api-key: " PH "\",\"b\":\"" PH2 PH "\"}");
	free(o);
}

T(scrub_finds_a_value_split_at_every_point)
{
	const char *text = "Bearer " REAL " and " REAL2 ".";
	const char *want = "Bearer " PH " and " PH2 ".";
	for (size_t a = 0; a <= strlen(text); a++)
		for (size_t b = a; b <= strlen(text); b += 3) {
			size_t cuts[] = {a, b};
			char *o = run(text, cuts, 2);
			CHECK_STR(o, want);
			free(o);
		}
	/* one byte at a time */
	size_t cuts[128];
	for (size_t i = 0; i < strlen(text); i++)
		cuts[i] = i + 1;
	char *o = run(text, cuts, strlen(text) - 1);
	CHECK_STR(o, want);
	free(o);
}

T(scrub_holds_only_past_the_shared_prefix)
{
	struct scrub s;
	struct strbuf out = {0};
	scrub_init(&s, creds, 3);
	/* the public prefix goes at once (it is the placeholder's too) */
	scrub_feed(&s, "data: sk-ant-api03-", 19, &out);
	CHECK_INT((int)out.len, 19);
	CHECK_INT((int)s.n_held, 0);
	/* secret characters after it wait (the prefix is out already) */
	scrub_feed(&s, "REAL", 4, &out);
	CHECK_INT((int)out.len, 19);
	CHECK_INT((int)s.n_held, 4);
	/* and goes once it cannot be a value */
	scrub_feed(&s, "X\n\n", 3, &out);
	CHECK_INT((int)s.n_held, 0);
	sb_append(&out, "", 1);
	CHECK_STR(out.s, "data: sk-ant-api03-REALX\n\n");
	/* an SSE event's end never waits */
	out.len = 0;
	scrub_feed(&s, "data: {\"t\":\"sk\"}\n\n", 19, &out);
	CHECK_INT((int)out.len, 19);
	sb_free(&out);
	scrub_free(&s);
}

T(scrub_keeps_matching_after_a_pause)
{
	/* a pause mid-value (within SCRUB_GUESS_MAX) lets the held part go as
	 * the placeholder's; what follows is still replaced */
	struct scrub s;
	struct strbuf out = {0};
	scrub_init(&s, creds, 3);
	scrub_feed(&s, "sk-ant-api03-REALval", 20, &out);
	CHECK(!scrub_pause(&s, &out));
	scrub_feed(&s, "ue0123456789abcdef!", 19, &out);
	scrub_flush(&s, &out);
	sb_append(&out, "", 1);
	CHECK(!s.cut);
	CHECK_STR(out.s, "sk-ant-api03-PHldrva" "lu9876543210zyxwvu!");
	sb_free(&out);
	scrub_free(&s);
}

T(scrub_overlapping_starts_and_other_hosts)
{
	/* a false start that overlaps the real one, and a value of another host */
	char *o = run("sk-ant-api03-sk-ant-api03-" REAL " sk-other-host-placeholder000", NULL, 0);
	CHECK_STR(o, "sk-ant-api03-sk-ant-api03-" PH " sk-other-host-placeholder000");
	free(o);
	size_t cuts[] = {20, 30};
	o = run("sk-ant-api03-sk-ant-api03-" REAL, cuts, 2);
	CHECK_STR(o, "sk-ant-api03-sk-ant-api03-" PH);
	free(o);
}

T(scrub_value_in_place)
{
	struct scrub s;
	scrub_init(&s, creds, 3);
	char v[] = "Bearer " REAL ", " REAL2;
	scrub_value(&s, v, strlen(v));
	CHECK_STR(v, "Bearer " PH ", " PH2);
	scrub_free(&s);
}

/* A text that ends inside a value, past its public prefix: that part as
 * the placeholder's (what the final flush does). */
static void end_as_placeholder(char *t)
{
	const char *real[] = {REAL, REAL2}, *ph[] = {PH, PH2};
	size_t len = strlen(t);
	for (size_t i = 0; i < 2; i++) {
		size_t keep = 0;
		while (real[i][keep] == ph[i][keep])
			keep++;
		for (size_t m = strlen(real[i]) - 1; m > keep; m--)
			if (m <= len && memcmp(t + len - m, real[i], m) == 0) {
				memcpy(t + len - m, ph[i], m);
				break;
			}
	}
}

T(scrub_random_streams_match_a_whole_replacement)
{
	unsigned seed = 7;
	const char *parts[] = {REAL, REAL2, "sk-ant-api03-", "sk-ant-api03-REAL", "ghp_", "ghp_Sec",
	                       "x", "\n\n", "data: ", "s", "g"};
	for (int round = 0; round < 3000; round++) {
		struct strbuf in = {0}, want = {0};
		int n = 1 + rand_r(&seed) % 12;
		for (int i = 0; i < n; i++) {
			const char *p = parts[(size_t)rand_r(&seed) % (sizeof(parts) / sizeof(*parts))];
			sb_puts(&in, p);
		}
		sb_append(&in, "", 1);
		/* the whole text, replaced at once, as the reference */
		sb_puts(&want, in.s);
		sb_append(&want, "", 1);
		struct scrub ref;
		scrub_init(&ref, creds, 3);
		scrub_value(&ref, want.s, strlen(want.s));
		scrub_free(&ref);
		end_as_placeholder(want.s);
		size_t cuts[8], nc = (size_t)rand_r(&seed) % 8, len = strlen(in.s);
		for (size_t i = 0; i < nc; i++)
			cuts[i] = len ? (size_t)rand_r(&seed) % (len + 1) : 0;
		for (size_t i = 1; i < nc; i++)  /* sorted */
			for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
				size_t t = cuts[j];
				cuts[j] = cuts[j - 1];
				cuts[j - 1] = t;
			}
		char *o = run(in.s, cuts, nc);
		CHECK_STR(o, want.s);
		free(o);
		sb_free(&in);
		sb_free(&want);
	}
}

static void b64(const char *in, char *out)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(in), o = 0;
	for (size_t i = 0; i < n; i += 3) {
		unsigned w = (unsigned char)in[i] << 16 | (i + 1 < n ? (unsigned char)in[i + 1] << 8 : 0) |
		             (i + 2 < n ? (unsigned char)in[i + 2] : 0);
		out[o++] = t[w >> 18 & 63];
		out[o++] = t[w >> 12 & 63];
		out[o++] = i + 1 < n ? t[w >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? t[w & 63] : '=';
	}
	out[o] = '\0';
}

T(scrub_replaces_the_base64_of_a_value)
{
	/* the broker puts a value inside a Basic credential's base64: an echo
	 * of that header is the placeholder's base64, at every offset, as a
	 * password (the encoding's end) or a user name, read a byte at a time */
	const char *plain[][2] = {
		{"x:" REAL, "x:" PH}, {"xy:" REAL, "xy:" PH}, {"xyz:" REAL, "xyz:" PH},
		{REAL ":x", PH ":x"}, {"u:" REAL2, "u:" PH2}, {"uv:" REAL2, "uv:" PH2},
	};
	for (size_t i = 0; i < sizeof(plain) / sizeof(*plain); i++) {
		char in[128], enc[200], want[200], text[300], wtext[300];
		snprintf(in, sizeof(in), "%s", plain[i][0]);
		b64(in, enc);
		b64(plain[i][1], want);
		snprintf(text, sizeof(text), "Authorization: Basic %s\r\n", enc);
		snprintf(wtext, sizeof(wtext), "Authorization: Basic %s\r\n", want);
		size_t cuts[300];
		for (size_t k = 0; k + 1 < strlen(text); k++)
			cuts[k] = k + 1;
		char *o = run(text, cuts, strlen(text) - 1);
		if (i == 3) {  /* the value's last character mixes in the ':' */
			CHECK(strncmp(o, wtext, 21 + 4 * strlen(PH) / 3 - 1) == 0);
			CHECK(strstr(o, "REAL") == NULL);
		} else {
			CHECK_STR(o, wtext);
		}
		free(o);
	}
}

/* A guess (brokerscrub.h): the agent has an upstream echo the key's public
 * prefix and characters it guesses.  Up to SCRUB_GUESS_MAX past the kept
 * prefix the stream goes on as before; a possible value past that which
 * then goes on otherwise, ends, or is cut short lets nothing more pass. */
static struct strbuf feed(struct scrub *s, const char *text)
{
	struct strbuf out = {0};
	scrub_feed(s, text, strlen(text), &out);
	sb_append(&out, "", 1);
	return out;
}

T(scrub_a_short_guess_goes_on_as_before)
{
	struct scrub s;
	scrub_init(&s, creds, 3);
	/* 7 characters past the prefix, then another byte: as it came */
	struct strbuf o = feed(&s, "a sk-ant-api03-REALval!");
	CHECK_STR(o.s, "a sk-ant-api03-REALval!");
	CHECK(!s.cut);
	sb_free(&o);
	scrub_free(&s);
}

T(scrub_a_guess_that_goes_on_otherwise_cuts)
{
	struct scrub s;
	scrub_init(&s, creds, 3);
	struct strbuf o = feed(&s, "before\n");
	CHECK_STR(o.s, "before\n");
	sb_free(&o);
	/* 8 characters past the prefix, then one the value does not have */
	o = feed(&s, "a sk-ant-api03-REALvalu!");
	CHECK_STR(o.s, "");
	CHECK(s.cut);
	CHECK_INT((int)s.cut_cred, 0);
	sb_free(&o);
	o = feed(&s, "after\n");  /* nothing more */
	CHECK_STR(o.s, "");
	sb_free(&o);
	scrub_free(&s);
}

T(scrub_a_guess_at_the_end_cuts)
{
	struct scrub s;
	scrub_init(&s, creds, 3);
	/* 9 past REAL2's kept prefix (ghp_Second), held whole */
	struct strbuf o = feed(&s, "x ghp_SecondREALtoken");
	CHECK_STR(o.s, "x ");
	o.len--;
	scrub_flush(&s, &o);
	sb_append(&o, "", 1);
	CHECK(s.cut);
	CHECK_INT((int)s.cut_cred, 1);
	CHECK_STR(o.s, "x ");  /* nothing of the guess */
	sb_free(&o);
	scrub_free(&s);
	/* cut short (an HTTP/2 stream reset): the same */
	scrub_init(&s, creds, 3);
	o = feed(&s, "ghp_SecondREALtoken");
	scrub_drop(&s);
	CHECK(s.cut);
	sb_free(&o);
	scrub_free(&s);
	/* shorter, at the end: the placeholder's, as before */
	scrub_init(&s, creds, 3);
	o = feed(&s, "ghp_SecondREAL");
	o.len--;
	scrub_flush(&s, &o);
	CHECK(!s.cut);
	CHECK_STR(o.s, "ghp_SecondPHld");
	sb_free(&o);
	scrub_free(&s);
}

T(scrub_a_pause_past_the_bound_holds_and_a_whole_value_passes)
{
	struct scrub s;
	scrub_init(&s, creds, 3);
	struct strbuf o = feed(&s, "k: sk-ant-api03-REALvalue01");
	o.len--;
	CHECK(!scrub_pausable(&s));
	CHECK(scrub_pause(&s, &o));  /* held on: neither the real bytes nor a verdict */
	sb_append(&o, "", 1);
	CHECK_STR(o.s, "k: ");
	o.len--;
	scrub_feed(&s, "23456789abcdef\n", 15, &o);
	scrub_flush(&s, &o);
	sb_append(&o, "", 1);
	CHECK(!s.cut);
	CHECK_STR(o.s, "k: " PH "\n");
	sb_free(&o);
	/* below the bound a pause lets the held bytes go, as the placeholder's */
	scrub_free(&s);
	scrub_init(&s, creds, 3);
	o = feed(&s, "k: sk-ant-api03-REAL");
	o.len--;
	CHECK(scrub_pausable(&s));
	CHECK(!scrub_pause(&s, &o));
	sb_append(&o, "", 1);
	CHECK_STR(o.s, "k: sk-ant-api03-PHld");
	sb_free(&o);
	scrub_free(&s);
}
