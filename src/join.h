/* join.h — `jail exec`: a command started in a running jail by its own init.
 *
 *   jail exec ──connect──► <session>/exec.sock ──accept──► supervisor
 *                          (0600, in the 0700 session     checks SO_PEERCRED:
 *                           dir of the user's state)      the caller's own uid
 *                                                         │ SCM_RIGHTS over the
 *                                                         ▼ sync socket
 *   request, stdio fds ────────────────────────────────► init (PID 1 of the jail)
 *   ◄── pty master (from a terminal), exit status ───────  forks the command
 *
 * The connection itself is what the supervisor hands to init, so the request
 * and the client's stdio fds (SCM_RIGHTS) reach init without being copied.
 * Init starts the command as it started the agent: same namespaces and root,
 * same cgroup and rlimits, same environment, no capabilities, the same
 * seccomp filter plus one more layer that refuses attaching to another process
 * (ptrace, process_vm_*, pidfd_getfd) unless the policy allows ptrace back; a
 * terminal gets a new pty from the jail's devpts, never the host terminal.
 * Nothing is ever entered from the host (no setns/nsenter). */
#ifndef JAIL_JOIN_H
#define JAIL_JOIN_H
#include "plan.h"
#include "sync.h"

#include <poll.h>

/* Supervisor: listen on <session>/exec.sock (before GO), then hand each
 * connection of the caller's own uid to init over sync_sock (after GO, in a
 * thread of its own).  The thread starts at the first connection: most runs
 * have none, and a thread's start and end are on a short run's path.  So
 * the supervisor's wait polls join_server_fd (the listening socket; -1 when
 * there is none or the thread runs) and calls join_server_serve when it is
 * readable (the connection waits in the backlog meanwhile).  All take a NULL
 * server (listen failed). */
struct join_server;
int join_server_listen(const struct session *s, int sync_sock, struct join_server **out,
                       struct jail_err *e) WUR;
int join_server_fd(const struct join_server *srv);
void join_server_serve(struct join_server *srv);
void join_server_stop(struct join_server *srv);

/* Init: read the request on conn and fork the command (conn is taken). */
void join_init_request(const struct jail_plan *p, struct sync_go *go, int conn);
/* Init: a reaped child; true when it was a joined command (its client told). */
bool join_init_reaped(pid_t pid, int status);
/* Init: the clients' connections to poll (a hang-up ends the command). */
#define JOIN_MAX 32
size_t join_init_pollfds(struct pollfd *fds);
void join_init_events(const struct pollfd *fds, size_t n);

/* The joined command's process: one more seccomp layer (see above). */
int join_attach_filter(const struct jail_config *cfg, struct jail_err *e) WUR;
#endif
