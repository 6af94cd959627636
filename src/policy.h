/* policy.h — the layered INI policy (see jail.ini(5)). */
#ifndef JAIL_POLICY_H
#define JAIL_POLICY_H
#include "cli.h"

/* The effective configuration: the embedded default, named policies, the user's
 * and the trusted project's files, then the flags in *cli (moved out of it).
 * project: the project's real path. */
int policy_resolve(struct cli *cli, const char *project, struct jail_config *out,
                   struct jail_err *e) WUR;
#endif
