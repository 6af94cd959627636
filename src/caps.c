/* caps.c — the command starts with no capability and cannot regain one.
 *
 * Init's child still holds every capability of the jail's user namespace.
 * Securebits go first (setting them needs CAP_SETPCAP), then libcap-ng empties
 * all five sets (the bounding set also needs CAP_SETPCAP, so it goes before the
 * effective set is gone: capng_apply orders that), then no_new_privs.  The
 * result is read back from the kernel: a set that is not empty fails closed.
 */
#include "caps.h"

#include <cap-ng.h>
#include <errno.h>
#include <linux/securebits.h>
#include <sys/prctl.h>

/* uid 0 gains nothing, setuid changes nothing, ambient capabilities cannot be
 * raised, and none of these can be undone. */
#define LOCKED_SECUREBITS                                                                 \
	(SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |                  \
	 SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |                        \
	 SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)

static int check_all_empty(struct jail_err *e)
{
	capng_clear(CAPNG_SELECT_ALL);
	if (capng_get_caps_process() != 0)
		return jail_err_set(e, 0, "read back capabilities: capng_get_caps_process failed");
	if (capng_have_capabilities(CAPNG_SELECT_ALL) != CAPNG_NONE)
		return jail_err_set(e, 0, "capabilities still held after dropping them");
	/* the kernel may know capabilities newer than libcap-ng: ask it directly */
	for (int cap = 0; cap < 64; cap++) {
		int in_bounding = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
		if (in_bounding < 0)
			break; /* past the kernel's last capability */
		if (in_bounding > 0)
			return jail_err_set(e, 0, "capability %d still in the bounding set", cap);
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) > 0)
			return jail_err_set(e, 0, "capability %d still in the ambient set", cap);
	}
	return 0;
}

int caps_drop_all(struct jail_err *e)
{
	if (prctl(PR_SET_SECUREBITS, LOCKED_SECUREBITS, 0, 0, 0) < 0)
		return jail_err_sys(e, "lock securebits");
	capng_clear(CAPNG_SELECT_ALL);
	int rc = capng_apply(CAPNG_SELECT_ALL);
	if (rc != 0)
		return jail_err_set(e, errno, "drop capabilities (capng_apply returned %d)", rc);
	if (check_all_empty(e) < 0)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return jail_err_sys(e, "set no_new_privs");
	return 0;
}
