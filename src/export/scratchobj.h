/* scratchobj.h — the export's two commits written by jail itself into the
 * throwaway repository (patch.h): the blobs of the agent's files (and of the
 * project's files the base commit does not hold), a tree of the changed paths
 * before and one after, the commits `pre` and `post` (post's parent pre), all
 * in one pack (packw.h), then the two refs.
 *
 * Why not git fast-import: given the content it hashed each byte three times
 * with collision-detecting SHA-1, and even naming blobs by id it spent a
 * process, a check of every id against the packs and a pack of its own: 50 ms
 * of a 2,000-file export's 200.  The objects are the ones fast-import made:
 * the same trees (a later path replaces an earlier one where a file and a
 * directory share a name, as fast-import's stream did), the same commit
 * bytes, so the patch is byte for byte the same (the golden test in
 * tests/integration/export.sh). */
#ifndef JAIL_SCRATCHOBJ_H
#define JAIL_SCRATCHOBJ_H
#include "export.h"
#include "git.h"

/* Into GIT_DIR: the included changes of cs, author "Name <email>" at time
 * when; each '\r' read marks its change (has_cr).  beside: a git whose output
 * is read between files (the base-blob scan), or NULL. */
int scratchobj_write(const char *git_dir, const struct export_ctx *x, struct changeset *cs,
                     const char *author, const char *message, long long when,
                     struct git_proc *beside, struct jail_err *e) WUR;

#endif
