/* linkflags.h — a change that a host symlink at a control file's name leads to.
 *
 * The host's `.pre-commit-config.yaml -> ci/hooks.yaml` (a link a user made, or
 * one a flagged patch landed) makes ci/hooks.yaml the file pre-commit runs, and
 * `.claude -> tools/claude` makes tools/claude/settings.json the agent CLI's
 * settings: the rules name paths, and the link gives the file a second name.
 * A change to what such a link leads to is flagged, with the link's name and
 * its reason, as a change to the link's name would be. */
#ifndef JAIL_LINKFLAGS_H
#define JAIL_LINKFLAGS_H
#include "export.h"

/* Flag (CF_REVIEW, c->flag_why, a note) the included changes of cs that a
 * tracked host symlink flagged or left out by its name leads to.  Best effort:
 * a link git cannot list or jail cannot read flags nothing.  The host's links
 * are kept in dir (`control-links.HASH`) for the next export with the same index. */
void linkflags_review(struct export_ctx *x, struct changeset *cs, const char *dir);
#endif
