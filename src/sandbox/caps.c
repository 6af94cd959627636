/* caps.c — the command starts with no capability and cannot regain one.
 *
 * Init's threads hold every capability of the jail's user namespace, each
 * its own (capabilities are per thread).  Securebits go first (setting them
 * needs CAP_SETPCAP), then libcap-ng empties all five sets (the bounding set
 * also needs CAP_SETPCAP, so it goes before the effective set is gone:
 * capng_apply orders that), then no_new_privs.  The result is read back from
 * the kernel: a set that is not empty fails closed.
 *
 * The command's process is a vfork child of init's launcher thread, which
 * does all of this for itself beside the root's build (launcher.h); the
 * child reads it back (caps_check_dropped).  Emptying the bounding set is
 * most of the cost, one credentials commit per capability (41 of them, 0.15
 * ms), so the thread does it first (caps_drop_bounding), and libcap-ng
 * leaves the bounding set out of its work when the kernel says it is empty
 * already.  A `jail exec` command's process, a child of init's main thread
 * (which mounts, and keeps its capabilities), drops them all itself.
 */
#include "caps.h"

#include <cap-ng.h>
#include <errno.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* uid 0 gains nothing, setuid changes nothing, ambient capabilities cannot be
 * raised, and none of these can be undone. */
#define LOCKED_SECUREBITS                                                                 \
	(SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |                  \
	 SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |                        \
	 SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)

/* No capability in the bounding set, as the kernel answers. */
static bool bounding_empty(void)
{
	for (int cap = 0; cap < 64; cap++) {
		int in_bounding = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
		if (in_bounding < 0)
			return true; /* past the kernel's last capability */
		if (in_bounding > 0)
			return false;
	}
	return true;
}

/* The kernel's answer, not libcap-ng's: it may know capabilities newer than
 * libcap-ng.  No ambient capability can be set that is not both permitted
 * and inheritable (the kernel keeps that invariant, capabilities(7)), so
 * empty permitted and inheritable sets say the ambient set is empty too;
 * the bounding set is read unless the caller saw it empty already (it can
 * only shrink).  82 system calls fewer on the command's way to exec. */
static int check_all_empty(bool bounding_seen_empty, struct jail_err *e)
{
	/* capget straight: libcap-ng's read-back parses /proc/self/status twice */
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	if (syscall(SYS_capget, &hdr, data) < 0)
		return jail_err_sys(e, "read back capabilities");
	for (size_t i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (data[i].effective || data[i].permitted || data[i].inheritable)
			return jail_err_set(e, 0, "capabilities still held after dropping them");
	if (!bounding_seen_empty && !bounding_empty())
		return jail_err_set(e, 0, "capabilities still in the bounding set after dropping them");
	return 0;
}

int caps_check_dropped(struct jail_err *e)
{
	int bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
	if (bits < 0 || (bits & LOCKED_SECUREBITS) != LOCKED_SECUREBITS)
		return jail_err_set(e, 0, "the command's process came with its securebits unlocked");
	return check_all_empty(true, e);
}

/* (prctl itself, not libcap-ng: its state, which names the process it reads
 * in /proc, would be init's and is shared with the command's vfork child; and
 * init still sees the host's /proc here) */
int caps_drop_bounding(struct jail_err *e)
{
	for (int cap = 0; cap < 64; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
			if (errno == EINVAL && cap > 0)
				break; /* past the kernel's last capability */
			return jail_err_sys(e, "drop capability %d from the bounding set", cap);
		}
	return 0;
}

int caps_drop_all(struct jail_err *e)
{
	if (prctl(PR_SET_SECUREBITS, LOCKED_SECUREBITS, 0, 0, 0) < 0)
		return jail_err_sys(e, "lock securebits");
	/* libcap-ng's state is the process's (init's memory, shared with a vfork
	 * child) and names the thread it last set up: this one, now */
	capng_setpid((int)syscall(SYS_gettid));
	capng_clear(CAPNG_SELECT_ALL);
	/* the bounding set too, unless init emptied it already; read back below */
	bool empty = bounding_empty();
	int rc = capng_apply(empty ? CAPNG_SELECT_CAPS | CAPNG_SELECT_AMBIENT : CAPNG_SELECT_ALL);
	if (rc != 0)
		return jail_err_set(e, errno, "drop capabilities (capng_apply returned %d)", rc);
	if (check_all_empty(empty, e) < 0)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return jail_err_sys(e, "set no_new_privs");
	return 0;
}
