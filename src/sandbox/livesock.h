/* livesock.h — host unix sockets that a --ro or --rw bind shows, live.
 *
 * A read-only mount does not stop connect(2): the kernel finds a socket by its
 * inode, and a bind shows the host's inode.  So a host process listening on a
 * socket below a bind (gpg-agent's ~/.gnupg/S.gpg-agent where there is no
 * /run/user, Docker Desktop's ~/.docker/desktop/docker.sock) takes the agent's
 * connections, outside every namespace of the jail, with the user's rights.
 * jail cannot close that door without changing what a bind is (README
 * "Limitations"; --cow, an overlay, has inodes of its own); it says so at
 * start, naming a socket, when one listens there then.  The kernel lists the
 * listening sockets of the supervisor's network namespace (the host's) by
 * their bound path (sock_diag): no bound tree is walked, and the thousands of
 * connected sockets of a desktop are not formatted (as /proc/net/unix does:
 * 7 ms for 3,000 sockets on a loaded machine). */
#ifndef JAIL_LIVESOCK_H
#define JAIL_LIVESOCK_H
#include "config.h"
#include "plan.h"

#include <stddef.h>

/* Of `paths` (absolute socket paths), the first at or below `dir` (absolute,
 * normalized), or NULL; *count gets how many are. */
const char *livesock_below(const struct strv *paths, const char *dir, size_t *count);

/* The paths of the host's listening unix sockets (abstract ones left out),
 * each with its directory resolved (a listener may name it through a link). */
int livesock_listening(struct strv *paths, struct jail_err *e) WUR;

/* One warning per --ro or --rw bind that shows a live host socket now; not
 * for one the jail covers (jail's state and config dirs, the real home below
 * a bind that holds it: cover.h). */
void livesock_warn(const struct jail_plan *p);
#endif
