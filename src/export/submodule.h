/* submodule.h — changes inside git submodules, kept out of the superproject's patch.
 *
 * A submodule is its own repository: a file the agent changed inside one is not
 * tracked by the superproject (whose index holds only the submodule's commit, a
 * gitlink), and must never reach the superproject's patch.  submodule_split()
 * takes such changes out of the superproject's changeset; an initialised
 * submodule is then exported on its own (export_ctx_open_sub(): the submodule's
 * work tree against the matching part of the upper dir, the submodule's own
 * index and ignore rules; export.h) into a series named after its path.  Changes in a
 * submodule that is not initialised are left out with the reason. */
#ifndef JAIL_SUBMODULE_H
#define JAIL_SUBMODULE_H
#include "export.h"

/* The gitlinks of the host index (paths relative to the project), sorted. */
int submodule_list(const struct export_ctx *x, struct strv *out, struct jail_err *e) WUR;
/* Take the changes below the submodules out of cs; x->submodules gets the
 * initialised ones that hold changes. */
int submodule_split(struct export_ctx *x, struct changeset *cs, struct jail_err *e) WUR;
/* The submodule of a path, when one of the sorted list holds it; else NULL. */
const char *submodule_of(const struct strv *subs, const char *path);
#endif
