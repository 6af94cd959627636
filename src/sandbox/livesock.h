/* livesock.h — host unix sockets that a --ro or --rw bind would show, live.
 *
 * A read-only mount does not stop connect(2) or sendto(2): the kernel finds a
 * socket by its inode, and a bind shows the host's inode.  So a host process
 * bound below a bind (gpg-agent's ~/.gnupg/S.gpg-agent where there is no
 * /run/user, an ssh ControlMaster's ~/.ssh/cm-*, Docker Desktop's socket, a
 * tmux server, a syslog-style datagram socket) would take the agent's
 * connections or datagrams, outside every namespace of the jail, with the
 * user's rights.  So each socket of the host that listens or is bound
 * unconnected (a datagram socket takes anyone's sendto) at start, below a
 * bind, gets an empty read-only file mounted over it in the jail: connect
 * and sendto there fail.  A bind of the socket itself (--rw
 * ~/.gnupg/S.gpg-agent) is the user letting it in: that one is shown.
 *
 * The kernel lists the sockets of the supervisor's network namespace (the
 * host's) by bound path and inode (sock_diag): no bound tree is walked, and
 * the thousands of connected sockets of a desktop are filtered out by the
 * kernel, not formatted; a socket whose name is gone (ssh's ControlMaster
 * links its ControlPath to a temporary name and unlinks that) is looked for
 * by its inode in its directory.  Not found (README "Limitations"): a socket
 * created after the start, one bound by a relative name, another name (a hard
 * link) of a socket in another directory, and named FIFOs; below binds inside
 * the project, which bindcover.h walks anyway, every socket and FIFO is
 * covered. */
#ifndef JAIL_LIVESOCK_H
#define JAIL_LIVESOCK_H
#include "config.h"
#include "plan.h"

#include <stddef.h>
#include <sys/types.h>

/* Of `paths` (absolute socket paths), the first at or below `dir` (absolute,
 * normalized), or NULL; *count gets how many are. */
const char *livesock_below(const struct strv *paths, const char *dir, size_t *count);

/* The host's unix sockets with a path that take connections or datagrams
 * from anyone: listening stream and seqpacket ones, and datagram ones with
 * no peer of their own.  Each path with its directory resolved (the socket
 * may have been named through a link), with the inode the kernel has bound
 * (0: not given). */
struct livesock_set {
	struct strv paths;
	ino_t *ino;
	size_t cap;
	struct strv dirs; /* each directory as named, then resolved ("": not) */
};
int livesock_bound(struct livesock_set *s, struct jail_err *e) WUR;
void livesock_set_free(struct livesock_set *s);

/* The supervisor: the paths in the jail (p->sock_covers) where a --ro or --rw
 * bind would show a live socket of the host's (not one the user bound
 * itself, nor one below what the jail covers anyway: cover.h), and one line
 * saying so, naming the first and how to let it in. */
void livesock_plan(struct jail_plan *p);

/* init, in the scratch root once the named binds are made: cover each path
 * of `at` below the new root (`new_root`, a directory fd; links on the way
 * resolved in it) that holds a socket now, another socket swapped in since
 * the list too, by its fd (a name swapped later does not move the mount); a
 * link at the end, or anything but a socket, is left (a link resolves in
 * the jail, to a path covered if a bind shows a live socket there).  `host`:
 * the same sockets' paths on the host, to tell a directory the jail hides
 * (a --tmpfs) from one moved since the list (the start fails: run again).
 * First each directory of `pins` (the jail's paths) is bound onto itself:
 * below a --rw, the agent cannot move one away from its socket's cover. */
int livesock_cover(const struct strv *at, const struct strv *host, const struct strv *pins,
                   int new_root, struct jail_err *e) WUR;
#endif
