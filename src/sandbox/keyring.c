/* keyring.c — the jail's own session keyring (keyring.h).
 *
 * A process possesses the keys of its session keyring, and every process
 * inherits it: the jail's would be the login's, whose keys (passwords a
 * desktop keyring or a CLI stored there, Kerberos tickets, fscrypt and
 * ecryptfs keys) its processes could read and use.  The filter refuses the
 * keyring calls, but a policy may allow keyctl back for a tool that keeps its
 * own token there, and it then got the host's as well.  The user keyring
 * needs nothing: the kernel keeps one per user namespace.  /proc/keys stays
 * masked (mounts.c): a key's owner may view it from anywhere. */
#include "keyring.h"

#include "log.h"

#include <errno.h>
#include <linux/keyctl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int keyring_detach(struct jail_err *e)
{
	/* a NULL name: a new anonymous keyring, whatever the user's key quota */
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) >= 0)
		return 0;
	if (errno == ENOSYS || errno == EPERM) {
		log_debug("keyring: no session keyring to leave (%s)", strerror(errno));
		return 0;
	}
	return jail_err_sys(e, "give the jail a session keyring of its own");
}
