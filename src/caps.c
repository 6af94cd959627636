/* caps.c — placeholder: no_new_privs and an empty capng state (hardening issue
 * completes it). */
#include "caps.h"

#include <cap-ng.h>
#include <sys/prctl.h>

int caps_drop_all(struct jail_err *e)
{
	capng_clear(CAPNG_SELECT_ALL);
	if (capng_apply(CAPNG_SELECT_ALL) != 0)
		return jail_err_set(e, 0, "drop capabilities: capng_apply failed");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return jail_err_sys(e, "set no_new_privs");
	return 0;
}
