/* hidecache.h — the start walk (hidetree.h), remembered between runs.
 *
 * Reading every directory of a 70,000-file project costs about 70 ms, nearly
 * all of it the kernel's readdir.  A directory whose stamp (mtime, ctime,
 * inode, size) is what it was when the cache was written holds the names it
 * held then: adding, removing or renaming an entry changes its mtime and
 * ctime, and ctime cannot be set back.  So a start stats each directory once
 * and reads only those that changed, and the cache is rewritten when one did.
 * The security rule is the walk's: the tree holds exactly the names each
 * directory held when this run looked at it.  A stamp within two seconds of
 * the start of the walk that wrote it is not trusted (a change in the same
 * timestamp tick would leave it equal): such a directory is read again. */
#ifndef JAIL_HIDECACHE_H
#define JAIL_HIDECACHE_H
#include "hidetree.h"

#include <time.h>

/* The tree of the project open at `project_fd`, as hidetree_build() would
 * walk it now: from the cache at `path` where its stamps still hold, read
 * where not; the cache is rewritten when anything was read. */
int hidecache_build(int project_fd, const char *path, struct hide_node **root, size_t *count,
                    struct jail_err *e) WUR;

/* The steps.  A cache's tree, or NULL when it is absent or damaged; *made is
 * when the walk that wrote it started. */
struct hide_node *hidecache_load(const char *path, time_t *made);
/* Bring a loaded tree up to date; *changed when a directory was read. */
void hidecache_refresh(int project_fd, struct hide_node *root, time_t made, size_t *count,
                       bool *changed);
/* The same, naming what was read: `reread` gets the paths of the directories
 * whose entries were read again, `fresh` those of the directories read whole
 * (with all below them) for the first time. */
void hidecache_refresh_list(int project_fd, struct hide_node *root, time_t made, size_t *count,
                            bool *changed, struct strv *reread, struct strv *fresh);
int hidecache_save(const char *path, const struct hide_node *root, time_t made,
                   struct jail_err *e) WUR;
#endif
