/* repodir.h — directories git takes for a repository of their own.
 *
 * git run in a directory with no .git of its own (or below it) takes that
 * directory for a bare repository when it holds HEAD and objects and refs, or
 * HEAD and a commondir file naming where they are (setup.c:
 * is_git_directory(); safe.bareRepository is "all" by default).  It then reads
 * the directory's config and runs its hooks: a `git log` or `git branch` typed
 * there runs its core.pager, `git status` below a core.worktree its
 * core.fsmonitor.  Such a directory in the agent's tree is its git config and
 * hooks landed on the host, so the export leaves it out as one entry, like a
 * repository with a .git of its own.  Names are compared as other file systems
 * read them (path_fold(): "head", "Objects" on macOS).  A directory counts as git would see it
 * after the patch lands, conservatively: an entry of the session's upper dir
 * (not a whiteout), else of the project on the host, or one the agent's
 * commits hold at any point.
 */
#ifndef JAIL_REPODIR_H
#define JAIL_REPODIR_H

#include "util.h"

#include <stdbool.h>

#define REPODIR_REASON                                                                         \
	"a directory git takes for a repository (HEAD, objects, refs): git run there reads its " \
	"config and runs its hooks"

/* The directory open as ufd in the session's upper dir (or -1) over lfd in the
 * project (or -1; opaque: the upper hides it): is it one? */
bool repodir_merged(int ufd, int lfd, bool opaque);

/* The directory at or above path's parent that is one, given the upper dir
 * (upper_fd, or -1), the project (lower_fd) and more paths that exist (sorted:
 * the agent's commits'), or NULL.  cache holds the directories found so far
 * ("d\0"+1: yes, "n": no), for the next path. */
char *repodir_above(int upper_fd, int lower_fd, const char *path, const struct strv *extra,
                    struct strv *cache);

#endif
