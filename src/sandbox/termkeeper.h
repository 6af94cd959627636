/* termkeeper.h — put the host terminal back when the supervisor dies where
 * no handler of its own runs: SIGKILL (the OOM killer's too) or a signal
 * whose default action kills.
 *
 * The relay's filter lives in memory shared with a small child of the
 * supervisor, outside the jail (nothing in the jail can signal it), which
 * holds the terminal and one end of a socket pair.  When the supervisor is
 * done with the terminal it says so and the keeper exits; when the pair
 * ends without that word, the supervisor is gone, and the keeper writes the
 * filter's reset (termmodes.h) and the terminal settings saved before raw
 * mode. */
#ifndef JAIL_TERMKEEPER_H
#define JAIL_TERMKEEPER_H
#include "termfilter.h"

#include <sys/types.h>
#include <termios.h>

struct term_keeper {
	pid_t pid;                 /* 0: no keeper runs */
	int fd;                    /* the supervisor's end of the pair, or -1 */
	struct term_filter *filter; /* shared with the keeper (MAP_SHARED) */
};

/* Map a zeroed filter shared with a new keeper that writes to out and, when
 * saved is not NULL, puts *saved back on standard input. */
int term_keeper_start(struct term_keeper *k, int out, const struct termios *saved,
                      struct jail_err *e) WUR;
/* The supervisor put the terminal back itself: the keeper exits without a
 * word.  Async-signal-safe (the crash handler calls it). */
void term_keeper_release(const struct term_keeper *k);
/* Release, wait for the keeper and unmap the filter. */
void term_keeper_stop(struct term_keeper *k);
#endif
