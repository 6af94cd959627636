/* termfilter.c — the escape-sequence filter between the jail's pty and the host
 * terminal (see termfilter.h for what is dropped and why).
 *
 * Plain text passes byte for byte.  An escape sequence is held from its
 * introducer to its final byte and then emitted or dropped whole, so a split
 * read can never let half a query through.  Introducers are recognised in
 * their 7-bit (ESC [), UTF-8 encoded C1 (C2 9B) and raw C1 (9B) forms.
 * Control strings (DCS, SOS, PM, APC) are dropped whole: DECRQSS and XTGETTCAP
 * make the terminal answer, and nothing an agent needs lives there.  A string
 * ends only at ESC or CAN/SUB, the terminators every terminal honours, so the
 * filter can only ever drop more than the terminal would have consumed.
 */
#include "termfilter.h"

#include <string.h>

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

/* Bytes of the held sequence after its introducer (ESC x, C2 xx or a raw C1). */
static size_t intro_len(const struct term_filter *f)
{
	unsigned char c = (unsigned char)f->hold[0];
	return c == ESC || c == 0xc2 ? 2 : 1;
}

/* Does a complete CSI make the terminal answer, or move and resize the window?
 * Device attributes (c), status reports (n), DECREQTPARM (x), window ops and
 * title reports (t), mode and presentation reports ($p $w $u), the rectangle
 * checksum (*y, which reads the screen back), XTVERSION (>q), the kitty
 * keyboard and graphics queries (?u ?S), XTREPORTSGR (#|). */
static bool csi_answers(const char *s, size_t n)
{
	char prefix = 0, inter = 0, final = s[n - 1];
	for (size_t i = 0; i + 1 < n; i++) {
		char c = s[i];
		if (i == 0 && strchr("<=>?", c))
			prefix = c;
		else if (c >= 0x20 && c <= 0x2f)
			inter = c;
	}
	if (!inter && strchr("ncxt", final))
		return true;
	if (inter == '$' && strchr("pwu", final))
		return true;
	if ((inter == '*' && final == 'y') || (inter == '#' && final == '|'))
		return true;
	if ((prefix == '>' && final == 'q') || (prefix == '?' && strchr("uS", final)))
		return true;
	return false;
}

/* OSC numbers that only change what is shown: titles, cwd, hyperlinks,
 * notifications, colours, prompt marks.  52 (clipboard), 50 (font), 1337
 * (iTerm2 file transfer) and every other number are dropped. */
static const int osc_allowed[] = {0, 1, 2, 4, 7, 8, 9, 10, 11, 12, 17, 19,
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

/* A complete OSC, body between introducer and terminator: pass it? */
static bool osc_passes(const char *b, size_t n)
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
	if (!known)
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
	return true;
}

static void finish_osc(struct term_filter *f, struct out *o, size_t term_len)
{
	size_t in = intro_len(f);
	if (!f->overflow && f->held >= in + term_len &&
	    osc_passes(f->hold + in, f->held - in - term_len))
		emit_held(f, o);
	else
		drop_held(f);
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

static void ground(struct term_filter *f, struct out *o, unsigned char c)
{
	if (f->utf8_need > 0) {
		if (c >= 0x80 && c <= 0xbf) {
			f->utf8_need--;
			put(o, (char)c);
			return;
		}
		f->utf8_need = 0;
	}
	if (c == ENQ)
		return;
	if (c == ESC || c == 0xc2) {
		hold(f, (char)c);
		f->state = c == ESC ? S_ESC : S_C2;
	} else if (c >= 0x80 && c <= 0x9f) {
		hold(f, (char)c);
		c1_control(f, c);
	} else {
		if (c >= 0xc3 && c <= 0xf4)
			f->utf8_need = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
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
		if (c != ENQ)
			put(o, (char)c);
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
	bool drop = false;
	if (f->state == S_ESC && strchr("PX^_", c)) {
		drop_held(f);
		f->state = S_STR;
		return;
	}
	/* ESC Z (DECID) answers like device attributes; a lone ST means nothing */
	if (f->state == S_ESC && (c == 'Z' || c == '\\'))
		drop = true;
	if (drop || f->overflow)
		drop_held(f);
	else
		emit_held(f, o);
	f->state = S_GROUND;
}

static void in_csi(struct term_filter *f, struct out *o, unsigned char c)
{
	if (seq_common(f, o, c))
		return;
	hold(f, (char)c);
	if (c < 0x40)
		return;
	size_t in = intro_len(f);
	if (f->overflow || csi_answers(f->hold + in, f->held - in))
		drop_held(f);
	else
		emit_held(f, o);
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
	(void)f, (void)out;
	return 0;
}
