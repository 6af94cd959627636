/* hide.h — the project's git-ignored files, hidden inside the jail. */
#ifndef JAIL_HIDE_H
#define JAIL_HIDE_H
#include "config.h"
#include "session.h"

/* Ask the host's git which untracked files the project ignores (.env, keys,
 * build output) and put a whiteout for each in the session's upper dir, so the
 * agent can neither read nor list them.  Paths matching cfg->show_ignored stay
 * visible; paths matching cfg->hide are hidden too, tracked or not.  Whiteouts made by an earlier run for paths no longer ignored are
 * removed; the list is kept in <session>/hidden for the exporter.  A project
 * that is not a git repository hides nothing.  *hidden receives the hidden paths
 * (the caller frees it). */
int hide_ignored(const struct session *s, const struct jail_config *cfg, struct strv *hidden,
                 struct jail_err *e) WUR;

#endif
