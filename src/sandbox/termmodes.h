/* termmodes.h — the terminal modes the jail's output turned on, and the bytes
 * that turn them off again when the jail ends.
 *
 * Some modes make the terminal send input by itself (mouse and focus reports,
 * bracketed paste, the kitty keyboard protocol, modifyOtherKeys, colour-scheme
 * and resize reports), others leave the user's shell a terminal it does not
 * expect (the alternate screen, application keypad and cursor keys, a hidden
 * cursor and its style, insert mode, scroll margins, synchronized output left
 * on, changed colours, the line-drawing character set).  The filter
 * (termfilter.c) tells this module about every sequence it lets through; the
 * supervisor writes term_modes_reset() to the host terminal when the jail ends.
 */
#ifndef JAIL_TERMMODES_H
#define JAIL_TERMMODES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A control sequence's parts (the bytes after CSI). */
#define CSI_MAX_PARAMS 32
struct csi {
	char prefix;  /* '<' '=' '>' '?' or 0 */
	char inter;   /* the last intermediate byte (0x20-0x2f), or 0 */
	char final;
	int np;       /* parameters given; an empty one is -1 */
	int p[CSI_MAX_PARAMS];
	bool too_many;  /* more than CSI_MAX_PARAMS: not all were read */
	bool sub;       /* a ':' sub-parameter was given (not read into p) */
};
void csi_parse(const char *s, size_t n, struct csi *c);

struct term_modes {
	uint32_t dec;      /* bit i: dec_modes[i] (termmodes.c) is away from its default */
	uint32_t xtsaved;  /* bit i: dec_modes[i] was saved (XTSAVE) for a later XTRESTORE */
	uint8_t modkeys;   /* XTMODKEYS resources (CSI > Pp ; Pv m) that were set */
	/* the kitty keyboard protocol keeps a stack per screen: [0] the main
	 * screen's, [1] the alternate screen's */
	uint8_t kitty_pushes[2];
	bool kitty_set[2];
	uint8_t colors;    /* OSC 4 10 11 12 17 19 (bit per osc_colors[]) that were set */
	uint8_t sgr_pushes; /* XTPUSHSGR entries left on the terminal's stack */
	bool keypad, ansi_irm, ansi_lnm, sgr, charset, cursor_style, margins;
	bool link_open; /* an OSC 8 hyperlink not ended: what follows links there */
	bool progress;  /* an OSC 9;4 progress indicator shows */
	bool title;     /* a title was set: the user's were pushed (termfilter.c) */
	bool saved_sgr, saved_origin; /* kept by a cursor save (termmodes.c) */
	bool saved_cursor;  /* the terminal keeps a cursor the jail saved */
	bool saved_alt;     /* ... maybe on the alternate screen's own slot */
	bool reports;   /* a mode that makes the terminal send reports was set */
};

/* May DEC private mode n be set or reset (CSI ? n h/l)?  Only the modes this
 * module tracks, which the reset puts back, and 1048 (save the cursor): an
 * allowlist, since every other number is some terminal's switch of how it
 * parses the stream (Tektronix mode, 38), writes files (logging, 46), puts
 * the selection in the clipboard (1041) or encodes keys (mintty's 7727). */
bool term_modes_dec_known(int n);

/* A sequence that reaches the terminal: CSI, or ESC with its intermediates and
 * final (s after the ESC), or a C0 control. */
void term_modes_csi(struct term_modes *m, const struct csi *c);
void term_modes_esc(struct term_modes *m, const char *s, size_t n);
void term_modes_c0(struct term_modes *m, unsigned char c);
/* An OSC that reaches the terminal: its number, and its body (b, n bytes
 * between introducer and terminator). */
void term_modes_osc(struct term_modes *m, int num, const char *b, size_t n);

/* The bytes that undo m, at most TERM_RESET_MAX; async-signal-safe (no
 * allocation, no stdio), for the supervisor's crash path too. */
#define TERM_RESET_MAX 1024
size_t term_modes_reset(const struct term_modes *m, char *out);
#endif
