/* stdiorelay.h — no host file enters the jail as an fd.
 *
 * An open fd is a way back to what it names: /proc/self/fd/N reopens the
 * inode with any access its permissions give, whatever the fd's own mode was,
 * so a project file given as the agent's stdin (`jail -- sh < task.sh`) could
 * be rewritten on the host, and an output file (`> log`) read back; an
 * anonymous pipe reopens the other way round (the agent writes into the host's
 * stdin pipe, reads what others write to its stdout pipe); and a socket keeps
 * the host's network namespace (it connects, sends or binds there).  Of the
 * caller's stdio, only terminals (a pty stands in for them), the memory
 * devices (/dev/null: the jail's own is the same) and closed fds go in as they
 * are; any other gets a pipe of the jail's alone, and a thread of the caller
 * copies between the two.  That stdin is read ahead by the copier, as ssh
 * reads it: a loop that reads the same stdin gives the jail </dev/null. */
#ifndef JAIL_STDIORELAY_H
#define JAIL_STDIORELAY_H
#include "util.h"

#include <stdbool.h>

struct stdio_relay;

/* For each fd 0..2 that is open, not a terminal and not a memory device: a
 * pipe, whose jail-side end is put in jail_fds[fd] (others: jail_fds[fd] = fd).  *out is NULL when nothing needs a relay. */
int stdio_relay_prepare(struct stdio_relay **out, int jail_fds[3], struct jail_err *e) WUR;
/* In the child that becomes the jail (after a fork-like clone): the
 * jail-side ends onto fds 0..2.  Async-signal-safe. */
void stdio_relay_child(const struct stdio_relay *r);
/* In the caller, once the jail-side ends went over (clone or SCM_RIGHTS):
 * close them, start copying. */
int stdio_relay_start(struct stdio_relay *r, struct jail_err *e) WUR;
/* When the jail (or the joined command) ended: wait for what it wrote to be
 * copied out, then free: up to wait_ms while something in the jail still
 * holds an output pipe, and then (wait_ms > 0) as long as the caller's reader
 * takes, unless SIGINT, SIGTERM or SIGHUP is pending (blocked by the caller).
 * The stdin copier is never waited for (it stops at the end of its input or
 * when the jail closed its end). */
void stdio_relay_finish(struct stdio_relay *r, int wait_ms);
#endif
