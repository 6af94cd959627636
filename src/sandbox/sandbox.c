/* sandbox.c — clone, the sync with init, and the wait. */
#include "sandbox.h"

#include "diskguard.h"
#include "etcsnap.h"
#include "filtercache.h"
#include "hints.h"
#include "hidefs.h"
#include "init.h"
#include "join.h"
#include "live.h"
#include "log.h"
#include "net.h"
#include "netns.h"
#include "pty.h"
#include "resources.h"
#include "session.h"
#include "stdiorelay.h"
#include "sync.h"
#include "sysfilter.h"
#include "userns.h"
#include "workdir.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

/* How long the end waits for the jail's output to be copied out: init's own
 * exit may still be under way (its fds with it) when the supervisor is told
 * everything in the jail is gone. */
#define RELAY_DRAIN_MS 10000

/* The network namespace is init's to make, mostly (netns.h). */
#define CLONE_FLAGS                                                                        \
	(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |         \
	 CLONE_NEWCGROUP)

static const int supervised[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH,
                                 SIGUSR1, SIGUSR2};

static int clone_error(int err, struct jail_err *e)
{
	if (err == EPERM || err == ENOSPC || err == EUSERS || err == EINVAL) {
		jail_err_set(e, 0, "cannot create a user namespace: %s", userns_blocker(err));
		e->errnum = err;
		return -1;
	}
	return jail_err_set(e, err, "clone the jail's init");
}

static int block_signals(int *sigfd, struct jail_err *e)
{
	sigset_t mask;
	sigemptyset(&mask);
	for (size_t i = 0; i < ARRAY_SIZE(supervised); i++)
		sigaddset(&mask, supervised[i]);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return jail_err_sys(e, "block signals");
	*sigfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (*sigfd < 0)
		return jail_err_sys(e, "signalfd");
	return 0;
}

/* The project's view server (hidefs.h), once.  Init's FUSE mount waits for
 * it to answer, so it is forked before the clone, when it can be: it then
 * starts while the kernel makes the namespaces.  With cgroup limits it is
 * forked after limits_cgroup_attach, which may move the supervisor into a
 * leaf cgroup the server must follow. */
static int start_view_server(const struct jail_plan *p, struct jail_err *e)
{
	if (!p->hidefs || p->hidefs->pid > 0)
		return 0;
	if (hidefs_fork(p->hidefs, e) < 0)
		return -1;
	session_lock_note_server(p->session, p->hidefs->pid);
	return 0;
}

/* Everything between clone and the command's start.  GO goes out as soon as
 * the host's side is ready, before init says READY: init finds it waiting when
 * its root is built, with no round trip between the two (init reads nothing
 * from this socket but the /etc snapshot and GO before it).  An error of
 * init's still arrives in place of READY.  On error init is killed by the
 * caller. */
static int setup_from_host(struct jail_plan *p, pid_t pid, int sock, int *master,
                           struct net_host **net, struct join_server **joins,
                           struct workdir_sweep **sweep, struct jail_err *e)
{
	/* first: init waits for it when it builds /etc (etcsnap.h) */
	if (etcsnap_offer(p, sock, e) < 0)
		return -1;
	/* Not before the clone: the child would inherit it, and its /proc files
	 * (uid_map, which init writes) would become root's. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return jail_err_sys(e, "make the supervisor not dumpable");
	/* before the network helpers start: the supervisor may have to move down
	 * into a leaf cgroup, and children started later follow it there */
	static struct sync_go go;
	int limits = limits_cgroup_attach(p->cfg, pid, e);
	if (limits < 0)
		return -1;
	go.cgroup_limits = limits == 1;
	go.default_nproc = limits_default_nproc();
	if (start_view_server(p, e) < 0)
		return -1;
	/* compiled (or taken from the cache: filtercache.h) while init builds
	 * the root (before the network, which waits for init's sockets), and
	 * sent with GO */
	if (filtercache_compile(p->cfg, p->state_root, &go.filter, e) < 0)
		return -1;
	/* the start's warnings about the project, off its critical path (the
	 * mount table's read grows with the host's mounts); before GO, so they
	 * come before the command's output */
	hint_nested_mounts(p->session->project);
	hint_project_in_repo(p->session->project);
	/* before GO: once the command runs, ps, stop, live status and exec find
	 * it (an exec that connects now waits in the backlog until
	 * join_server_serve) */
	struct jail_err je = {0};
	if (join_server_listen(p->session, sock, joins, &je) < 0)
		log_warn("jail exec will not reach this jail: %s", je.msg);
	live_register(p->session, pid, p->cfg->argv);
	/* init wrote its id maps as it started (init.c); the network's helpers
	 * enter its user namespace, and the jail's error, if any, is this */
	if (sync_recv(sock, SYNC_MAPS_DONE, NULL, NULL, NULL, e) < 0)
		return -1;
	/* the network's helper is running before the command starts */
	if (net_host_start(p->cfg, p->broker, pid, sock, net, e) < 0)
		return -1;
	if (sync_send(sock, SYNC_GO, &go, SYNC_GO_SIZE(&go), -1, e) < 0) {
		/* init gave up before GO: its reason waits on the socket */
		struct jail_err why = {0};
		if (sync_recv(sock, SYNC_READY, NULL, NULL, NULL, &why) < 0)
			*e = why;
		return -1;
	}
	/* what was set aside goes with the view's server, which outlives the
	 * jail (workdir.h); without one (or one a cgroup's end kills), now,
	 * while init builds the root: nothing of init's waits for us now */
	if (!p->hidefs || go.cgroup_limits)
		workdir_sweep(*sweep);
	else
		workdir_sweep_free(*sweep);
	*sweep = NULL;
	if (p->use_pty && sync_recv(sock, SYNC_PTY, NULL, NULL, master, e) < 0)
		return -1;
	return sync_recv(sock, SYNC_READY, NULL, NULL, NULL, e);
}

static int wait_init(const struct jail_plan *p, pid_t pid, int master, int sigfd, int sock,
                     struct join_server *joins, struct disk_guard *guard, int *exit_code,
                     bool *reaped, struct jail_err *e)
{
	struct jail_end end = {0};
	int r = master >= 0 ? pty_relay(p, master, pid, sigfd, sock, joins, &end, e)
	                    : wait_forwarding(pid, sigfd, sock, joins, guard, &end, e);
	if (r < 0)
		return -1;
	*reaped = end.reaped;
	if (WIFEXITED(end.status)) {
		*exit_code = WEXITSTATUS(end.status);
		return 0;
	}
	if (!WIFSIGNALED(end.status))
		return jail_err_set(e, 0, "the jail's init ended with status %#x", end.status);
	/* `jail stop` after its timeout, the OOM killer, a kill from the host: the
	 * session is intact, and the summary follows as after any other end */
	log_warn("the jail was killed (signal %d)", WTERMSIG(end.status));
	*exit_code = 128 + WTERMSIG(end.status);
	return 0;
}

int sandbox_run(struct jail_plan *p, int *exit_code, struct jail_err *e)
{
	_cleanup_close_ int sigfd = -1;
	int sv[2];
	if (block_signals(&sigfd, e) < 0)
		return -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return jail_err_sys(e, "socketpair");
	_cleanup_close_ int sock = sv[0];
	if (!limits_cgroup_wanted(p->cfg) && start_view_server(p, e) < 0) {
		close(sv[1]);
		return -1;
	}
	/* a file as the caller's stdio goes in as a pipe (stdiorelay.h) */
	struct stdio_relay *relay;
	int jail_fds[3];
	if (stdio_relay_prepare(&relay, jail_fds, e) < 0) {
		close(sv[1]);
		return -1;
	}
	/* before the clone: init's overlay then finds no work/work to remove */
	struct workdir_sweep *sweep = workdir_set_aside(p->session->work, &p->overlay_volatile);
	/* fork-like clone: the child runs on a copy of our stack */
	unsigned long flags = CLONE_FLAGS | (netns_late(p->cfg) ? 0 : CLONE_NEWNET);
	pid_t pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid < 0) {
		int err = errno;
		close(sv[1]);
		stdio_relay_finish(relay, 0);
		workdir_sweep_free(sweep);
		return clone_error(err, e);
	}
	if (pid == 0) {
		close(sv[0]);
		stdio_relay_child(relay);
		_exit(init_main(p, sv[1]));
	}
	close(sv[1]);
	if (p->hidefs) { /* init's end is init's alone: its exit must end the server */
		close(p->hidefs->jail_sock);
		p->hidefs->jail_sock = -1;
	}
	log_debug("cloned init %d", (int)pid);
	_cleanup_close_ int master = -1;
	struct net_host *net = NULL;
	struct join_server *joins = NULL;
	int r = stdio_relay_start(relay, e);
	if (r == 0)
		r = setup_from_host(p, pid, sock, &master, &net, &joins, &sweep, e);
	if (r < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	} else {
		log_debug("jail started");
		struct disk_guard *guard = NULL;
		bool reaped = true;
		/* with a pty its own thread: the relay may block writing to the
		 * host terminal */
		r = disk_guard_start(p->cfg, p->session->upper, pid, master >= 0, &guard, e);
		/* without the view's server to hold the session until the jail's
		 * mounts are gone (hidefs.h), init's exit is waited for */
		if (r == 0)
			r = wait_init(p, pid, master, sigfd, p->hidefs ? sock : -1, joins, guard,
			              exit_code, &reaped, e);
		if (disk_guard_stop(guard, e))
			r = -1;
		/* init said everything in the jail is gone: its own exit, which takes
		 * the namespaces down, runs on (it is reaped by whoever inherits it),
		 * unless the jail's cgroup is to be removed */
		if (!reaped && limits_cgroup_in_use())
			reaped = waitpid(pid, NULL, 0) == pid;
		if (p->hidefs)
			p->hidefs->outlived = !reaped;
		log_debug("init %s", reaped ? "exited" : "done");
	}
	join_server_stop(joins);
	live_unregister(p->session);
	net_host_stop(net, p->cfg->quiet);
	limits_cgroup_cleanup();
	/* what the jail wrote is out before the summary and any error follow */
	stdio_relay_finish(relay, RELAY_DRAIN_MS);
	workdir_sweep_free(sweep);
	return r;
}
