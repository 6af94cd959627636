/* home.h — the fake $HOME's contents. */
#ifndef JAIL_HOME_H
#define JAIL_HOME_H
#include "plan.h"

/* Fill the fake home at `dir` (a path in the new root being built; host files
 * are read as resolved from `host_root`, an fd of the host's root): a minimal
 * shell setup, the files the policy copies in, the secret files.  Existing files of a persistent home are kept,
 * except copies and secrets, which are refreshed. */
int home_populate(const struct jail_plan *p, const char *dir, int host_root,
                  struct jail_err *e) WUR;
#endif
