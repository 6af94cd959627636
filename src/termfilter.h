/* termfilter.h — what the pty relay lets through to the host terminal.
 *
 * The jail's output is untrusted: escape sequences that write the clipboard
 * (OSC 52) or make the terminal answer (title reports, status reports) are
 * dropped.  The filter is a state machine, since a sequence can be split across
 * reads. */
#ifndef JAIL_TERMFILTER_H
#define JAIL_TERMFILTER_H
#include "util.h"

struct term_filter {
	int state;
	size_t held;
	char hold[256];
};

/* Filter n bytes of in into out (capacity at least n + sizeof(hold)); returns the
 * bytes written. */
size_t term_filter_run(struct term_filter *f, const char *in, size_t n, char *out);
#endif
