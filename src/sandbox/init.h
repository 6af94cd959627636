/* init.h — PID 1 of the jail. */
#ifndef JAIL_INIT_H
#define JAIL_INIT_H
#include "plan.h"

/* Runs in the child of clone(): builds the jail (the containment recipe), starts
 * the command, reaps, forwards signals, and returns the command's exit status
 * (128+N for signal N; 125 when the jail could not be built, after reporting the
 * error to the supervisor over sock). */
int init_main(const struct jail_plan *p, int sock);
struct sync_go;
/* In a child of init: the command's process (the agent's, or one `jail exec`
 * asked for): its own session, the pty slave as fds where tty[fd] says so,
 * then capabilities, seccomp (joined: one more layer), the limits, the fds, and
 * only then the working directory (cwd, else the project's root; never through
 * a magic link, never outside the jail's root), and exec.  Never returns. */
_Noreturn void init_command(const struct jail_plan *p, struct sync_go *go, char *const *argv,
                            const char *cwd, int slave, const int tty[3], bool joined);
#endif
