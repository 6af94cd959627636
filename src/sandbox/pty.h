/* pty.h — the supervisor's side of the jail's terminal. */
#ifndef JAIL_PTY_H
#define JAIL_PTY_H
#include "diskguard.h"
#include "join.h"
#include "plan.h"

#include <sys/ioctl.h>

/* The end of a jail: init's wait status once it was reaped, or the exit code
 * init sent (SYNC_DONE) when everything in the jail was gone, before init's
 * own exit took its namespaces down (`reaped` false: not waited for). */
struct jail_end {
	int status;
	bool reaped;
};

/* Put the host terminal in raw mode (when stdin is one) and relay between it and
 * the jail's pty master until the jail ends (init exits or says it is done on
 * `sock`); window-size changes follow the host terminal; other signals go to
 * init.  The terminal is restored on every path. */
int pty_relay(const struct jail_plan *p, int master, pid_t init_pid, int sigfd, int sock,
              struct join_server *joins, struct jail_end *end, struct jail_err *e) WUR;
/* The host terminal's window size (clamped), read from the fd the relay
 * reads it from; false when none of tty_fds is a terminal any more. */
bool pty_host_winsize(const int tty_fds[3], struct winsize *ws);
/* Without a pty: forward signals to init until the jail ends, and let the
 * disk guard look when it is due (diskguard.h: it has no thread then).  Both
 * waits start jail exec's server at its first connection (join.h). */
int wait_forwarding(pid_t init_pid, int sigfd, int sock, struct join_server *joins,
                    struct disk_guard *guard, struct jail_end *end, struct jail_err *e) WUR;
/* `jail exec` from a terminal: relay between the host terminal and master (a
 * pty of the jail's devpts, output filtered as above) until done_fd is
 * readable (the command's exit status arrived). */
int pty_relay_join(int master, int done_fd, const int tty_fds[3], struct jail_err *e) WUR;
#endif
