/* launcher.h — the thread of init's that the command is started from.
 *
 * What the command must not hold (capabilities, the bounding set, the right
 * to gain privileges) and what it must be in (the jail's network namespace,
 * the syscall filter) are each a thread's own in Linux, and a vfork child
 * takes them from the thread that calls vfork.  So one thread of init's
 * makes the network namespace (netns.h), empties its own bounding set,
 * capability sets and securebits, sets no_new_privs and loads the filter,
 * all while init's main thread builds the root; once the root is ready it
 * vforks the command, which reads that back and is left to set its limits,
 * close its fds, enter its directory and exec (init_command).  That work ran
 * on the command's way to exec, after the root was built: from "root built"
 * to the exec, 0.95 -> 0.33 ms on a loaded machine.
 *
 * The filter comes with GO, on the socket init shares with the supervisor:
 * the thread reads GO itself, once the main thread says it has read the
 * messages before it (the /etc snapshot's).  It also sets the jail's
 * namespace counts then (resources.h), which need capabilities it is about
 * to drop and come after GO (a network helper's own sandbox is made by
 * then).  init's main thread keeps its capabilities (it mounts, and it
 * starts `jail exec`'s commands, which drop theirs in their own child as the
 * command did before).
 *
 * The thread blocks every signal: those for init go to its main thread's
 * signalfd.  It outlives the command's start, parked until init's exit: the
 * command is its child, and a thread's exit would count as the command's
 * parent's death (PR_SET_PDEATHSIG).  It holds nothing the command lacks
 * (its credentials and filter are the command's; init is not dumpable);
 * it is one of the jail's tasks (--pids counts it).  The session keyring,
 * the other namespaces and the cgroup are the process's when the thread
 * starts, or follow it (cgroup.procs). */
#ifndef JAIL_LAUNCHER_H
#define JAIL_LAUNCHER_H
#include "netns.h"
#include "plan.h"
#include "sync.h"

#include <pthread.h>

struct launcher {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	const struct jail_plan *p;
	int sock;
	int sysuser; /* the jail's /proc/sys/user (the main thread's fd) */
	struct sync_go *go;
	struct netns_maker net;
	/* steps, each set under the lock by the side named */
	bool netns_done;  /* thread: net holds the namespace (or its error) */
	bool handed_over; /* main: the next message on sock is GO, the thread's;
	                   * sysuser is open */
	bool armed;       /* thread: GO read, credentials dropped, filter loaded (or err) */
	bool root_ready;  /* main: argv, slave set; start the command */
	bool spawned;     /* thread: cmd is the command's pid (or err) */
	int failed;       /* thread: 1 when e holds its error */
	struct jail_err e;
	char **argv;
	int slave;
	pid_t cmd;
};

/* Start the thread (after the session keyring is the jail's own: the thread
 * takes init's credentials as they are now).  *go is filled by the thread. */
int launcher_start(struct launcher *l, const struct jail_plan *p, int sock, struct sync_go *go,
                   struct jail_err *e) WUR;
/* Main thread: wait for the network namespace and move into it. */
int launcher_enter_netns(struct launcher *l, struct jail_err *e) WUR;
/* Main thread: the messages before GO are read, and GO is the thread's;
 * so are the namespace counts, set through sysuser (/proc/sys/user of the
 * jail's procfs, which stays open until the thread is armed). */
void launcher_hand_over(struct launcher *l, int sysuser);
/* Main thread: wait until GO is read and the thread is armed (else its error). */
int launcher_wait_armed(struct launcher *l, struct jail_err *e) WUR;
/* Main thread: the root is ready; the thread vforks the command with argv
 * (and the pty slave, or -1) and its pid comes back, or -1 with *e set. */
pid_t launcher_spawn(struct launcher *l, char **argv, int slave, struct jail_err *e);
#endif
