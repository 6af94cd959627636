/* pager.h — long output on a terminal goes through the user's pager. */
#ifndef JAIL_PAGER_H
#define JAIL_PAGER_H
#include "util.h"

/* Write s to standard output: through $PAGER (default "less -R"; LESS=FRX when
 * unset, so a short text prints and returns) when standard output is a
 * terminal, else directly.  PAGER="" or "cat" means no pager. */
int pager_write(const char *s, size_t n, struct jail_err *e) WUR;
#endif
