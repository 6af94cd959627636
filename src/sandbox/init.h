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
/* Where a command's process comes from: the launcher's thread, which dropped
 * the capabilities and loaded the filter before its vfork (launcher.h), or
 * `jail exec` (init's main thread, which still holds them). */
enum command_origin { COMMAND_ARMED, COMMAND_JOINED };
/* In a child of init: the command's process (the agent's, or one `jail exec`
 * asked for): its own session, the pty slave as fds where tty[fd] says so,
 * then capabilities and seccomp (joined: dropped and loaded here, with one
 * more layer; armed: read back), the limits, the fds, and only then the
 * working directory (cwd, else the project's root; never through a magic
 * link, never outside the jail's root), and exec.  Never returns. */
_Noreturn void init_command(const struct jail_plan *p, struct sync_go *go, char *const *argv,
                            const char *cwd, int slave, const int tty[3],
                            enum command_origin origin);
#endif
