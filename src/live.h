/* live.h — sessions whose jail is running: the record a running supervisor
 * keeps in its session dir, and what `jail ps`, `jail stop` and the live reads
 * of `jail status`/`jail diff` learn from it.
 *
 *   <session>/running   supervisor=PID, init=PID, started=EPOCH, command=...,
 *                       supervisor_start=TICKS, init_start=TICKS
 *
 * The record is only believed while the session's lock is held and its
 * supervisor is the process that wrote it.  A supervisor killed with SIGKILL
 * leaves the file; its lock goes with it, but the next holder of the lock (an
 * export, a reset, the next run until it writes its own record) does not
 * make the file true again, and by then its pids may name other processes of
 * the user's: a pid is only believed with the start time the record gives it
 * (the two name one process for good), and is signalled through a pidfd. */
#ifndef JAIL_LIVE_H
#define JAIL_LIVE_H
#include "session.h"

#include <sys/types.h>

struct live_info {
	pid_t supervisor, init;
	unsigned long long supervisor_start, init_start;  /* /proc/PID/stat ticks; 0: unknown */
	long long started;   /* seconds since the epoch */
	char *command;       /* escaped, for printing */
};

/* Write the record (the supervisor, after the clone).  Best effort. */
void live_register(const struct session *s, pid_t init, char *const *argv);
void live_unregister(const struct session *s);
/* Is the session's jail running?  Fills *out when it is (free with
 * live_info_free). */
bool live_get(const char *session_dir, struct live_info *out);
void live_info_free(struct live_info *i);
/* A pidfd for the record's process (pid, start) if it still runs, else -1
 * with errno set (ESRCH: it ended, and the pid may be another's now). */
int live_pidfd(pid_t pid, unsigned long long start);
/* Files the session changed (what its upper dir holds, without .git and the
 * whiteouts that only hide ignored files), counted up to cap; at most cap
 * entries are looked at, directories included. */
long live_changed_files(const char *session_dir, long cap);
/* "3d 4h", "12m 5s": how long ago `since` was. */
void live_format_age(long long since, char *buf, size_t n);

#endif
