/* termfilter.c — the escape-sequence filter between the jail's pty and the host
 * terminal (see termfilter.h for what is dropped and why).
 *
 * Plain text passes byte for byte.  An escape sequence is held from its
 * introducer to its final byte and then emitted or dropped whole, so a split
 * read can never let half a query through.  Introducers are recognised in
 * their 7-bit (ESC [), UTF-8 encoded C1 (C2 9B) and raw C1 (9B) forms; a
 * sequence in the raw form is always dropped.  Plain text passes a UTF-8
 * character at a time, once it is complete and valid.
 * Control strings (DCS, SOS, PM, APC) are dropped whole: DECRQSS and XTGETTCAP
 * make the terminal answer, and nothing an agent needs lives there.  A string
 * ends only at ESC or CAN/SUB, the terminators every terminal honours, so the
 * filter can only ever drop more than the terminal would have consumed.
 */
#include "termfilter.h"

#include <string.h>
#include <strings.h>

enum {
	S_GROUND = 0,
	S_C2,        /* plain text: a 0xC2 lead byte, maybe an encoded C1 control */
	S_ESC,       /* ESC seen */
	S_ESC_INTER, /* ESC and intermediate bytes (charset designation, ...) */
	S_CSI,       /* control sequence: parameters and intermediates */
	S_OSC,       /* operating system command: its body */
	S_OSC_ESC,   /* ESC inside an OSC: ST if a backslash follows */
	S_STR,       /* DCS, SOS, PM, APC: dropped to the end */
};

#define ESC 0x1b
#define BEL 0x07
#define ENQ 0x05 /* makes many terminals send their answerback string */
#define CAN 0x18
#define SUB 0x1a

struct out {
	char *p;
	size_t n;
};

static void put(struct out *o, char c) { o->p[o->n++] = c; }

static void hold(struct term_filter *f, char c)
{
	if (f->held < sizeof(f->hold))
		f->hold[f->held++] = c;
	else
		f->overflow = true;
}

static void drop_held(struct term_filter *f)
{
	f->held = 0;
	f->overflow = false;
}

static void emit_held(struct term_filter *f, struct out *o)
{
	if (!f->overflow) {
		memcpy(o->p + o->n, f->hold, f->held);
		o->n += f->held;
	}
	drop_held(f);
}

/* Was the held sequence started by a raw C1 byte?  Those never pass: a
 * terminal out of UTF-8 would act on them, one in UTF-8 shows garbage. */
static bool raw_intro(const struct term_filter *f)
{
	unsigned char c = (unsigned char)f->hold[0];
	return c >= 0x80 && c <= 0x9f;
}

/* Bytes of the held sequence after its introducer (ESC x, C2 xx or a raw C1). */
static size_t intro_len(const struct term_filter *f)
{
	unsigned char c = (unsigned char)f->hold[0];
	return c == ESC || c == 0xc2 ? 2 : 1;
}

/* The control sequences that pass, by prefix, intermediate and final byte:
 * an allowlist, since each terminal adds its own, and an unknown one may
 * answer (device, status, mode and window reports), resize the window, print
 * (media copy: xterm writes screen dumps to files), switch how the stream is
 * read (DECSCL, VT52 mode) or keys are encoded, or play sounds.  What passes
 * is what terminfo and full-screen programs use: cursor motion, editing,
 * erasing, scrolling, tabbing (I Z), SGR, modes (mode_passes), margins, cursor
 * save and restore, the kitty keyboard stack (> < =), modifyOtherKeys (> m),
 * the cursor style (SP q), soft reset (! p), rectangle editing
 * ($ r t v x z {), SGR push and pop (# p q { }), column insert and delete
 * (' } ~).  Not state the reset does not undo: tab stops (TBC, g; HTS is
 * ESC H), character protection (" q), the rectangle extent (* x). */
static const struct {
	char prefix, inter;
	const char *finals;
} csi_allowed[] = {
	{0, 0, "@ABCDEFGHIJKLMPSTXZ`abdefhlmrsu"},
	{'?', 0, "hlrsJK"},
	{'>', 0, "mu"},
	{'<', 0, "u"},
	{'=', 0, "u"},
	{0, ' ', "@Aq"},
	{0, '!', "p"},
	{0, '$', "rtvxz{"},
	{0, '#', "pq{}"},
	{0, '\'', "}~"},
};

static bool csi_known(const struct csi *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(csi_allowed); i++)
		if (csi_allowed[i].prefix == c->prefix && csi_allowed[i].inter == c->inter)
			return c->final && strchr(csi_allowed[i].finals, c->final) != NULL;
	return false;
}

/* The bytes after CSI in the one shape every terminal reads alike: a private
 * prefix only first, then digits, ';' and ':', then at most one intermediate,
 * then the final.  Terminals differ on anything else (a second
 * intermediate, a prefix in the middle), so it does not pass. */
static bool csi_well_formed(const char *s, size_t n)
{
	size_t i = n > 1 && strchr("<=>?", s[0]) ? 1 : 0;
	while (i + 1 < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == ';' || s[i] == ':'))
		i++;
	if (i + 1 < n && s[i] >= 0x20 && s[i] <= 0x2f)
		i++;
	return i + 1 == n;
}

/* h, l and r (XTRESTORE) with '?': the DEC private modes whose reset
 * termmodes.c knows (term_modes_dec_known); without a prefix, the ANSI
 * modes IRM (4) and LNM (20), which it resets too.  Every other mode changes
 * how the terminal reads the stream or encodes keys: KAM (2) locks the
 * keyboard, SRM (12) echoes, DECANM (?2) is VT52 mode, ?38 Tektronix mode,
 * ?46 logs to a file, ?1041 copies the selection to the clipboard, ?1036,
 * ?67 and mintty's ?7727 change what keys send. */
static bool mode_passes(const struct csi *c)
{
	bool set = c->final == 'h' || c->final == 'l';
	if (c->inter || !(set || (c->prefix == '?' && c->final == 'r')))
		return true;
	for (int i = 0; i < c->np; i++) {
		bool ok = c->prefix == '?' ? term_modes_dec_known(c->p[i])
		                           : c->p[i] == 4 || c->p[i] == 20;
		if (!ok)
			return false;
	}
	return c->np > 0;
}

/* The parameters of an SGR (s: its n bytes after CSI, the final included),
 * read whatever their count: at most SGR_FONT_PARAMS, else -1.  sub[i]: the
 * i-th had a ':' sub-parameter. */
#define SGR_FONT_PARAMS 64

static int sgr_params(const char *s, size_t n, int *v, bool *sub)
{
	int np = 0;
	for (size_t i = 0; i + 1 < n;) {
		if (np == SGR_FONT_PARAMS)
			return -1;
		v[np] = 0;
		sub[np] = false;
		for (; i + 1 < n && s[i] != ';'; i++) {
			sub[np] = sub[np] || s[i] == ':';
			if (!sub[np] && s[i] >= '0' && s[i] <= '9' && v[np] < 100000)
				v[np] = v[np] * 10 + (s[i] - '0');
		}
		np++;
		i += i + 1 < n; /* the ';' */
	}
	return np;
}

/* Does an SGR select a font (11 to 19)?  The Linux console reads 11 and 12
 * as its PC character set, where it decodes no UTF-8 (the byte 0x9B inside
 * a character is CSI there, a sequence the filter never saw) and which SGR 0
 * keeps (it would outlive the jail).  A colour's own numbers (38;5;11,
 * 48;2;11;12;13) are no font, when the colour is complete (the console
 * reads a short one's next number as an attribute of its own) and none of
 * its numbers has sub-parameters (terminals read those their own ways).
 * Too many to read: taken for a font. */
static bool sgr_selects_font(const char *s, size_t n)
{
	int v[SGR_FONT_PARAMS];
	bool sub[SGR_FONT_PARAMS];
	int np = sgr_params(s, n, v, sub);
	if (np < 0)
		return true;
	for (int i = 0; i < np; i++) {
		int k = i + 1 < np ? (v[i + 1] == 5 ? 2 : v[i + 1] == 2 ? 4 : 0) : 0;
		bool colour = (v[i] == 38 || v[i] == 48 || v[i] == 58) && k && i + k < np;
		for (int j = i; colour && j <= i + k; j++)
			colour = !sub[j];
		if (colour)
			i += k;
		else if (v[i] >= 11 && v[i] <= 19)
			return true;
	}
	return false;
}

/* Does a complete CSI (after its introducer) stay out of the host terminal?
 * All but the allowlisted ones above, with a known mode; also more
 * parameters than are read (but for SGR: true colours make long ones),
 * numbers above 65535 (a terminal could wrap one around to a dropped mode),
 * and sub-parameters (':') but in SGR, their one standard use: terminals
 * read them three ways, and xterm reads CSI > 4:2 m as modifyOtherKeys 2
 * (Ctrl-C no longer sends ^C), where the filter would see 4 put back. */
static bool csi_dropped(const char *s, size_t n, struct csi *c)
{
	csi_parse(s, n, c);
	if (!csi_well_formed(s, n) || !csi_known(c) || !mode_passes(c))
		return true;
	bool sgr = !c->prefix && !c->inter && c->final == 'm';
	if ((c->too_many || c->sub) && !sgr)
		return true;
	if (sgr && sgr_selects_font(s, n))
		return true;
	for (int i = 0; i < c->np; i++)
		if (c->p[i] > 65535)
			return true;
	return false;
}

/* A complete ESC sequence with intermediates (s: the bytes after ESC): only
 * ESC % G (UTF-8), ESC ( and ESC ) with B, 0 or A (ASCII, line drawing, UK:
 * what terminfo uses) and ESC # 3-8 (line size, alignment) pass.  ESC %
 * otherwise leaves UTF-8, ESC SP F/G switch 8-bit controls, ESC $ selects
 * multibyte sets, and other sets make the screen unreadable. */
static bool esc_inter_passes(const char *s, size_t n)
{
	if (n != 2)
		return false;
	switch (s[0]) {
	case '%': return s[1] == 'G';
	case '(':
	case ')': return strchr("B0A", s[1]) != NULL;
	case '#': return strchr("34568", s[1]) != NULL;
	default: return false;
	}
}

/* OSC numbers that only change what is shown: titles, hyperlinks,
 * notifications, colours, prompt marks (8, 9, 777 and the colours only so:
 * osc_command_ok).  52 (clipboard), 50 (font), 1337 (iTerm2 file transfer)
 * and every other number are dropped; so is 7, the working directory: a
 * terminal opens its next tab or split there, with the host's shell, and a
 * path the agent names can be its own files on the host (the session's
 * upper dir), where a git-aware prompt runs the core.fsmonitor of a
 * repository the agent made. */
static const int osc_allowed[] = {0, 1, 2, 4, 8, 9, 10, 11, 12, 17, 19,
                                  104, 110, 111, 112, 117, 119, 133, 777};

static bool osc_body_ok(const char *b, size_t n)
{
	if (!is_valid_utf8(b, n))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)b[i];
		if (c < 0x20 || c == 0x7f)
			return false;
		if (c == 0xc2 && i + 1 < n && (unsigned char)b[i + 1] < 0xa0)
			return false; /* an encoded C1 control */
	}
	return true;
}

/* The first field after the number ([f, fend) of body [b, end), which starts
 * at the ';' after the number or is empty). */
static const char *first_field(const char *b, const char *end, const char **fend)
{
	const char *f = b < end ? b + 1 : end;
	const char *e = f;
	while (e < end && *e != ';')
		e++;
	*fend = e;
	return f;
}

static bool field_is(const char *f, const char *fend, const char *word)
{
	return (size_t)(fend - f) == strlen(word) && memcmp(f, word, strlen(word)) == 0;
}

/* OSC 8's target (after its parameters), where a click takes the user: the
 * end of a link (empty), a web page or a manual page.  Other schemes hand
 * their text to whatever program claims them (vscode:, ssh:, smb:, ms-msdt:,
 * mailto: with an attachment), and a click is all it takes; file: names the
 * jail's files, which on the host are other files or the agent's own (the
 * upper dir), opened there by the host's handler (kitty runs scripts). */
static bool link_target_ok(const char *u, const char *end)
{
	static const char *const schemes[] = {"http:", "https:", "man:"};
	if (u == end)
		return true;
	for (size_t k = 0; k < ARRAY_SIZE(schemes); k++) {
		size_t l = strlen(schemes[k]);
		if ((size_t)(end - u) >= l && strncasecmp(u, schemes[k], l) == 0)
			return true;
	}
	return false;
}

/* OSC 9 and 777 carry commands behind the notifications: ConEmu reads
 * 9;N;... as its own (9;6 runs a GuiMacro, 9;7 a process, 9;5 waits for a
 * key), urxvt hands 777's text to the perl extension its first field names.
 * What passes: 9 with a text that is not such a number (iTerm2's, WezTerm's
 * notification) and 9;4 (progress), not 9;9 (the working directory, as OSC 7
 * above); 777's notify, precmd and preexec (VTE, foot). */
static bool osc_command_ok(int num, const char *b, const char *end)
{
	const char *fend, *f = first_field(b, end, &fend);
	if (num == 9) {
		bool numeric = f < fend;
		for (const char *p = f; p < fend; p++)
			numeric = numeric && *p >= '0' && *p <= '9';
		return !numeric || field_is(f, fend, "4");
	}
	if (num == 777)
		return field_is(f, fend, "notify") || field_is(f, fend, "precmd") ||
		       field_is(f, fend, "preexec");
	if (num == 8)
		return fend < end && link_target_ok(fend + 1, end);
	if (num >= 10 && num <= 19)
		return fend == end; /* more values set the next colours, untracked */
	return true;
}

/* A complete OSC, body between introducer and terminator: pass it?  *nump
 * gets its number. */
static bool osc_passes(const char *b, size_t n, int *nump)
{
	if (!osc_body_ok(b, n))
		return false;
	int num = 0;
	size_t i = 0;
	for (; i < n && b[i] >= '0' && b[i] <= '9' && num < 100000; i++)
		num = num * 10 + (b[i] - '0');
	if (i == 0 || (i < n && b[i] != ';'))
		return false;
	bool known = false;
	for (size_t k = 0; k < ARRAY_SIZE(osc_allowed); k++)
		known = known || osc_allowed[k] == num;
	if (!known || !osc_command_ok(num, b + i, b + n))
		return false;
	/* a field that is exactly "?" is a query: the terminal would answer */
	for (size_t start = i; start < n;) {
		size_t end = start + 1;
		while (end < n && b[end] != ';')
			end++;
		if (end - start == 2 && b[start + 1] == '?')
			return false;
		start = end;
	}
	*nump = num;
	return true;
}

/* Before the first title that passes: the terminal saves the user's titles
 * on its title stack (XTWINOPS 22), and the reset takes them back (23).  It
 * fits the output bound when the held title leaves room for it in hold. */
#define TITLE_PUSH "\x1b[22;0t"

static bool push_title(struct term_filter *f, struct out *o, int num)
{
	if (num > 2 || f->modes.title)
		return true;
	if (f->held + strlen(TITLE_PUSH) > sizeof(f->hold))
		return false;
	memcpy(o->p + o->n, TITLE_PUSH, strlen(TITLE_PUSH));
	o->n += strlen(TITLE_PUSH);
	return true;
}

/* Would a terminal that reads bytes, not characters, take byte b for a C1
 * control?  The Linux console reads the bytes of a control string (OSC) so,
 * and those of text while G1 is in (SO); to it 0x9B is CSI, its one C1
 * control.  A terminal in an 8-bit encoding reads every byte 0x80-0x9F so. */
static bool byte_is_c1(const struct term_filter *f, unsigned char b)
{
	return b == 0x9b || (f->eight_bit && b >= 0x80 && b <= 0x9f);
}

static bool char_has_c1(const struct term_filter *f, const unsigned char *p, size_t l)
{
	for (size_t k = 0; k < l; k++)
		if (byte_is_c1(f, p[k]))
			return true;
	return false;
}

/* Each character of the held OSC's body (valid UTF-8: osc_passes) that holds
 * such a byte is replaced: the title keeps its other characters, and Û or 国
 * (C3 9B, E5 9B BD) no longer starts a control sequence inside it on the
 * Linux console.  The replacement is U+FFFD, what a terminal shows for a
 * character it cannot read, or U+00BF (¿) for a 2-byte one: never longer
 * than what it replaces, or the output would outgrow its bound (n + hold
 * per run); and never '?', which would make a field a query after the query
 * check (4;1;Û, a colour the terminal reports).  The terminator moves down
 * with the body. */
static void mask_osc_body(struct term_filter *f, size_t in, size_t term_len)
{
	unsigned char *h = (unsigned char *)f->hold;
	size_t end = f->held - term_len, w = in;
	for (size_t r = in; r < end;) {
		size_t l = h[r] < 0x80 ? 1 : h[r] < 0xe0 ? 2 : h[r] < 0xf0 ? 3 : 4;
		l = l < end - r ? l : end - r;
		const char *with = l == 2 ? "\xc2\xbf" : "\xef\xbf\xbd";
		bool c1 = l > 1 && char_has_c1(f, h + r, l);
		size_t n = c1 ? strlen(with) : l;
		memmove(h + w, c1 ? (const unsigned char *)with : h + r, n);
		w += n;
		r += l;
	}
	memmove(h + w, h + end, term_len);
	f->held = w + term_len;
}

static void finish_osc(struct term_filter *f, struct out *o, size_t term_len)
{
	size_t in = intro_len(f);
	int num;
	bool pass = !f->overflow && !raw_intro(f) && f->held >= in + term_len &&
	            osc_passes(f->hold + in, f->held - in - term_len, &num);
	if (pass)
		mask_osc_body(f, in, term_len);
	if (pass && push_title(f, o, num)) {
		term_modes_osc(&f->modes, num, f->hold + in, f->held - in - term_len);
		emit_held(f, o);
	} else {
		drop_held(f);
	}
	f->state = S_GROUND;
}

/* A C1 control (raw or UTF-8 encoded, already held) in plain text. */
static void c1_control(struct term_filter *f, unsigned char c)
{
	switch (c) {
	case 0x9b: f->state = S_CSI; return;
	case 0x9d: f->state = S_OSC; return;
	case 0x90: case 0x98: case 0x9e: case 0x9f:
		drop_held(f);
		f->state = S_STR;
		return;
	default: /* NEL, DECID and the rest: nothing a program needs to send */
		drop_held(f);
		f->state = S_GROUND;
		return;
	}
}

/* A C0 control in plain text or inside a sequence: it acts at once.  ENQ
 * makes many terminals send their answerback string. */
static void c0(struct term_filter *f, struct out *o, unsigned char c)
{
	if (c == ENQ)
		return;
	if (c == 0x0e || c == 0x0f) /* SO, SI */
		f->shifted = c == 0x0e;
	term_modes_c0(&f->modes, c);
	put(o, (char)c);
}

/* May c follow the UTF-8 bytes held so far?  The second byte's range depends on
 * the lead: no overlong forms, surrogates or code points above U+10FFFF. */
static bool u8_next_ok(const struct term_filter *f, unsigned char c)
{
	if (f->u8_len == 1)
		switch (f->u8[0]) {
		case 0xe0: return c >= 0xa0 && c <= 0xbf;
		case 0xed: return c >= 0x80 && c <= 0x9f;
		case 0xf0: return c >= 0x90 && c <= 0xbf;
		case 0xf4: return c >= 0x80 && c <= 0x8f;
		default: break;
		}
	return c >= 0x80 && c <= 0xbf;
}

/* An invalid or cut-short character: the terminal shows it as U+FFFD; its
 * bytes pass, except those in the C1 range. */
static void u8_flush_bad(struct term_filter *f, struct out *o)
{
	for (int i = 0; i < f->u8_len; i++)
		if (f->u8[i] >= 0xa0)
			put(o, (char)f->u8[i]);
	f->u8_len = f->u8_need = 0;
}

/* Plain text in UTF-8: a character passes when it is complete and valid. */
static bool u8_text(struct term_filter *f, struct out *o, unsigned char c)
{
	if (f->u8_need > 0) {
		if (u8_next_ok(f, c)) {
			f->u8[f->u8_len++] = c;
			if (--f->u8_need == 0) {
				/* while G1 is in, the Linux console reads the
				 * character's bytes one by one (byte_is_c1) */
				bool c1 = f->shifted && char_has_c1(f, f->u8, (size_t)f->u8_len);
				for (int i = 0; i < f->u8_len && !c1; i++)
					put(o, (char)f->u8[i]);
				if (c1)
					put(o, '?');
				f->u8_len = 0;
			}
			return true;
		}
		u8_flush_bad(f, o);
	}
	if (c >= 0xc3 && c <= 0xf4) {
		f->u8[0] = c;
		f->u8_len = 1;
		f->u8_need = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
		return true;
	}
	return false;
}

static void ground(struct term_filter *f, struct out *o, unsigned char c)
{
	if (!f->eight_bit && u8_text(f, o, c))
		return;
	if (c == ESC || (c == 0xc2 && !f->eight_bit)) {
		hold(f, (char)c);
		f->state = c == ESC ? S_ESC : S_C2;
	} else if (c >= 0x80 && c <= 0x9f) { /* raw C1: never passes */
		hold(f, (char)c);
		c1_control(f, c);
	} else if (c < 0x20) {
		c0(f, o, c);
	} else {
		put(o, (char)c);
	}
}

static void after_c2(struct term_filter *f, struct out *o, unsigned char c)
{
	if (c >= 0x80 && c <= 0x9f) {
		hold(f, (char)c);
		c1_control(f, c);
		return;
	}
	emit_held(f, o); /* the 0xC2 */
	f->state = S_GROUND;
	if (c >= 0xa0 && c <= 0xbf)
		put(o, (char)c);
	else
		ground(f, o, c);
}

/* Bytes common to every held sequence: ESC restarts, CAN/SUB abort, other C0
 * controls act at once (terminals execute them mid-sequence too).  Returns
 * true when the byte was dealt with. */
static bool seq_common(struct term_filter *f, struct out *o, unsigned char c)
{
	if (c == ESC) {
		drop_held(f);
		hold(f, (char)c);
		f->state = S_ESC;
		return true;
	}
	if (c == CAN || c == SUB) {
		drop_held(f);
		f->state = S_GROUND;
		return true;
	}
	if (c < 0x20) {
		c0(f, o, c);
		return true;
	}
	if (c >= 0x7f) { /* not part of any sequence: drop it and start over */
		drop_held(f);
		f->state = S_GROUND;
		ground(f, o, c);
		return true;
	}
	return false;
}

/* The ESC sequences without intermediates that pass: save and restore the
 * cursor (7 8), the keypad modes (= >), index, next line, reverse index
 * (D E M) and full reset (c): what terminfo uses but for the tab stops (H),
 * which would stay set after the jail.  An allowlist:
 * ESC Z (DECID) answers, ESC n o | } ~ lock G2 or G3 in (the screen turns
 * unreadable), xterm's ESC l locks the lines above the cursor, others are
 * some terminal's own. */
#define ESC_FINALS "78=>DEMc"

static void after_esc(struct term_filter *f, struct out *o, unsigned char c)
{
	if (seq_common(f, o, c))
		return;
	hold(f, (char)c);
	if (c >= 0x20 && c <= 0x2f) {
		f->state = S_ESC_INTER;
		return;
	}
	if (f->state == S_ESC && c == '[') {
		f->state = S_CSI;
		return;
	}
	if (f->state == S_ESC && c == ']') {
		f->state = S_OSC;
		return;
	}
	if (f->state == S_ESC && strchr("PX^_", c)) {
		drop_held(f);
		f->state = S_STR;
		return;
	}
	bool drop = f->overflow || (f->state == S_ESC_INTER
	                                ? !esc_inter_passes(f->hold + 1, f->held - 1)
	                                : strchr(ESC_FINALS, c) == NULL);
	if (drop) {
		drop_held(f);
	} else {
		term_modes_esc(&f->modes, f->hold + 1, f->held - 1);
		emit_held(f, o);
	}
	f->state = S_GROUND;
}

/* Would the CSI make the terminal send reports (mouse, focus, key
 * releases: what term_modes counts as reports) where nothing reads them
 * for the jail?  They could never reach the agent, only wait on the
 * terminal for the user's shell to read as typed after the jail, every
 * mouse move of the session with them. */
static bool unread_reports(const struct term_filter *f, const struct csi *csi)
{
	if (!f->no_input)
		return false;
	struct term_modes m = f->modes;
	m.reports = false;
	term_modes_csi(&m, csi);
	return m.reports;
}

static void in_csi(struct term_filter *f, struct out *o, unsigned char c)
{
	if (seq_common(f, o, c))
		return;
	hold(f, (char)c);
	if (c < 0x40)
		return;
	size_t in = intro_len(f);
	struct csi csi;
	if (f->overflow || raw_intro(f) || csi_dropped(f->hold + in, f->held - in, &csi) ||
	    unread_reports(f, &csi)) {
		drop_held(f);
	} else {
		term_modes_csi(&f->modes, &csi);
		emit_held(f, o);
	}
	f->state = S_GROUND;
}

static void in_osc(struct term_filter *f, struct out *o, unsigned char c)
{
	if (f->state == S_OSC_ESC) {
		if (c == '\\') {
			hold(f, (char)c);
			finish_osc(f, o, 2);
			return;
		}
		/* ESC without backslash ends the string: drop it, start anew */
		drop_held(f);
		hold(f, ESC);
		f->state = S_ESC;
		after_esc(f, o, c);
		return;
	}
	if (c == BEL) {
		hold(f, (char)c);
		finish_osc(f, o, 1);
	} else if (c == ESC) {
		hold(f, (char)c);
		f->state = S_OSC_ESC;
	} else if (c == CAN || c == SUB) {
		drop_held(f);
		f->state = S_GROUND;
	} else {
		hold(f, (char)c); /* the body, controls included: osc_passes judges */
	}
}

static void in_str(struct term_filter *f, struct out *o, unsigned char c)
{
	if (c == ESC) {
		hold(f, (char)c);
		f->state = S_ESC; /* ESC \ then ends as a harmless ESC sequence */
	} else if (c == CAN || c == SUB) {
		f->state = S_GROUND;
	}
}

size_t term_filter_run(struct term_filter *f, const char *in, size_t n, char *out)
{
	struct out o = {out, 0};
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)in[i];
		switch (f->state) {
		case S_GROUND: ground(f, &o, c); break;
		case S_C2: after_c2(f, &o, c); break;
		case S_ESC:
		case S_ESC_INTER: after_esc(f, &o, c); break;
		case S_CSI: in_csi(f, &o, c); break;
		case S_OSC:
		case S_OSC_ESC: in_osc(f, &o, c); break;
		case S_STR: in_str(f, &o, c); break;
		default: f->state = S_GROUND; break;
		}
	}
	return o.n;
}

size_t term_filter_reset(const struct term_filter *f, char *out)
{
	return term_modes_reset(&f->modes, out);
}
