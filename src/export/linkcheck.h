/* linkcheck.h — where an exported symlink leads in the tree after the patch lands.
 *
 * The tree after landing is the host project plus the session's changes that go
 * out.  link_check() resolves a link's target in that tree component by
 * component, as the kernel would: each path is looked up in the session's upper
 * dir first (a whiteout deletes, an opaque directory hides the project's entries
 * below it), then in the project; symlinks on the way are followed, the host's
 * and the agent's alike.  Paths the caller names "host only" (changes left out
 * of the patch, paths the supervisor hid, .git) are looked up in the project
 * alone.  Every read is fd-relative with O_NOFOLLOW: the upper dir is the
 * agent's work.
 */
#ifndef JAIL_LINKCHECK_H
#define JAIL_LINKCHECK_H
#include "util.h"

#define LINK_MAX_FOLLOW 40   /* the kernel's limit on links in one resolution */
#define LINK_MAX_DEPTH 100   /* directories deep: each holds two fds while walking */
#define LINK_MAX_STEPS 1024  /* components in one resolution: bounds the cost */

struct link_view {
	int upper_fd;  /* the session's upper dir, or -1 */
	int lower_fd;  /* the project */
	/* Is this path (relative to the project) looked up in the project only?
	 * NULL: never. */
	bool (*host_only)(void *ctx, const char *path);
	/* Is this path one the jail hid from the agent (a file git ignores, a
	 * --hide)?  A link must not give it a name of its own.  NULL: never. */
	bool (*hidden)(void *ctx, const char *path);
	void *ctx;
};

/* Why the symlink at linkpath (relative to the project) with this target must
 * not leave the jail (malloc'd), or NULL when it resolves inside the project:
 * it leaves the project at some step (an absolute target, '..' above the
 * project root, a link on the way that does), it leads into a .git (a tool
 * writing through it would write hooks or config), it leads to or through a path
 * the jail hid that exists on the host (a name git does not ignore would read
 * the secret there), it resolves to a directory that
 * holds it (the tree would contain itself), or it cannot be resolved safely (a
 * loop or more than LINK_MAX_FOLLOW links, a component that is not a directory,
 * too deep or too long, unreadable).  A path that does not exist is taken as a
 * directory to be made: the rest is resolved as text from there. */
char *link_check(const struct link_view *v, const char *linkpath, const char *target);

#endif
