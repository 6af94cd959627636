/* Unit tests: termfilter.c.  Every input is also fed one byte per call, and in
 * two halves at every split point: the output must not depend on how reads
 * split the stream. */
#include "t.h"
#include "termfilter.h"

#include <stdlib.h>

static bool eight_bit; /* filters made by the helpers take this mode */

static struct term_filter *new_filter(void)
{
	struct term_filter *f = calloc(1, sizeof(*f));
	f->eight_bit = eight_bit;
	return f;
}

static char *run_chunks(const char *in, size_t n, size_t chunk)
{
	struct term_filter *f = new_filter();
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
	struct term_filter *f = new_filter();
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
	/* a title: the user's are pushed first (the reset pops them) */
	expect("\x1b]0;my title\a\x1b]2;t2\a", "\x1b[22;0t\x1b]0;my title\a\x1b]2;t2\a");
	expect("\x1b]2;t\x1b\\", "\x1b[22;0t\x1b]2;t\x1b\\");
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
	expect("a\x1b]0;ti\x1btle\ab", "ale\ab"); /* ESC ends it: the OSC is dropped */
	expect("a\x1b]0;t\xc2\x9b" "6n\ab", "ab"); /* encoded C1 inside the body */
}

/* ConEmu's commands behind OSC 9, urxvt's perl extensions behind 777 */
T(osc_commands_behind_notifications_dropped)
{
	expect("a\x1b]9;7;\"calc.exe\"\ab", "ab");
	expect("a\x1b]9;6;Shell(\"calc\")\x1b\\b", "ab");
	expect("a\x1b]9;12\ab", "ab");
	expect("a\x1b]777;background;1\ab", "ab");
	expect("a\x1b]777;notifyx;t\ab", "ab");
	expect("a\x1b]9;done\ab", "a\x1b]9;done\ab");
	expect("a\x1b]9;4;1;50\ab", "a\x1b]9;4;1;50\ab");
	expect("a\x1b]9;9;/tmp\ab", "ab"); /* the working directory: not the host's */
	expect("a\x1b]9;\ab", "a\x1b]9;\ab");
	expect("a\x1b]777;notify;T;B\ab", "a\x1b]777;notify;T;B\ab");
	expect("a\x1b]777;precmd\ab", "a\x1b]777;precmd\ab");
}

/* media copy: printing, printer controller mode, xterm's screen dumps */
T(media_copy_dropped)
{
	expect("a\x1b[ib", "ab");
	expect("a\x1b[5ib", "ab");
	expect("a\x1b[4ib", "ab");
	expect("a\x1b[?10ib", "ab");
	expect("a\x1b[?11ib", "ab");
	expect("a\xc2\x9b" "5ib", "ab");
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

/* A held sequence of len bytes (an OSC with introducer intro) completing in
 * one-byte calls: what is written in all, and out <= 1 + hold in each call. */
static size_t one_byte_calls(const char *intro, size_t len)
{
	struct term_filter *f = calloc(1, sizeof(*f));
	char in[TERM_FILTER_HOLD + 8];
	memcpy(in, intro, strlen(intro));
	memset(in + strlen(intro), 'x', len - strlen(intro) - 1);
	in[len - 1] = '\a';
	char out[TERM_FILTER_HOLD * 2];
	size_t total = 0, max = 0;
	for (size_t i = 0; i < len; i++) {
		size_t k = term_filter_run(f, in + i, 1, out);
		total += k;
		max = k > max ? k : max;
	}
	CHECK(max <= 1 + TERM_FILTER_HOLD);
	free(f);
	return total;
}

T(output_bound_holds_byte_by_byte)
{
	CHECK_INT(one_byte_calls("\x1b]9;", TERM_FILTER_HOLD), TERM_FILTER_HOLD);
	/* a title with the push before it: the push must fit too */
	size_t push = strlen("\x1b[22;0t");
	CHECK_INT(one_byte_calls("\x1b]0;", TERM_FILTER_HOLD - push), TERM_FILTER_HOLD);
	CHECK_INT(one_byte_calls("\x1b]0;", TERM_FILTER_HOLD - push + 1), 0);
}

/* Random streams over the bytes that matter, in random chunks: the output
 * bound holds and no dangerous sequence survives, however it was split. */
T(random_streams_never_leak_queries)
{
	static const unsigned char alphabet[] = {0x1b, '[', ']', '5', '2', ';', '6', 'n', 0x07,
	                                         '\\', 'P', '$', 'q', 'c', 't', '?', 0xc2,
	                                         0x9b, 0x9d, 0x90, 'a', 0x18, 'm', '1',
	                                         '%', '@', ' ', 'G'};
	/* in each introducer form: 7-bit, UTF-8 encoded C1, raw C1 */
	static const char *const bad[] = {
		"\x1b]52", "\xc2\x9d" "52", "\x9d" "52",       /* clipboard */
		"\x1b[6n", "\xc2\x9b" "6n", "\x9b" "6n",       /* cursor report */
		"\x1b[?6n", "\xc2\x9b?6n", "\x9b?6n",
		"\x1b[c", "\xc2\x9b" "c", "\x9b" "c",          /* device attributes */
		"\x1b[1c", "\x1b[?c",
		"\x1bP", "\xc2\x90", "\x90",                  /* any DCS */
		"\x1b]5;?", "\x1b]2;?\x07",
		"\x1b%@", "\x1b G",                            /* mode switches */
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
		/* a C1-range byte only ever passes UTF-8 encoded (C2 9B...) */
		for (size_t i = 0; i < total; i++)
			if ((unsigned char)all[i] >= 0x80 && (unsigned char)all[i] <= 0x9f)
				CHECK(i > 0 && (unsigned char)all[i - 1] == 0xc2);
		free(f);
	}
}

/* Sequences that switch the terminal's character set, its C1 mode or how it
 * parses are dropped: after them the filter's model of the stream would no
 * longer be the terminal's. */
T(charset_and_c1_mode_switches_dropped)
{
	expect("a\x1b%@b", "ab");                    /* leave UTF-8 */
	expect("a\x1b%8b\x1b%/Gc\x1b%/@d", "abcd");
	expect("a\x1b%Gb", "a\x1b%Gb");              /* select UTF-8: stays */
	expect("a\x1b Fb\x1b Gc\x1b Ld\x1b Me\x1b Nf", "abcdef"); /* S7C1T S8C1T ANSI levels */
	expect("a\x1b[62;0\"pb\x1b[61\"pc\x1b[65;1\"pd", "abcd"); /* DECSCL */
	expect("a\x1b[?2lb\x1b[?1;2lc\x1b[?2hd", "abcd"); /* DECANM: VT52 mode */
	expect("a\x1b$Bb\x1b$(Cc\x1b$)Ad", "abcd");  /* multibyte sets */
	expect("a\x1b(<b\x1b(%5c\x1b)\"?d\x1b*Be\x1b+0f\x1b-Ag\x1b.Ah\x1b/Ai", "abcdefghi");
	expect("a\x1bnb\x1boc\x1b|d\x1b}e\x1b~f", "abcdef"); /* locking shifts */
	expect("a\x1b[2hb\x1b[12lc\x1b[2;4hd", "abcd"); /* KAM locks the keyboard, SRM echoes */
	expect("a\x1b[?1036hb\x1b[?1034lc\x1b[?67hd\x1b[?1060he\x1b[?3hf", "abcdef");
	expect("a\x1b[&ub\x1b[\"vc\x1b[1'zd\x1b[1'|e\x1b[?4mf\x1b[#Rg", "abcdefg");
	/* what terminfo uses passes: G0/G1 as ASCII, line drawing or UK, SO/SI */
	expect("\x1b(B\x1b(0\x1b)0\x1b)B\x1b(A\x0e\x0f", "\x1b(B\x1b(0\x1b)0\x1b)B\x1b(A\x0e\x0f");
	expect("\x1b#8\x1b#3\x1b" "c\x1b[4h\x1b[?1000h", "\x1b#8\x1b#3\x1b" "c\x1b[4h\x1b[?1000h");
	expect("\x1b[?1;1000h", "\x1b[?1;1000h");
	/* other spellings: the encoded C1 form, XTRESTORE, sub-parameters,
	 * leading zeros, more parameters than are read, a number a terminal
	 * could wrap around to 2 */
	expect("a\xc2\x9b" "62;0\"pb\xc2\x9b?2lc", "abc");
	expect("a\x1b[?2rb\x1b[?1036rc", "abc");
	expect("a\x1b[?2:1lb\x1b[?0002lc", "abc");
	expect("a\x1b[?1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;2lb", "ab");
	/* a long SGR is no mode switch: it passes */
	expect("\x1b[38;2;1;2;3;48;2;4;5;6;1;3;4;9;53;58;2;1;2;3;1;1;1;1;1;1;1;1;1;1;1;1;1mX",
	       "\x1b[38;2;1;2;3;48;2;4;5;6;1;3;4;9;53;58;2;1;2;3;1;1;1;1;1;1;1;1;1;1;1;1;1mX");
	expect("a\x1b[?65538lb\x1b[?4294967298lc", "abc");
	expect("a\x1b%\n@b", "a\nb");             /* a C0 control inside */
}

/* A raw byte 0x80-0x9F outside a valid UTF-8 sequence never reaches the host
 * terminal, nor does a sequence it introduces: with UTF-8 switched off a
 * terminal would take it for a C1 control. */
T(raw_c1_never_passes)
{
	expect("a\x9b" "1mb", "ab");
	expect("a\x9b?1000hb", "ab");
	expect("a\x9d" "0;t\ab", "ab");
	expect("a\x85" "b\x80" "c", "abc");
	expect("a\xe0\x9b" "1mb", "a\xe0" "b");      /* E0 needs A0-BF next */
	expect("a\xf0\x8f\x9b" "1mb", "a\xf0" "b");  /* overlong: F0 needs 90-BF */
	expect("a\xed\xa0\x80" "b", "a\xed\xa0" "b"); /* a surrogate */
	expect("a\xf4\xa0\x80\x80" "b", "a\xf4\xa0" "b"); /* above U+10FFFF */
	/* ... where a raw DCS starts a string that is dropped up to its end */
	expect("a\xf4\x90\x80\x80" "b\x1b\\c", "a\xf4" "c");
	expect("a\xc3" "b\xe2\x94" "c", "a\xc3" "b\xe2" "c"); /* cut short */
	expect("\xe2\x94\x80\xf0\x9f\x98\x80\xe2\x80\x94", "\xe2\x94\x80\xf0\x9f\x98\x80\xe2\x80\x94");
	expect("a\xc2\x9b" "1mb", "a\xc2\x9b" "1mb"); /* UTF-8 encoded C1: judged, passes */
	expect("a\xc2\x9b" "6nb", "ab");
}

/* A host terminal that is not in UTF-8 takes every byte 0x80-0x9F for a C1
 * control: none passes. */
T(eight_bit_terminal_gets_no_c1_byte)
{
	eight_bit = true;
	expect("caf\xe9 \xa9", "caf\xe9 \xa9");
	expect("a\xe2\x94\x80" "b", "a\xe2" "b");
	expect("a\xc2\x9b" "1mb", "a\xc2" "b");
	expect("a\x9b" "6nb\x1b[1mc", "ab\x1b[1mc");
	eight_bit = false;
}

/* The reset written when the jail ends, after in was shown in chunks. */
static char *reset_after(const char *in, size_t chunk)
{
	struct term_filter *f = new_filter();
	size_t n = strlen(in);
	char *out = malloc(n + sizeof(f->hold) + TERM_RESET_MAX + 1);
	for (size_t i = 0; i < n; i += chunk)
		term_filter_run(f, in + i, n - i < chunk ? n - i : chunk, out);
	size_t m = term_filter_reset(f, out);
	CHECK(m <= TERM_RESET_MAX);
	out[m] = '\0';
	free(f);
	return out;
}

static void expect_reset(const char *in, const char *want)
{
	size_t n = strlen(in);
	for (size_t chunk = 1; chunk <= (n ? n : 1); chunk++) {
		char *got = reset_after(in, chunk);
		if (strcmp(got, want) != 0 || chunk == 1)
			CHECK_STR(got, want);
		free(got);
	}
}

T(reset_undoes_modes_that_send_input)
{
	expect_reset("", "");
	expect_reset("hello \x1b[1;1H\x1b[2J", "");
	expect_reset("\x1b[?1000h\x1b[?1006h", "\x1b[?1000l\x1b[?1006l");
	expect_reset("\x1b[?1000;1006h\x1b[?1000l", "\x1b[?1006l");
	expect_reset("\x1b[?9h\x1b[?1001h\x1b[?1002h\x1b[?1003h\x1b[?1005h\x1b[?1015h\x1b[?1016h",
	             "\x1b[?9l\x1b[?1001l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1015l\x1b[?1016l");
	expect_reset("\x1b[?1004h\x1b[?2004h\x1b[?1007h", "\x1b[?1004l\x1b[?1007l\x1b[?2004l");
	expect_reset("\x1b[?1049h\x1b[?47h\x1b[?1047h", "\x1b[?47l\x1b[?1047l\x1b[?1049l\x1b" "7");
	expect_reset("\x1b=\x1b[?1h", "\x1b[?1l\x1b>");
	expect_reset("\x1b=\x1b>", "");
	expect_reset("\x1b[?66h\x1b[?2031h\x1b[?2048h", "\x1b[?66l\x1b[?2031l\x1b[?2048l");
	expect_reset("\x1b[?25l\x1b[?7l", "\x1b[?7h\x1b[?25h");
	expect_reset("\x1b[>1u\x1b[>3u", "\x1b[<2u");  /* kitty keyboard pushes */
	expect_reset("\x1b[>1u\x1b[<u", "");
	expect_reset("\x1b[=5;1u", "\x1b[=0;1u");
	expect_reset("\x1b[>4;2m\x1b[>1;2m", "\x1b[>1m\x1b[>4m"); /* modifyOtherKeys & co */
	expect_reset("\x1b[4h\x1b[20h", "\x1b[4l\x1b[20l");
	expect_reset("\x0e", "\x0f\x1b(B");
	expect_reset("\x1b)0\x1b(0", "\x0f\x1b(B");
	expect_reset("\x1b[31mred", "\x1b[m");
	expect_reset("\x1b[31mred\x1b[0m", "");
	expect_reset("\x1b[?1000r", "\x1b[?1000l");    /* XTRESTORE may turn it on */
	expect_reset("\xc2\x9b?1000h", "\x1b[?1000l"); /* the UTF-8 encoded C1 form */
	expect_reset("\x9b?1000h\x1b[?1\x18", "");     /* dropped, never reached the terminal */
	expect_reset("\x1b[?2026h\x1b[?6h\x1b[?69h", "\x1b[?6l\x1b[?69l\x1b[?2026l");
	expect_reset("\x1b[5 q", "\x1b[0 q");         /* cursor style */
	expect_reset("\x1b[5 q\x1b[ q", "");
	expect_reset("\x1b[3;10r", "\x1b" "7\x1b[r\x1b" "8\x1b" "7"); /* scroll margins */
	expect_reset("\x1b[3;10r\x1b[r", "");
	expect_reset("\x1b]11;#000000\a\x1b]4;1;red\x1b\\", "\x1b]104\x1b\\\x1b]111\x1b\\");
	expect_reset("\x1b]10;red\a\x1b]12;red\a\x1b]17;red\a\x1b]19;red\a",
	             "\x1b]110\x1b\\\x1b]112\x1b\\\x1b]117\x1b\\\x1b]119\x1b\\");
	/* everything at once stays within the bound */
	expect_reset("\x1b[>1u\x1b[=1;1u\x1b[>0;1m\x1b[>1;1m\x1b[>2;1m\x1b[>3;1m\x1b[>4;1m"
	             "\x1b[>6;1m\x1b[>7;1m\x1b[?1;5;9;66;1000;1001;1002;1003;1004;1005;1006h"
	             "\x1b[?1007;1015;1016;2004;2031;2048;47;1047;1049h\x1b[?7;8;25l\x1b="
	             "\x1b[4;20h\x1b[1m\x0e",
	             "\x1b[>0m\x1b[>1m\x1b[>2m\x1b[>3m\x1b[>4m\x1b[>6m\x1b[>7m"
	             "\x1b[?1l\x1b[?5l\x1b[?9l\x1b[?66l\x1b[?1000l\x1b[?1001l\x1b[?1002l"
	             "\x1b[?1003l\x1b[?1004l\x1b[?1005l\x1b[?1006l\x1b[?1007l\x1b[?1015l"
	             "\x1b[?1016l\x1b[?2004l\x1b[?2031l\x1b[?2048l\x1b[?47l\x1b[?1047l\x1b[?1049l"
	             "\x1b[?7h\x1b[?8h\x1b[?25h\x1b[=0;1u\x1b[<1u\x1b>\x1b[4l\x1b[20l\x1b[m\x0f\x1b(B\x1b" "7");
}

/* What passes is an allowlist: other modes, control sequences and ESC finals
 * are some terminal's own (terminal_attack.sh says which and why). */
T(only_known_sequences_and_modes_pass)
{
	expect("a\x1b[?38hb\x1b[?46hc\x1b[?1041hd\x1b[?7727he\x1b[?1049;45hf", "abcdef");
	expect("a\x1b[3hb\x1b[?hc\x1b[hd", "abcd");     /* CRM; no mode at all */
	expect("a\x1b[5;6;7,~b\x1b[3 tc\x1b[2 }d\x1b[>1;1fe\x1b[>2pf", "abcdef");
	expect("a\x1b[?2$!pb\x1b[2?1hc\x1b[1;2$$xd", "abcd"); /* not well formed */
	expect("a\x1blb\x1bmc\x1bNd\x1b`e", "abcde");
	expect("\x1b[?1;12;25;1048;1049;2026;2027h\x1b[4l\x1b[?1049s",
	       "\x1b[?1;12;25;1048;1049;2026;2027h\x1b[4l\x1b[?1049s");
	expect("\x1b[5 q\x1b[!p\x1b[1;1;2;2$x\x1b[#p\x1b[#q\x1b[2'}\x1b[>4;2m\x1b[=1;1u",
	       "\x1b[5 q\x1b[!p\x1b[1;1;2;2$x\x1b[#p\x1b[#q\x1b[2'}\x1b[>4;2m\x1b[=1;1u");
	/* state the reset does not undo: tab stops, protection, DECSACE */
	expect("a\x1b[3gb\x1b[gc\x1bHd\x1b[1\"qe\x1b[2*xf", "abcdef");
	expect("\x1b" "7\x1b" "8\x1b=\x1b>\x1b" "D\x1b" "E\x1b" "M\x1b" "c",
	       "\x1b" "7\x1b" "8\x1b=\x1b>\x1b" "D\x1b" "E\x1b" "M\x1b" "c");
}

T(osc_links_colours_and_cwd)
{
	expect("a\x1b]8;;vscode://x\ab\x1b]8;;file:///x\ac\x1b]8;;SSH://h\x1b\\d", "abcd");
	expect("\x1b]8;;HTTPS://x.test/\a\x1b]8;;man:ls(1)\a\x1b]8;;\a",
	       "\x1b]8;;HTTPS://x.test/\a\x1b]8;;man:ls(1)\a\x1b]8;;\a");
	expect("a\x1b]8;https://x.test/\ab", "ab"); /* no parameters field */
	expect("a\x1b]10;red;blue\ab\x1b]11;a;b\x1b\\c", "abc");
	expect("a\x1b]7;file://h/tmp\ab\x1b]9;9;/tmp\ac", "abc");
}

T(reset_kitty_keyboard_on_each_screen)
{
	expect_reset("\x1b[>1u\x1b[?1049h\x1b[>1u", "\x1b[<1u\x1b[?1049l\x1b[<1u\x1b" "7");
	expect_reset("\x1b[?1049h\x1b[=1;1u", "\x1b[=0;1u\x1b[?1049l\x1b" "7");
	expect_reset("\x1b[?1049h\x1b[>1u\x1b[?1049l", "\x1b[?1049h\x1b[<1u\x1b[?1049l\x1b" "7");
	expect_reset("\x1b[?1049h\x1b[>1u\x1b[<u\x1b[?1049l", "\x1b" "7");
	expect_reset("\x1b[?12h\x1b[?2027h", "\x1b[?12l\x1b[?2027l");
	expect_reset("\x1b[!p", "\x1b[?7h"); /* soft reset: autowrap off on a VT510 */
	/* what a cursor restore or an SGR pop brings back counts as on */
	expect_reset("\x1b[31m\x1b" "7\x1b[m\x1b" "8", "\x1b[m\x1b" "7");
	expect_reset("\x1b[31m\x1b[#{\x1b[m\x1b[#}", "\x1b[m");
	/* pushes left on the SGR stack are popped (at most xterm's 10) */
	expect_reset("\x1b[8m\x1b[#{\x1b[#p\x1b[m", "\x1b[#}\x1b[#}\x1b[m");
	expect_reset("\x1b[#{\x1b[#{\x1b[#{\x1b[#{\x1b[#{\x1b[#{\x1b[#{\x1b[#{\x1b[#{\x1b[#{\x1b[#{",
	             "\x1b[#}\x1b[#}\x1b[#}\x1b[#}\x1b[#}\x1b[#}\x1b[#}\x1b[#}\x1b[#}\x1b[#}\x1b[m");
	expect_reset("\x1b[?1049h\x1b[?1049l", "\x1b" "7");
	expect_reset("\x1b[31m\x1b[?1049h\x1b[m\x1b[?1049l", "\x1b[m\x1b" "7");
	expect_reset("\x1b[?6h\x1b[s\x1b[?6l\x1b[u", "\x1b[?6l\x1b" "7");
}

/* A hyperlink left open makes everything printed after the jail a link; a
 * progress indicator stays in the tab. */
T(reset_ends_links_and_progress)
{
	expect_reset("\x1b]8;;https://x.test/\aclick", "\x1b]8;;\x1b\\");
	expect_reset("\x1b]8;id=1;https://x.test/\ax\x1b]8;;\a", "");
	expect_reset("\x1b]9;4;3\a", "\x1b]9;4;0\x1b\\");
	expect_reset("\x1b]9;4;1;50\a\x1b]9;4;0\a", "");
	expect_reset("\x1b]9;4;0;5\a\x1b]9;done\a", "");
	expect_reset("\x1b]0;sudo password\a", "\x1b[23;0t"); /* the user's titles back */
	expect_reset("\x1b]2;a\a\x1b]1;b\a", "\x1b[23;0t");
}

/* Parameters as terminals read them: an SGR puts the attributes back only
 * when it is a plain reset (the 0 that ends a colour is the colour's), and
 * sub-parameters pass only in SGR, where they never count as a reset. */
T(sgr_reset_and_sub_parameters)
{
	expect_reset("\x1b[1m\x1b[7;38;2;255;0;0m", "\x1b[m");
	expect_reset("\x1b[8;38;5;0m", "\x1b[m");
	expect_reset("\x1b[30;48;2;0;0;0m", "\x1b[m");
	expect_reset("\x1b[8;0:1m", "\x1b[m"); /* tmux ignores 0:1: still concealed */
	expect_reset("\x1b[1m\x1b[0;;0m", "");
	expect_reset("\x1b[1m\x1b[;m", "");
	expect_reset("\x1b[1;0m", "\x1b[m");   /* one reset too many does no harm */
	expect("a\x1b[4:3mb\x1b[38:2::1:2:3mc", "a\x1b[4:3mb\x1b[38:2::1:2:3mc");
	/* xterm reads CSI > 4:2 m as modifyOtherKeys 2 (Ctrl-C no longer ^C) */
	expect("a\x1b[>4:2mb\x1b[?25:1004hc\x1b[2:1 qd\x1b[3:1;10re", "abcde");
	/* CSI > m: xterm puts back resources 1-5 only */
	expect_reset("\x1b[>6;1m\x1b[>4;2m\x1b[>m", "\x1b[>4m\x1b[>6m");
}

/* The terminal keeps the cursor saved last for a later restore, with its
 * attributes, character sets and origin mode: a program after the jail
 * that restores without saving would bring the agent's back.  The reset
 * ends by saving the clean state over it (also after its own saves). */
T(reset_saves_a_clean_cursor_over_the_agents)
{
	expect_reset("\x1b(0\x1b[8m\x1b" "7\x1b[m\x1b(B", "\x0f\x1b(B\x1b" "7");
	expect_reset("\x1b[8m\x1b[s\x1b[m", "\x1b" "7"); /* the clean state is current */
	expect_reset("\x1b[?1048h", "\x1b" "7");
	expect_reset("\x1b[3;5r\x1b[8m", "\x1b" "7\x1b[r\x1b" "8\x1b[m\x1b" "7");
	expect_reset("\x1b[?1000h", "\x1b[?1000l"); /* no save: no new one */
	/* modes saved for a later XTRESTORE are saved again at their default */
	expect_reset("\x1b[?1000h\x1b[?1000;2004;7727s\x1b[?1000l", "\x1b[?1000s\x1b[?2004s");
	/* the alternate screen keeps a slot of its own */
	expect_reset("\x1b[?1049h\x1b(0\x1b" "7\x1b(B\x1b[?1049l",
	             "\x0f\x1b(B\x1b[?1049h\x1b" "7\x1b[?1049l\x1b" "7");
}

/* The worst reset the agent can ask for fits the bound whole: its last
 * item (the clean cursor saved) is there. */
T(largest_reset_fits)
{
	const char *in =
		"\x1b[>1u\x1b[=1;1u\x1b[>0;1m\x1b[>1;1m\x1b[>2;1m\x1b[>3;1m\x1b[>4;1m"
		"\x1b[>5;1m\x1b[>6;1m\x1b[>7;1m\x1b[?1;5;6;9;66;69;1000;1001;1002;1003;1004;1005h"
		"\x1b[?1006;1007;1015;1016;2004;2026;2031;2048;12;2027h\x1b[?7;8;25l"
		"\x1b[?1;5;6;9;66;69;1000;1001;1002;1003;1004;1005;1006;1007;1015;1016s"
		"\x1b[?2004;2026;2031;2048;12;2027;47;1047;1049;7;8;25s"
		"\x1b[3;5r\x1b=\x1b[4;20h\x1b[5 q\x1b]4;1;red\a\x1b]10;red\a\x1b]11;red\a"
		"\x1b]12;red\a\x1b]17;red\a\x1b]19;red\a\x1b]0;t\a\x1b]8;;https://x/\a"
		"\x1b]9;4;1\a\x1b[1m\x1b(0\x0e\x1b[?47;1047;1049h\x1b[>1u\x1b" "7"
		"\x1b[#{\x1b[#{\x1b[#{\x1b[#{\x1b[#{\x1b[#{\x1b[#{\x1b[#{\x1b[#{\x1b[#{";
	struct term_filter *f = new_filter();
	char *out = malloc(strlen(in) + sizeof(f->hold));
	term_filter_run(f, in, strlen(in), out);
	char r[TERM_RESET_MAX + 1];
	size_t n = term_filter_reset(f, r);
	CHECK(n >= 2 && n < TERM_RESET_MAX);
	CHECK(r[n - 2] == '\x1b' && r[n - 1] == '7');
	free(out);
	free(f);
}

/* The fence at the end (pty.c) waits for the terminal's late reports when a
 * mode that sends them passed: kitty's flag 2 (key releases) is one. */
T(kitty_key_release_events_count_as_reports)
{
	static const struct { const char *in; bool reports; } cases[] = {
		{"\x1b[>1u", false}, {"\x1b[>3u", true}, {"\x1b[=2;2u", true},
		{"\x1b[=1;1u", false}, {"\x1b[?1004h", true}, {"\x1b[>u", false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct term_filter *f = new_filter();
		char out[64];
		term_filter_run(f, cases[i].in, strlen(cases[i].in), out);
		CHECK(f->modes.reports == cases[i].reports);
		free(f);
	}
}

/* The Linux console reads bytes, not characters, inside an OSC and in text
 * while G1 is in (SO): the byte 0x9B inside a character is CSI there.  Such a
 * character becomes '?' in both places; SGR 11 and 12 (its PC character set,
 * read the same way, and kept by SGR 0) are dropped, colours are not. */
T(bytes_a_bytewise_terminal_reads_as_csi)
{
	expect("a\x1b]0;x\xc3\x9b" "6n\xe5\x9b\xbdy\x07" "b",
	       "a\x1b[22;0t\x1b]0;x\xc2\xbf" "6n\xef\xbf\xbdy\x07" "b");
	expect("\x1b]2;\xe2\x9c\xb3 \xc3\xa9\x1b\\", "\x1b[22;0t\x1b]2;\xe2\x9c\xb3 \xc3\xa9\x1b\\");
	expect("\x1b]8;;https://x/\xc3\x9b\x07l\x1b]8;;\x07",
	       "\x1b]8;;https://x/\xc2\xbf\x07l\x1b]8;;\x07");
	/* never a query made of what replaces it: 4;1;? asks for a colour */
	expect("\x1b]4;1;\xc3\x9b\x07", "\x1b]4;1;\xc2\xbf\x07");
	expect("\x1b]11;\xc3\x9b\x07", "\x1b]11;\xc2\xbf\x07");
	/* text: only while G1 is in */
	expect("\xc3\x9b\x0e\xc3\x9b\xe5\x9b\xbd\xc3\xa9\x0f\xc3\x9b", "\xc3\x9b\x0e??\xc3\xa9\x0f\xc3\x9b");
	expect("\x0e\x1b[1m\xc3\x9b\x1b(B\xc3\x9b", "\x0e\x1b[1m?\x1b(B?");
	/* fonts */
	expect("a\x1b[11mb\x1b[0;12mc\x1b[1;19md\x1b[10;1me", "abcd\x1b[10;1me");
	expect("\x1b[38;5;11m\x1b[48;2;11;12;13m\x1b[38;5;1;11mX", "\x1b[38;5;11m\x1b[48;2;11;12;13mX");
	expect("a\x1b[38;2;11mb\x1b[38;11mc\x1b[38:5:11;5;12md\x1b[38;5:1;11me", "abcde");
	expect("\x1b[38;2;1;2;3;11;12;13mX", "X"); /* the colour ends at 3 */
	expect("a\x1b[1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;11mb", "ab");
	/* in an 8-bit encoding, every byte 0x80-0x9F of an OSC's characters */
	eight_bit = true;
	expect("\x1b]0;\xc3\x9d" "52;\xe2\x9c\xb3\xc3\xa9\x07",
	       "\x1b[22;0t\x1b]0;\xc2\xbf" "52;\xef\xbf\xbd\xc3\xa9\x07");
	eight_bit = false;
}

/* Where nothing the terminal sends reaches the jail (stdin not the terminal),
 * a mode that makes it send reports could only feed the user's shell after
 * the jail: dropped, in every spelling; the other modes pass. */
T(no_reports_without_an_input_relay)
{
	static const char *const dropped[] = {
		"\x1b[?1004h", "\x1b[?1000;1006h", "\x1b[?25;1003h", "\x1b[?9h", "\x1b[?2048h",
		"\x1b[?2031h", "\x1b[?1007h", "\x1b[?1004r", "\x1b[>3u", "\x1b[=2;2u",
		"\xc2\x9b?1004h",
	};
	static const char *const passed[] = {
		"\x1b[?1006h", "\x1b[?2004h", "\x1b[?1049h", "\x1b[>1u", "\x1b[?1004l", "\x1b[1m",
	};
	for (size_t i = 0; i < ARRAY_SIZE(dropped) + ARRAY_SIZE(passed); i++) {
		bool drop = i < ARRAY_SIZE(dropped);
		const char *in = drop ? dropped[i] : passed[i - ARRAY_SIZE(dropped)];
		struct term_filter *f = new_filter();
		f->no_input = true;
		char out[64 + TERM_FILTER_HOLD];
		size_t n = term_filter_run(f, in, strlen(in), out);
		out[n] = '\0';
		CHECK_STR(out, drop ? "" : in);
		CHECK(!f->modes.reports);
		free(f);
	}
}

/* What replaces a masked character is never longer than it: titles of 2-byte
 * characters that each grew would break the output bound (a carried title,
 * then a read of such titles, is more than n + hold). */
T(masking_keeps_the_output_bound)
{
	for (int eight = 0; eight < 2; eight++) {
		eight_bit = eight;
		struct term_filter *f = new_filter();
		static char in[8192], out[3 * 8192 + TERM_FILTER_HOLD]; /* room to see it fail */
		const char *c = eight ? "\xc3\x9d" : "\xc3\x9b";
		size_t n = 0, m;
		n += (size_t)sprintf(in + n, "\x1b]2;");
		for (int k = 0; k < 1360; k++)
			n += (size_t)sprintf(in + n, "%s", c);
		m = term_filter_run(f, in, n, out); /* held, not complete */
		CHECK(m <= n + TERM_FILTER_HOLD);
		n = 0;
		in[n++] = '\x07';
		while (n + 1400 * 2 + 6 < sizeof(in)) {
			n += (size_t)sprintf(in + n, "\x1b]2;");
			for (int k = 0; k < 1300; k++)
				n += (size_t)sprintf(in + n, "%s", c);
			in[n++] = '\x07';
		}
		m = term_filter_run(f, in, n, out);
		CHECK(m <= n + TERM_FILTER_HOLD);
		CHECK(m > 2 * 1300 * 2); /* the titles passed, masked */
		free(f);
	}
	eight_bit = false;
}
