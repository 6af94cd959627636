/* termfilter.h — what the pty relay lets through to the host terminal.
 *
 * The jail's output is untrusted: escape sequences that write the clipboard
 * (OSC 52), make the terminal answer (status, device and mode reports, title
 * reports, colour and clipboard queries, DECRQSS and every other DCS string),
 * resize or move the window, or make the terminal save files (iTerm2 OSC 1337)
 * are dropped.  The filter is a state machine, since a sequence can be split
 * across reads; a sequence is held until it is complete, and one longer than
 * the hold buffer is dropped whole.  Zero-initialise a struct term_filter to
 * start (memset or `= {0}`). */
#ifndef JAIL_TERMFILTER_H
#define JAIL_TERMFILTER_H
#include "util.h"

#define TERM_FILTER_HOLD 4096

struct term_filter {
	int state;           /* enum in termfilter.c; 0 = plain text */
	int utf8_need;       /* continuation bytes still expected in plain text */
	bool eight_bit;      /* the host terminal is not in UTF-8 */
	bool overflow;       /* the held sequence outgrew hold: drop it whole */
	size_t held;
	char hold[TERM_FILTER_HOLD];
};

/* Filter n bytes of in into out (capacity at least n + sizeof(f->hold));
 * returns the bytes written.  Bytes of an incomplete sequence stay in f. */
size_t term_filter_run(struct term_filter *f, const char *in, size_t n, char *out);
#define TERM_RESET_MAX 512
size_t term_filter_reset(const struct term_filter *f, char *out);
#endif
