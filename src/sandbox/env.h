/* env.h — the command's environment, built from nothing. */
#ifndef JAIL_ENV_H
#define JAIL_ENV_H
#include "plan.h"

/* PATH HOME USER LOGNAME SHELL TERM LANG TMPDIR, then the policy's passed and set
 * variables (later wins).  Nothing else of the host's environment. */
int env_build(const struct jail_plan *p, struct strv *out, struct jail_err *e) WUR;
/* Set NAME=VALUE in an environment list, replacing an earlier NAME. */
void env_put(struct strv *env, const char *name, const char *value);
#endif
