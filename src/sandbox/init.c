/* init.c — PID 1 of the jail.
 *
 * The containment recipe, in order; each step fails closed:
 *   write the uid/gid maps → a session keyring of its own → hostname → new
 *   root (mounts) → network → pty → GO/READY with the supervisor → not
 *   dumpable → start the command.  Beside the root's build, the launcher's
 *   thread makes the network namespace, takes GO, drops its capabilities and
 *   loads seccomp (launcher.h); the command is its vfork child, which reads
 *   that back, sets rlimits, closes fds, enters its working directory, and
 *   execs.
 * Then init reaps everything, forwards signals to the command and, when the
 * command exits, kills whatever it left behind and exits with its status. */
#include "init.h"

#include "caps.h"
#include "join.h"
#include "keyring.h"
#include "launcher.h"
#include "log.h"
#include "mounts.h"
#include "net.h"
#include "resources.h"
#include "sysfilter.h"
#include "sync.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>

extern char **environ;

/* Signals init passes on to the command's process group. */
static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH, SIGUSR1, SIGUSR2};

static int write_self(const char *file, const char *data, struct jail_err *e)
{
	_cleanup_free_ char *path = xasprintf("/proc/self/%s", file);
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write_all(fd, data, strlen(data)) < 0)
		return jail_err_sys(e, "write %s", path);
	return 0;
}

/* The caller's own uid and gid, and nothing else, inside the jail.  Written
 * by init itself, which the kernel allows for a map of the writer's own ids
 * (after setgroups is denied): no round trip with the supervisor. */
static int write_id_maps(const struct jail_plan *p, struct jail_err *e)
{
	char map[64];
	snprintf(map, sizeof(map), "%u %u 1\n", p->uid, p->uid);
	if (write_self("setgroups", "deny", e) < 0 || write_self("uid_map", map, e) < 0)
		goto refused;
	snprintf(map, sizeof(map), "%u %u 1\n", p->gid, p->gid);
	if (write_self("gid_map", map, e) < 0)
		goto refused;
	return 0;
refused:
	if (e->errnum == EPERM || e->errnum == EACCES)
		jail_err_wrap(e, "user namespace refused (AppArmor or a sysctl?); run 'jail doctor'");
	return -1;
}

static int open_pty(const struct jail_plan *p, int sock, int *slave, struct jail_err *e)
{
	_cleanup_close_ int master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0)
		return jail_err_sys(e, "open /dev/ptmx in the jail");
	int unlock = 0, n;
	if (ioctl(master, TIOCSPTLCK, &unlock) < 0 || ioctl(master, TIOCGPTN, &n) < 0)
		return jail_err_sys(e, "set up the jail's pty");
	/* TIOCGPTPEER opens the slave through the master: no path lookup. */
	*slave = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*slave < 0)
		return jail_err_sys(e, "open the jail's pty slave");
	/* the command may start before the supervisor's relay reads the host's
	 * size: it must not find a 0x0 terminal (a later change arrives as
	 * SIGWINCH from the relay) */
	if ((p->winsize.ws_row || p->winsize.ws_col) && ioctl(master, TIOCSWINSZ, &p->winsize) < 0)
		return jail_err_sys(e, "set the jail's pty window size");
	return sync_send(sock, SYNC_PTY, NULL, 0, master, e);
}

static int setup_jail(const struct jail_plan *p, struct launcher *l, int sock, int *slave,
                      bool *ready, struct jail_err *e)
{
	/* The hostname is cosmetic (the UTS namespace is the isolation): container
	 * seccomp profiles (podman's, docker's) refuse sethostname without
	 * CAP_SYS_ADMIN, and jail runs there with the container's name. */
	if (sethostname("jail", 4) < 0 && errno != EPERM)
		return jail_err_sys(e, "set hostname");
	/* The namespace counts are set after GO, once a network helper has made
	 * its own sandbox inside our user namespace: by the launcher's thread,
	 * which reads GO (launcher.h), and the mount namespaces' here, once the
	 * root's binds are made (resources.h), or after GO with a helper.
	 * /proc/sys is read-only by then, so the directory is opened while the
	 * root is built. */
	_cleanup_close_ int sysuser = -1;
	if (mounts_build_root(p, sock, l, &sysuser, e) < 0)
		return -1;
	if (!net_host_wanted(p->cfg) && limits_mnt_namespaces(p->cfg, sysuser, e) < 0)
		return -1;
	log_debug("init: root built");
	if (net_jail_setup(p->cfg, p->broker != NULL, l->net.lo_up, sock, e) < 0)
		return -1;
	if (p->use_pty && open_pty(p, sock, slave, e) < 0)
		return -1;
	/* GO, read by the launcher's thread, which is armed with its filter
	 * (the supervisor sent GO before it waits for READY).  Before READY: an
	 * error of the thread's (its capabilities, the filter's load) then
	 * arrives in READY's place, where the supervisor reports it; after it,
	 * the supervisor reads nothing of init's but DONE. */
	if (launcher_wait_armed(l, e) < 0)
		return -1;
	log_debug("init: go");
	if (sync_send(sock, SYNC_READY, NULL, 0, -1, e) < 0)
		return -1;
	*ready = true;
	if (net_host_wanted(p->cfg) && limits_mnt_namespaces(p->cfg, sysuser, e) < 0)
		return -1;
	log_debug("init: namespace counts set");
	/* From here on nothing in the jail may open /proc/1/{exe,mem,environ}. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return jail_err_sys(e, "make init not dumpable");
	return 0;
}

static void attach_terminal(const int tty[3], int slave)
{
	if (slave < 0)
		return;
	if (ioctl(slave, TIOCSCTTY, 0) < 0)
		log_warn("make the pty the controlling terminal: %s", strerror(errno));
	for (int fd = 0; fd < 3; fd++)
		if (tty[fd] && dup2(slave, fd) < 0)
			log_warn("dup2 pty to fd %d: %s", fd, strerror(errno));
}

/* Enter the command's working directory (else the project's root), never
 * through a magic link, and only where it is reachable from the jail's root.
 * The path is the caller's, but its components are the agent's: a `sub ->
 * /proc/self/fd/7` it left in the session would lead a process of init, which
 * holds fds of host directories (the /etc snapshot), to a host directory, and
 * the agent could follow it there through /proc/PID/cwd.  So this runs after
 * the capabilities and every fd but 0-2 are gone, resolves with
 * RESOLVE_NO_MAGICLINKS, and checks that getcwd finds the directory below the
 * jail's root (a kernel without openat2, or any other way out, fails that). */
static int enter_dir(const char *dir)
{
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
	                       .resolve = RESOLVE_NO_MAGICLINKS};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int r = fchdir(fd);
	int err = errno;
	close(fd);
	errno = err;
	char where[PATH_MAX];
	if (r == 0 && (!getcwd(where, sizeof(where)) || where[0] != '/')) {
		errno = EXDEV;
		r = -1;
	}
	return r;
}

/* (In the agent's vfork child too: nothing is allocated unless it fails.) */
static int enter_cwd(const struct jail_plan *p, const char *cwd)
{
	if (enter_dir(cwd) == 0)
		return 0;
	if (errno == EXDEV || errno == ELOOP) {
		_cleanup_free_ char *esc = escape_name(cwd);
		log_warn("'%s' leads out of the jail in the session (a link through /proc?): "
		         "the command starts in the project's root", esc);
	}
	if (enter_dir(p->session->project) == 0)
		return 0;
	int err = errno;
	_cleanup_free_ char *esc = escape_name(cwd);
	log_error("chdir '%s' in the jail: %s", esc, strerror(err));
	return -1;
}

/* The launcher's child (launcher.h) comes with its thread's credentials and
 * filter: they are read back, and a child without them fails closed. */
static int check_armed(struct jail_err *e)
{
	if (caps_check_dropped(e) < 0)
		return -1;
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1 || prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 2)
		return jail_err_set(e, 0, "the command's process came without its syscall filter");
	return 0;
}

static int harden_and_exec(const struct jail_plan *p, struct sync_go *go, char *const *argv,
                           const char *cwd, enum command_origin origin)
{
	struct jail_err e = {0};
	bool joined = origin == COMMAND_JOINED;
	/* rlimits last: the memory limit (RLIMIT_DATA) would bound whatever runs
	 * before it (the child shares init's memory until its exec: nothing here
	 * allocates, the capability drop and the filter load included) */
	if ((origin == COMMAND_ARMED ? check_armed(&e) < 0
	                             : caps_drop_all(&e) < 0 || sysfilter_load(&go->filter, &e) < 0) ||
	    (joined && join_attach_filter(p->cfg, &e) < 0) ||
	    limits_apply_rlimits(p->cfg, go->cgroup_limits, go->default_nproc, &e) < 0) {
		log_error("%s", e.msg);
		return EXIT_JAIL_FAIL;
	}
	log_debug("init: hardened, exec");
	if (syscall(SYS_close_range, 3, ~0U, 0) < 0) {
		log_error("close inherited fds: %s", strerror(errno));
		return EXIT_JAIL_FAIL;
	}
	if (enter_cwd(p, cwd) < 0)
		return EXIT_JAIL_FAIL;
	environ = p->env.v;
	execvp(argv[0], argv);
	int err = errno;
	_cleanup_free_ char *cmd = escape_name(argv[0]);
	if (err == ENOENT) {
		bool own = !joined && p->notfound_hint;
		log_error("%s: command not found in the jail%s", cmd, own ? p->notfound_hint : "");
		return EXIT_NOT_FOUND;
	}
	log_error("%s: cannot run it: %s", cmd, strerror(err));
	return EXIT_CANNOT_EXEC;
}

void init_command(const struct jail_plan *p, struct sync_go *go, char *const *argv,
                  const char *cwd, int slave, const int tty[3], enum command_origin origin)
{
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (setsid() < 0)
		log_warn("setsid: %s", strerror(errno));
	attach_terminal(tty, slave);
	_exit(harden_and_exec(p, go, argv, cwd, origin));
}

/* init is a copy of the supervisor's memory, its command line included, and
 * /proc/1/cmdline shows that to anything in the jail (unlike environ, it
 * needs no ptrace access): every --secret's source (a brokered secret's
 * cmd:, which may hold a token, the paths of its files), every path and
 * option.  init needs none of it once the command's words are copied
 * (spawn_command), so the area is zeroed before the command starts, and
 * reads as nothing.  [arg_start, arg_end) are fields 48
 * and 49 of /proc/self/stat, the 46th and 47th after the name's ')'. */
static void wipe_own_args(void)
{
	char buf[1024];
	ssize_t n = -1;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n <= 0) {
		log_warn("read /proc/self/stat: %s; jail's command line stays readable inside",
		         n < 0 ? strerror(errno) : "empty");
		return;
	}
	buf[n] = '\0';
	char *s = strrchr(buf, ')');
	unsigned long long start = 0, end = 0;
	for (int field = 2; s && *s && field < 49; field++) {
		s = strchr(s + 1, ' ');
		if (s && field == 47)
			start = strtoull(s + 1, NULL, 10);
		if (s && field == 48)
			end = strtoull(s + 1, NULL, 10);
	}
	if (!start || end <= start || end - start > (64u << 20)) {
		log_warn("no argument area in /proc/self/stat; jail's command line stays readable inside");
		return;
	}
	explicit_bzero((void *)(uintptr_t)start, (size_t)(end - start));
}

/* The launcher's thread vforks the command (launcher.h): init's main thread
 * waits for its pid meanwhile, so nothing of init's runs beside the child
 * until its exec, and neither are init's page tables (a copy of the
 * supervisor's) copied nor does either side take copy-on-write faults after.
 * The child changes only what is its own (session, terminal, directory,
 * rlimits, fd table), and environ, which is set back here. */
static pid_t spawn_command(const struct jail_plan *p, struct launcher *l, int slave,
                           struct jail_err *e)
{
	/* the command's words, copied: their strings are in the area
	 * wipe_own_args zeroes before the command can read /proc/1/cmdline */
	struct strv argv = {0};
	for (char *const *a = p->cfg->argv; a && *a; a++)
		strv_push(&argv, *a);
	wipe_own_args();
	char **own_env = environ;
	pid_t cmd = launcher_spawn(l, argv.v, slave, e);
	environ = own_env;
	strv_free(&argv);
	return cmd;
}

/* Init's exit takes the jail's namespaces and mounts down: a millisecond or
 * two of CPU, which on two cores came out of the supervisor's last steps
 * (its export's check, its own exit).  When nothing waits for this exit (the
 * view's server holds the session until the mounts are gone; no cgroup is
 * to be removed), init lets the supervisor finish first: its death kills
 * init (PR_SET_PDEATHSIG), and the teardown comes after.  20 ms at most: a
 * supervisor that exports a big change meanwhile does not hold the jail's
 * tmpfs memory for as long as that takes. */
static void outlive_briefly(const struct jail_plan *p, const struct sync_go *go)
{
	if (!p->hidefs || go->cgroup_limits)
		return;
	struct timespec wait = {0, 20 * 1000 * 1000};
	while (nanosleep(&wait, &wait) < 0 && errno == EINTR)
		;
}

static int status_to_exit(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_JAIL_FAIL;
}

/* A `jail exec` connection from the supervisor; -1 once it closed (the
 * socket itself stays open: init_main reports on it at the end). */
static int take_join(const struct jail_plan *p, struct sync_go *go, int sock)
{
	struct jail_err e;
	int conn = -1;
	if (sync_recv(sock, SYNC_EXEC, NULL, NULL, &conn, &e) < 0) {
		shutdown(sock, SHUT_RD);
		return -1;
	}
	if (conn >= 0)
		join_init_request(p, go, conn);
	return sock;
}

/* Reap until the command is gone, then kill the rest and reap them too.  Until
 * then, start what `jail exec` asks for. */
static int reap_loop(const struct jail_plan *p, struct sync_go *go, pid_t cmd, int sigfd,
                     int sock)
{
	int exit_code = -1;
	for (;;) {
		struct pollfd fds[2 + JOIN_MAX] = {{sigfd, POLLIN, 0}, {sock, POLLIN, 0}};
		size_t n = join_init_pollfds(fds + 2);
		if (poll(fds, 2 + n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return EXIT_JAIL_FAIL;
		}
		if (fds[1].revents)
			sock = take_join(p, go, sock);
		join_init_events(fds + 2, n);
		if (!(fds[0].revents & POLLIN))
			continue;
		struct signalfd_siginfo si;
		ssize_t r = read(sigfd, &si, sizeof(si));
		if (r < 0 && errno == EINTR)
			continue;
		if (r != sizeof(si))
			return EXIT_JAIL_FAIL;
		if (si.ssi_signo != SIGCHLD) {
			kill(-cmd, (int)si.ssi_signo);
			continue;
		}
		int status;
		pid_t w;
		while ((w = waitpid(-1, &status, WNOHANG)) > 0) {
			if (w == cmd) {
				exit_code = status_to_exit(status);
				/* nothing outlives the command; no `jail exec` starts now
				 * (the supervisor's sends fail), and the socket stays for
				 * SYNC_DONE */
				kill(-1, SIGKILL);
				if (sock >= 0)
					shutdown(sock, SHUT_RD);
				sock = -1;
			} else {
				join_init_reaped(w, status);
			}
		}
		if (w < 0 && errno == ECHILD && exit_code >= 0) {
			log_debug("init: command done");
			return exit_code;
		}
	}
}

/* An error of init's goes to the supervisor, which reports it in place of
 * READY; once READY is out it reads nothing of init's but DONE, so init
 * says it itself (its stderr is the jail's, the user's), as the command's
 * process does its own errors. */
static void report_failure(int sock, bool ready_sent, const struct jail_err *e)
{
	if (ready_sent)
		log_error("%s", e->msg);
	sync_send_error(sock, e);
}

int init_main(const struct jail_plan *p, int sock)
{
	struct jail_err e = {0};
	int slave = -1;
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	/* the session's lock is the supervisor's: held here, it would outlast
	 * the supervisor by init's exit, and a run right after would find the
	 * session busy */
	if (p->session->lockfd >= 0)
		close(p->session->lockfd);
	/* our own session: the host terminal's signals reach the supervisor only,
	 * and it forwards them once */
	setsid();
	if (write_id_maps(p, &e) < 0 || sync_send(sock, SYNC_MAPS_DONE, NULL, 0, -1, &e) < 0) {
		sync_send_error(sock, &e);
		return EXIT_JAIL_FAIL;
	}
	/* before the launcher's thread starts, which takes init's credentials as
	 * they are then */
	if (keyring_detach(&e) < 0) {
		sync_send_error(sock, &e);
		return EXIT_JAIL_FAIL;
	}
	/* the network namespace and the command's credentials and filter are
	 * made beside the root's build (launcher.h); any error ends init, its
	 * thread with it.  static: a few KiB, and init has one of each */
	static struct sync_go go;
	static struct launcher launcher;
	if (launcher_start(&launcher, p, sock, &go, &e) < 0) {
		sync_send_error(sock, &e);
		return EXIT_JAIL_FAIL;
	}
	bool ready = false;
	if (setup_jail(p, &launcher, sock, &slave, &ready, &e) < 0) {
		report_failure(sock, ready, &e);
		return EXIT_JAIL_FAIL;
	}
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	for (size_t i = 0; i < ARRAY_SIZE(forwarded); i++)
		sigaddset(&mask, forwarded[i]);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	int sigfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sigfd < 0) {
		jail_err_sys(&e, "signalfd in init");
		report_failure(sock, true, &e);
		return EXIT_JAIL_FAIL;
	}
	pid_t cmd = spawn_command(p, &launcher, slave, &e);
	if (cmd < 0) {
		report_failure(sock, true, &e);
		return EXIT_JAIL_FAIL;
	}
	if (slave >= 0)
		close(slave);
	/* the socket stays: the supervisor hands `jail exec` connections over it */
	int code = reap_loop(p, &go, cmd, sigfd, sock);
	/* init's own stdio (the relay's pipes, stdiorelay.h) is closed before
	 * DONE: the copiers then see the end of the output when the command's
	 * copies are gone, not after init's exit has torn its memory down */
	syscall(SYS_close_range, 0, 2, 0);
	/* Nothing of the jail runs any more and nothing holds the upper dir: the
	 * supervisor may go on (export, exit) while this exit takes the
	 * namespaces down (a few ms of mounts and the network namespace). */
	struct jail_err ignored;
	if (sync_send(sock, SYNC_DONE, &code, sizeof(code), -1, &ignored) < 0) {
		/* the supervisor then waits for this exit, as it always could */
		return code;
	}
	outlive_briefly(p, &go);
	return code;
}
