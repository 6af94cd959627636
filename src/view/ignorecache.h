/* ignorecache.h — the project's ignored paths, remembered between runs.
 *
 * Asking git for the ignored files walks the whole tree: 60 ms on a 50,000-file
 * repository.  The answer can only change when a directory git walks gains or
 * loses an entry (its ctime changes, even when its mtime is set back), an
 * ignore file changes, or the index changes.  So the cache keeps the answer
 * with the stamps (mtime, ctime, inode, size) of every such directory and
 * file, and a run that finds them all unchanged costs one fstatat per
 * directory. */
#ifndef JAIL_IGNORECACHE_H
#define JAIL_IGNORECACHE_H
#include "hidetree.h"
#include "session.h"

struct ignore_prefetch;

/* The ignored paths of the project (relative, no trailing '/'), from the cache
 * when it is still valid, else from git (and the cache is rewritten).  Returns 1
 * when the project is not a git repository (then only what the repositories
 * inside it ignore is listed).  With `tree` (the
 * walk of the project at start, hidetree.h), the stamps of the project's
 * directories and .gitignore files are the ones the walk took before git was
 * asked: a cold start walks the project once, not twice, and a warm one stats
 * no directory again.  NULL: they are taken from the file system. */
int ignored_paths(const struct session *s, struct hide_node *tree,
                  struct ignore_prefetch *pre, struct strv *out, struct jail_err *e) WUR;

/* Called in the view's server while the jail starts (hidefs.h): its time is
 * off the start's critical path, but a command that reads the project waits
 * for it.  A first start (no ignore cache yet) pays for two walks of the whole
 * project, the view's and git's; they can run at once.  ignore_prefetch_start(), before
 * the view's walk, asks git in a thread; ignored_paths() takes the answer
 * (and always ends the thread) when it needs one and when every directory of
 * `tree` still has the stamp the walk saw, and no ignore file, index or
 * config was changed since git started (edited in place, they leave every
 * directory as it was): then git read what it would have read after the walk.
 * Else git is asked again.  NULL when there is an ignore cache (or no
 * thread). */
struct ignore_prefetch *ignore_prefetch_start(const struct session *s);
/* End an unused prefetch (an error before ignored_paths). */
void ignore_prefetch_drop(struct ignore_prefetch *pre);
#endif
