/* netns.c — the jail's network namespace, made off the clone (netns.h). */
#include "netns.h"

#include <sched.h>

bool netns_late(const struct jail_config *cfg)
{
	return !(cfg->net == NET_NONE && cfg->publish.n > 0);
}

int netns_make(struct jail_err *e)
{
	/* only the calling thread's namespace changes: the overlay's thread,
	 * which does nothing with the network, stays where it was */
	if (unshare(CLONE_NEWNET) < 0)
		return jail_err_sys(e, "unshare the jail's network namespace");
	return 0;
}
