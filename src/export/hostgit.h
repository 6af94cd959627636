/* hostgit.h — ask the host's git about paths the agent chose, one refused path
 * at a time.
 *
 * git dies (exit 128) on a whole batch when one path in it is beyond a symlink
 * of the host's work tree, or otherwise a path it will not look at.  The agent
 * decides those paths (an untracked host symlink replaced by a directory is
 * enough), so each such path is left out with the reason instead of stopping
 * every status, export and apply of the session. */
#ifndef JAIL_HOSTGIT_H
#define JAIL_HOSTGIT_H

#include "export.h"

/* Why git would refuse path (relative to the project, below project_fd): a
 * leading component that is a symlink (or not a directory) on the host.  NULL
 * when it is fine.  memo keeps the last directory checked (the paths come
 * sorted, so neighbours share it); free it with sb_free(). */
char *host_path_refused(int project_fd, const char *path, struct strbuf *memo);

/* `git check-ignore` of paths[0..n) in the project (untracked paths: no index):
 * the ignored ones into *ignored, the ones git refuses into *refused (each
 * found by halving the batch that failed). */
int host_check_ignore(const struct export_ctx *x, char *const *paths, size_t n,
                      struct strv *ignored, struct strv *refused, struct jail_err *e) WUR;
#endif
