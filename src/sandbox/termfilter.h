/* termfilter.h — what the pty relay lets through to the host terminal.
 *
 * The jail's output is untrusted.  What passes is an allowlist: the control
 * sequences, modes, ESC sequences and OSC commands that terminfo and
 * full-screen programs use, of which every mode is one termmodes.c resets.
 * So escape sequences that write the clipboard (OSC 52), make the terminal
 * answer (status, device and mode reports, title reports, colour and
 * clipboard queries, DECRQSS and every other DCS string), resize or move the
 * window, make the terminal save files (iTerm2 OSC 1337, xterm's logging and
 * screen dumps), name a working directory for its next tab (OSC 7, 9;9) or
 * link to anything but web and manual pages (OSC 8) are dropped.  So are those that would make the terminal read the stream
 * otherwise than the filter does: leaving UTF-8 (ESC % but ESC % G), 8-bit
 * controls (S8C1T, DECSCL), VT52 mode, character sets beyond ASCII, line
 * drawing and UK in G0/G1, locking shifts, and key-encoding modes.  A byte
 * 0x80-0x9F never reaches the terminal outside a valid UTF-8 character (none
 * at all when the host terminal is not UTF-8), nor does a sequence it starts.
 * The filter is a state machine, since a sequence can be split
 * across reads; a sequence is held until it is complete, and one longer than
 * the hold buffer is dropped whole.  Zero-initialise a struct term_filter to
 * start (memset or `= {0}`). */
#ifndef JAIL_TERMFILTER_H
#define JAIL_TERMFILTER_H
#include "termmodes.h"
#include "util.h"

#define TERM_FILTER_HOLD 4096

struct term_filter {
	int state;           /* enum in termfilter.c; 0 = plain text */
	bool eight_bit;      /* the host terminal is not in UTF-8 (set before the first run) */
	bool no_input;       /* nothing the terminal sends reaches the jail (set before
	                      * the first run): a report would wait for the user's shell */
	bool shifted;        /* SO passed and no SI since: G1 is in GL, where the Linux
	                      * console reads bytes, not UTF-8 */
	unsigned char u8[4]; /* plain text: a UTF-8 character not yet complete */
	int u8_len, u8_need;
	struct term_modes modes; /* what the output let through turned on */
	bool overflow;       /* the held sequence outgrew hold: drop it whole */
	size_t held;
	char hold[TERM_FILTER_HOLD];
};

/* Filter n bytes of in into out (capacity at least n + sizeof(f->hold));
 * returns the bytes written.  Bytes of an incomplete sequence stay in f. */
size_t term_filter_run(struct term_filter *f, const char *in, size_t n, char *out);
/* The bytes that put the terminal back (termmodes.h): at most TERM_RESET_MAX,
 * async-signal-safe. */
size_t term_filter_reset(const struct term_filter *f, char *out);
#endif
