/* init.h — PID 1 of the jail. */
#ifndef JAIL_INIT_H
#define JAIL_INIT_H
#include "plan.h"

/* Runs in the child of clone(): builds the jail (the containment recipe), starts
 * the command, reaps, forwards signals, and returns the command's exit status
 * (128+N for signal N; 125 when the jail could not be built, after reporting the
 * error to the supervisor over sock). */
int init_main(const struct jail_plan *p, int sock);
#endif
