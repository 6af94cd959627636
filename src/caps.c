/* caps.c — the command starts with no capability and cannot regain one.
 *
 * Init's child still holds every capability of the jail's user namespace.
 * Securebits go first (setting them needs CAP_SETPCAP), then the bounding set
 * (dropping from it needs CAP_SETPCAP too, so it goes before the effective set
 * is gone), the ambient set, and the effective, permitted and inheritable sets
 * in one capset; then no_new_privs.  The result is read back from the kernel:
 * a set that is not empty fails closed.
 *
 * The system calls are made directly: libcap-ng, used before, read
 * /proc/<tid>/status four times for a drop and its check (the kernel formats
 * the whole status file for each read), a fifth of the time between init's
 * fork and the command's exec.
 */
#include "caps.h"

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

/* Capability numbers the kernel may know: one past the last, prctl says EINVAL. */
#define CAP_NUMBERS 64

/* The effective, permitted and inheritable sets (64 bits each, version 3). */
static int cap_sets(struct __user_cap_data_struct d[2], bool set)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	return (int)syscall(set ? SYS_capset : SYS_capget, &h, d);
}

static int check_all_empty(struct jail_err *e)
{
	struct __user_cap_data_struct d[2] = {{0}};
	if (cap_sets(d, false) < 0)
		return jail_err_sys(e, "read back capabilities");
	for (int i = 0; i < 2; i++)
		if (d[i].effective || d[i].permitted || d[i].inheritable)
			return jail_err_set(e, 0, "capabilities still held after dropping them");
	/* the kernel may know capabilities newer than our headers: ask it for each */
	for (int cap = 0; cap < CAP_NUMBERS; cap++) {
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
	for (int cap = 0; cap < CAP_NUMBERS; cap++) {
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
			continue;
		if (errno == EINVAL)
			break; /* past the kernel's last capability */
		return jail_err_sys(e, "drop capability %d from the bounding set", cap);
	}
	/* (a kernel before 4.3 has no ambient set: EINVAL) */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return jail_err_sys(e, "clear the ambient capabilities");
	struct __user_cap_data_struct none[2] = {{0}};
	if (cap_sets(none, true) < 0)
		return jail_err_sys(e, "drop capabilities");
	if (check_all_empty(e) < 0)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return jail_err_sys(e, "set no_new_privs");
	return 0;
}
