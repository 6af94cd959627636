/* sandbox.h — the supervisor's half of a jail run. */
#ifndef JAIL_SANDBOX_H
#define JAIL_SANDBOX_H
#include "plan.h"

/* Clone init into new namespaces, map ids, start the network, relay the terminal
 * or forward signals, and wait.  *exit_code is the command's status as jail exits
 * with it (128+N for a signal). */
int sandbox_run(struct jail_plan *p, int *exit_code, struct jail_err *e) WUR;
#endif
