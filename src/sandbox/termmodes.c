/* termmodes.c — track the modes the jail's output turned on; undo them at the
 * end (termmodes.h says which and why). */
#include "termmodes.h"

#include <string.h>

/* DEC private modes (CSI ? n h/l) that are tracked, with the letter that puts
 * each back to the default every terminal starts with.  The alternate screens
 * come last: the other modes are undone on the screen where they were set. */
static const struct {
	int mode;
	char reset;
} dec_modes[] = {
	{1, 'l'},    /* DECCKM: cursor keys send application sequences */
	{5, 'l'},    /* DECSCNM: reverse video */
	{6, 'l'},    /* DECOM: cursor addressing relative to the margins */
	{9, 'l'},    /* X10 mouse reports */
	{66, 'l'},   /* DECNKM: application keypad */
	{69, 'l'},   /* DECLRMM: left and right margins */
	{1000, 'l'}, {1001, 'l'}, {1002, 'l'}, {1003, 'l'}, /* mouse reports */
	{1004, 'l'}, /* focus in/out reports */
	{1005, 'l'}, {1006, 'l'}, /* mouse report encodings */
	{1007, 'l'}, /* the wheel sends cursor keys on the alternate screen */
	{1015, 'l'}, {1016, 'l'}, /* mouse report encodings */
	{2004, 'l'}, /* bracketed paste */
	{2026, 'l'}, /* synchronized output: the screen stops updating */
	{2031, 'l'}, /* colour-scheme change reports */
	{2048, 'l'}, /* in-band resize reports */
	{12, 'l'},   /* the cursor blinks (terminfo's cnorm turns it off) */
	{2027, 'l'}, /* grapheme clusters: how wide text is */
	{47, 'l'}, {1047, 'l'}, {1049, 'l'}, /* the alternate screen */
	{7, 'h'},    /* DECAWM: autowrap */
	{8, 'h'},    /* DECARM: key auto-repeat */
	{25, 'h'},   /* DECTCEM: the cursor shows */
};
_Static_assert(sizeof(dec_modes) / sizeof(dec_modes[0]) <= 32, "fits term_modes.dec");

void csi_parse(const char *s, size_t n, struct csi *c)
{
	memset(c, 0, sizeof(*c));
	c->final = n ? s[n - 1] : 0;
	size_t i = 0;
	if (n > 1 && strchr("<=>?", s[0]))
		c->prefix = s[i++];
	bool in_param = false, sub = false;
	for (; i + 1 < n; i++) {
		char ch = s[i];
		if (ch >= 0x20 && ch <= 0x2f) {
			c->inter = ch;
			continue;
		}
		if (!in_param) {
			if (c->np == CSI_MAX_PARAMS) {
				c->too_many = true;
				return;
			}
			c->p[c->np++] = -1;
			in_param = true;
			sub = false;
		}
		if (ch == ';') {
			in_param = false;
		} else if (ch == ':') {
			sub = true;  /* sub-parameters (38:2:r:g:b) are not read */
			c->sub = true;
		} else if (ch >= '0' && ch <= '9' && !sub) {
			int *p = &c->p[c->np - 1];
			*p = *p < 0 ? ch - '0' : *p < 100000 ? *p * 10 + (ch - '0') : *p;
		}
	}
	if (n > 1 && s[n - 2] == ';' && c->np < CSI_MAX_PARAMS)
		c->p[c->np++] = -1;  /* "1;" ends with an empty parameter */
}

bool term_modes_dec_known(int n)
{
	for (size_t i = 0; i < sizeof(dec_modes) / sizeof(dec_modes[0]); i++)
		if (dec_modes[i].mode == n)
			return true;
	return n == 1048;
}

/* Is the alternate screen (maybe) shown?  The reset then undoes its state
 * first, while it is still the current screen. */
static bool on_alt(const struct term_modes *m)
{
	for (size_t i = 0; i < sizeof(dec_modes) / sizeof(dec_modes[0]); i++)
		if ((m->dec & (1u << i)) &&
		    (dec_modes[i].mode == 47 || dec_modes[i].mode == 1047 || dec_modes[i].mode == 1049))
			return true;
	return false;
}

/* The modes that make the terminal send input by itself: mouse, focus,
 * wheel (as cursor keys), colour-scheme and resize reports.  Some send one
 * at once when set (tmux a focus report, 2048 the size). */
static bool reporting_mode(int mode)
{
	return mode == 9 || (mode >= 1000 && mode <= 1004) || mode == 1007 ||
	       mode == 2031 || mode == 2048;
}

/* The bit of mode in term_modes.dec (0: not tracked). */
static uint32_t dec_bit(int mode)
{
	for (size_t i = 0; i < sizeof(dec_modes) / sizeof(dec_modes[0]); i++)
		if (dec_modes[i].mode == mode)
			return 1u << i;
	return 0;
}

static void dec_set(struct term_modes *m, int mode, char how, bool maybe)
{
	if (reporting_mode(mode) && (maybe || how == 'h'))
		m->reports = true;
	for (size_t i = 0; i < sizeof(dec_modes) / sizeof(dec_modes[0]); i++) {
		if (dec_modes[i].mode != mode)
			continue;
		if (maybe || how != dec_modes[i].reset)
			m->dec |= 1u << i;
		else
			m->dec &= ~(1u << i);
	}
}

/* XTMODKEYS: CSI > Pp ; Pv m sets resource Pp, CSI > Pp m puts it back.
 * CSI > m clears nothing here: xterm puts back only some of the resources
 * (1 to 5), whatever its manual says; the reset undoes the others too. */
static void modkeys(struct term_modes *m, const struct csi *c)
{
	if (c->np == 0 || c->p[0] < 0 || c->p[0] > 7)
		return;
	if (c->np >= 2)
		m->modkeys |= (uint8_t)(1u << c->p[0]);
	else
		m->modkeys &= (uint8_t)~(1u << c->p[0]);
}

/* The kitty keyboard protocol acts on the current screen's stack (kitty,
 * foot, ghostty keep one per screen): count there. */
static void kitty(struct term_modes *m, const struct csi *c)
{
	int n = c->np ? c->p[0] : -1;
	int s = on_alt(m);
	uint8_t *pushes = &m->kitty_pushes[s];
	/* flag 2, event types: each key's release is sent too, by itself, a
	 * moment after its press (the ^C that ends the agent): a report */
	if ((c->prefix == '>' || c->prefix == '=') && n > 0 && (n & 2))
		m->reports = true;
	if (c->prefix == '>') {
		*pushes += *pushes < 255;
	} else if (c->prefix == '=') {
		m->kitty_set[s] = true;
	} else if (c->prefix == '<') {
		n = n < 1 ? 1 : n;
		if (n > *pushes)
			m->kitty_set[s] = true;  /* it popped entries it did not push */
		*pushes = (uint8_t)(n > *pushes ? 0 : *pushes - n);
	}
}

/* SGR puts the attributes back only when it is a plain reset: no parameter,
 * or each one 0 or empty.  Its last number says nothing: in 38;2;255;0;0
 * (a colour) or 7;48;5;0 the 0 is a colour's, and the attributes stay on;
 * terminals read sub-parameters their own ways (tmux ignores 0:1 whole). */
static void sgr(struct term_modes *m, const struct csi *c)
{
	bool reset = !c->too_many && !c->sub;
	for (int i = 0; i < c->np; i++)
		reset = reset && c->p[i] <= 0;
	m->sgr = !reset;
}

/* xterm keeps at most 10 XTPUSHSGR entries: more pops could take the
 * user's own. */
#define SGR_STACK 10

/* Scroll margins: CSI r (or top 1, bottom default) is the whole screen. */
static void margins(struct term_modes *m, const struct csi *c)
{
	m->margins = (c->np >= 1 && c->p[0] > 1) || (c->np >= 2 && c->p[1] > 0);
}

/* A cursor save (DECSC, SCOSC, entering 1048 or 1049) keeps the attributes
 * and origin mode with it, and a restore (DECRC, SCORC, leaving them) brings
 * them back, maybe after they were turned off: what any save kept counts as
 * on again after a restore. */
static bool is_origin(const struct term_modes *m)
{
	for (size_t i = 0; i < sizeof(dec_modes) / sizeof(dec_modes[0]); i++)
		if (dec_modes[i].mode == 6)
			return m->dec & (1u << i);
	return false;
}

static void cursor_saved(struct term_modes *m)
{
	m->saved_cursor = true;
	m->saved_alt |= on_alt(m); /* xterm, VTE, kitty keep one per screen */
	m->saved_sgr |= m->sgr;
	m->saved_origin |= is_origin(m);
}

static void cursor_restored(struct term_modes *m)
{
	m->sgr |= m->saved_sgr;
	if (m->saved_origin)
		dec_set(m, 6, 'h', true);
}

/* 1 when c saves the cursor, -1 when it restores it, else 0. */
static int cursor_save_restore(const struct csi *c)
{
	if (c->inter)
		return 0;
	if (c->prefix == 0 && (c->final == 's' || c->final == 'u'))
		return c->final == 's' ? 1 : -1;
	for (int i = 0; c->prefix == '?' && (c->final == 'h' || c->final == 'l') && i < c->np; i++)
		if (c->p[i] == 1048 || c->p[i] == 1049)
			return c->final == 'h' ? 1 : -1;
	return 0;
}

void term_modes_csi(struct term_modes *m, const struct csi *c)
{
	int sr = cursor_save_restore(c);
	if (sr > 0) /* before the modes change: 1049 saves, then switches */
		cursor_saved(m);
	if (c->inter == ' ' && c->final == 'q' && !c->prefix) /* DECSCUSR */
		m->cursor_style = c->np && c->p[0] > 0;
	if (c->inter == '!' && c->final == 'p' && !c->prefix) /* DECSTR: a VT510 turns */
		dec_set(m, 7, 'l', true);                           /* autowrap off */
	if (c->inter == '#' && (c->final == 'q' || c->final == '}')) { /* XTPOPSGR */
		m->sgr = true;
		m->sgr_pushes -= m->sgr_pushes > 0;
	}
	if (c->inter == '#' && (c->final == 'p' || c->final == '{')) /* XTPUSHSGR */
		m->sgr_pushes += m->sgr_pushes < SGR_STACK;
	if (c->inter)
		return;
	if (c->prefix == 0 && c->final == 'r')
		margins(m, c);
	bool hl = c->final == 'h' || c->final == 'l';
	if (c->prefix == '?' && (hl || c->final == 'r')) /* r: XTRESTORE may turn it on */
		for (int i = 0; i < c->np; i++)
			dec_set(m, c->p[i], c->final, c->final == 'r');
	else if (c->prefix == '?' && c->final == 's')
		for (int i = 0; i < c->np; i++)
			m->xtsaved |= dec_bit(c->p[i]);
	else if (c->prefix == 0 && hl)
		for (int i = 0; i < c->np; i++) {
			if (c->p[i] == 4)
				m->ansi_irm = c->final == 'h';
			if (c->p[i] == 20)
				m->ansi_lnm = c->final == 'h';
		}
	else if (c->final == 'u')
		kitty(m, c);
	else if (c->prefix == '>' && c->final == 'm')
		modkeys(m, c);
	else if (c->prefix == 0 && c->final == 'm')
		sgr(m, c);
	if (sr < 0)
		cursor_restored(m);
}

void term_modes_esc(struct term_modes *m, const char *s, size_t n)
{
	if (n == 1 && (s[0] == '=' || s[0] == '>'))
		m->keypad = s[0] == '=';
	else if (n == 1 && s[0] == '7')
		cursor_saved(m);
	else if (n == 1 && s[0] == '8')
		cursor_restored(m);
	else if (n == 2 && (s[0] == '(' || s[0] == ')'))
		m->charset = true;
}

/* The colours an OSC sets, and the OSC that puts each back. */
static const int osc_colors[][2] = {{4, 104},  {10, 110}, {11, 111},
                                    {12, 112}, {17, 117}, {19, 119}};

/* The n bytes of b after its k-th ';' (none: b + n). */
static const char *after_field(const char *b, size_t n, int k, size_t *left)
{
	size_t i = 0;
	for (; i < n && k > 0; i++)
		k -= b[i] == ';';
	*left = k > 0 ? 0 : n - i;
	return b + (k > 0 ? n : i);
}

void term_modes_osc(struct term_modes *m, int num, const char *b, size_t n)
{
	size_t left;
	if (num <= 2)
		m->title = true;
	if (num == 8) { /* 8;params;URI: an empty URI ends the link */
		after_field(b, n, 2, &left);
		m->link_open = left > 0;
	}
	if (num == 9 && n >= 4 && memcmp(b, "9;4;", 4) == 0) { /* 9;4;state[;value] */
		const char *st = after_field(b, n, 2, &left);
		m->progress = !(left == 0 || (st[0] == '0' && (left == 1 || st[1] == ';')));
	}
	for (size_t i = 0; i < sizeof(osc_colors) / sizeof(osc_colors[0]); i++)
		if (osc_colors[i][0] == num)
			m->colors |= (uint8_t)(1u << i);
}

void term_modes_c0(struct term_modes *m, unsigned char c)
{
	if (c == 0x0e) /* SO: G1 into GL */
		m->charset = true;
}

/* ---- the reset: plain appends, no stdio (a signal handler calls it) ---- */

static size_t put_str(char *out, size_t at, const char *s)
{
	size_t n = strlen(s);
	if (at + n <= TERM_RESET_MAX)
		memcpy(out + at, s, n);
	return at + n <= TERM_RESET_MAX ? at + n : at;
}

static size_t put_num(char *out, size_t at, int num)
{
	char b[8];
	size_t k = sizeof(b) - 1;
	b[k] = '\0';
	do
		b[--k] = (char)('0' + num % 10);
	while ((num /= 10) > 0 && k > 0);
	return put_str(out, at, b + k);
}

/* ESC [ <prefix> <num> <final> */
static size_t put_csi(char *out, size_t at, char prefix, int num, char final)
{
	char b[4] = {'\x1b', '[', prefix, '\0'}, f[2] = {final, '\0'};
	at = put_str(out, at, b);
	at = put_num(out, at, num);
	return put_str(out, at, f);
}

/* Undo the kitty keyboard flags of screen s, which must be the current one. */
static size_t put_kitty(const struct term_modes *m, int s, char *out, size_t n)
{
	if (m->kitty_set[s])
		n = put_str(out, n, "\x1b[=0;1u");
	if (m->kitty_pushes[s])
		n = put_csi(out, n, '<', m->kitty_pushes[s], 'u');
	return n;
}

static bool kitty_left(const struct term_modes *m, int s)
{
	return m->kitty_set[s] || m->kitty_pushes[s];
}

size_t term_modes_reset(const struct term_modes *m, char *out)
{
	size_t n = 0;
	bool alt = on_alt(m);
	n = put_kitty(m, alt, out, n); /* the screen shown now */
	for (int i = 0; i < 8; i++)
		if (m->modkeys & (1u << i))
			n = put_csi(out, n, '>', i, 'm');
	for (char pass = 0; pass < 2; pass++)  /* the 'l' ones, then the 'h' ones */
		for (size_t i = 0; i < sizeof(dec_modes) / sizeof(dec_modes[0]); i++)
			if ((m->dec & (1u << i)) && (dec_modes[i].reset == 'h') == pass)
				n = put_csi(out, n, '?', dec_modes[i].mode, dec_modes[i].reset);
	/* what the agent saved for a later XTRESTORE: the default, saved over
	 * it (a program after the jail restoring without saving got the
	 * agent's mouse reports or alternate screen back) */
	for (size_t i = 0; i < sizeof(dec_modes) / sizeof(dec_modes[0]); i++)
		if (m->xtsaved & (1u << i))
			n = put_csi(out, n, '?', dec_modes[i].mode, 's');
	bool visited = false; /* the reset itself entered 1049: a cursor save */
	if (alt) {
		n = put_kitty(m, 0, out, n); /* back on the main screen */
	} else if ((visited = kitty_left(m, 1))) {
		/* flags left on the alternate screen's stack stay there for the
		 * next program that uses it: visit it (1049 saves and restores
		 * the cursor, the main screen is untouched) */
		n = put_str(out, n, "\x1b[?1049h");
		n = put_kitty(m, 1, out, n);
		n = put_str(out, n, "\x1b[?1049l");
	}
	if (m->keypad)
		n = put_str(out, n, "\x1b>");
	if (m->ansi_irm)
		n = put_str(out, n, "\x1b[4l");
	if (m->ansi_lnm)
		n = put_str(out, n, "\x1b[20l");
	if (m->cursor_style)
		n = put_str(out, n, "\x1b[0 q");
	if (m->margins)
		n = put_str(out, n, "\x1b" "7\x1b[r\x1b" "8"); /* DECSTBM homes the cursor */
	for (size_t i = 0; i < sizeof(osc_colors) / sizeof(osc_colors[0]); i++)
		if (m->colors & (1u << i)) {
			n = put_str(out, n, "\x1b]");
			n = put_num(out, n, osc_colors[i][1]);
			n = put_str(out, n, "\x1b\\");
		}
	if (m->title)
		n = put_str(out, n, "\x1b[23;0t"); /* the user's titles, pushed before */
	if (m->link_open)
		n = put_str(out, n, "\x1b]8;;\x1b\\");
	if (m->progress)
		n = put_str(out, n, "\x1b]9;4;0\x1b\\");
	/* what the agent pushed would come back at a later program's pop */
	for (int i = 0; i < m->sgr_pushes; i++)
		n = put_str(out, n, "\x1b[#}");
	if (m->sgr || m->sgr_pushes)
		n = put_str(out, n, "\x1b[m");
	if (m->charset)
		n = put_str(out, n, "\x0f\x1b(B");  /* SI: G0 into GL; G0 is ASCII */
	/* Last, once all is back: the terminal keeps the cursor saved last
	 * (DECSC, 1048, 1049, and the margins' own save above) for a later
	 * restore, with its attributes, character sets and origin mode; a
	 * program after the jail that restores without saving (DECRC, leaving
	 * 1049) would bring the agent's back.  Save the clean state over it. */
	if (m->saved_alt) /* 1049 saves and restores the main one around it */
		n = put_str(out, n, "\x1b[?1049h\x1b" "7\x1b[?1049l");
	if (m->saved_cursor || m->margins || visited)
		n = put_str(out, n, "\x1b" "7");
	return n;
}
