/* keyring.h — the jail's own session keyring. */
#ifndef JAIL_KEYRING_H
#define JAIL_KEYRING_H
#include "util.h"

/* Leave the caller's session keyring for a new, empty one (init, before it
 * starts anything: every process of the jail inherits it).  A kernel without
 * keyrings, or a container's filter that refuses keyctl to us and so to the
 * agent too, leaves nothing to leave.  Fails closed otherwise. */
int keyring_detach(struct jail_err *e) WUR;
#endif
