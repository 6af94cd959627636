/* pager.h — long output on a terminal goes through the user's pager. */
#ifndef JAIL_PAGER_H
#define JAIL_PAGER_H
#include "util.h"

/* Write s to standard output: through $PAGER (default "less -R"; LESS=FRX when
 * unset, so a short text prints and returns) when standard output is a
 * terminal, else directly.  PAGER="" or "cat" means no pager. */
int pager_write(const char *s, size_t n, struct jail_err *e) WUR;

/* The same in pieces, for output made as it is written (never held whole):
 * pager_open (empty: nothing will be written, no pager), pager_put each
 * piece, pager_close (waits for the pager). */
struct pager {
	int fd;            /* standard output, or the pager's pipe */
	pid_t pid;         /* the pager, or -1 */
	bool gone;         /* the user quit the pager: the rest is dropped */
	void (*old_sigpipe)(int);
};
int pager_open(struct pager *p, bool empty, struct jail_err *e) WUR;
int pager_put(struct pager *p, const char *s, size_t n, struct jail_err *e) WUR;
void pager_close(struct pager *p);
#endif
