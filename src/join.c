/* join.c — `jail exec`: the supervisor's listener, init's side, the client. */
#include "join.h"

#include "commands.h"
#include "hints.h"
#include "init.h"
#include "live.h"
#include "log.h"
#include "pty.h"
#include "stdiorelay.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <termios.h>

#define JOIN_MAGIC 0x6a6f696eu
#define JOIN_REQ_MAX 65536
#define PTRACE_ATTACH_REQ 16
#define PTRACE_SEIZE_REQ 0x4206

/* client → init: this header, then argc NUL-terminated words and the working
 * directory; the stdio fds that are not terminals ride along (SCM_RIGHTS). */
struct join_req {
	uint32_t magic, tty_mask, argc, len;
	uint16_t rows, cols;
};

/* init (or the supervisor) → client */
enum { JOIN_PTY = 1, JOIN_EXIT, JOIN_ERROR };
struct join_msg {
	uint32_t type;
	int32_t value;
	char text[400];
};

static int send_fds(int sock, const void *data, size_t len, const int *fds, size_t nfds)
{
	struct iovec iov = {(void *)(uintptr_t)data, len};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	char cbuf[CMSG_SPACE(3 * sizeof(int))];
	if (nfds) {
		memset(cbuf, 0, sizeof(cbuf));
		m.msg_control = cbuf;
		m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	ssize_t r;
	do
		r = sendmsg(sock, &m, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -1 : 0;
}

/* One message; its fds (up to 3) into fds[], the rest closed.  Returns the
 * bytes received, 0 at EOF, -1 on error. */
static ssize_t recv_fds(int sock, void *data, size_t len, int *fds, size_t *nfds)
{
	struct iovec iov = {data, len};
	char cbuf[CMSG_SPACE(3 * sizeof(int))];
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
	                   .msg_controllen = sizeof(cbuf)};
	ssize_t r;
	do
		r = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	size_t got = 0;
	for (struct cmsghdr *c = r >= 0 ? CMSG_FIRSTHDR(&m) : NULL; c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (got < 3)
				fds[got++] = fd;
			else
				close(fd);
		}
	}
	*nfds = got;
	return r;
}

static void send_msg(int conn, int type, int value, int fd, const char *text)
{
	struct join_msg m = {.type = (uint32_t)type, .value = value};
	if (text)
		snprintf(m.text, sizeof(m.text), "%s", text);
	send_fds(conn, &m, sizeof(m), &fd, fd >= 0 ? 1 : 0);
}

/* ---- the supervisor ---------------------------------------------------- */

struct join_server {
	int listen_fd, sync_sock, dir_fd;
	pthread_t thread;
	bool serving;
	bool tried;  /* serve was called: the thread runs, or could not start */
};

/* Refuse a connection with one line.  The client sends its request right
 * after connect: it is read first and dropped (its fds with it, never
 * installed here: no control buffer), because closing a socket with unread
 * data resets the peer, and the reset would hide the line from it. */
static void refuse(int c, const char *why)
{
	struct pollfd p = {c, POLLIN, 0};
	char b;
	struct iovec iov = {&b, 1};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	if (poll(&p, 1, 500) > 0)
		(void)recvmsg(c, &m, MSG_DONTWAIT | MSG_TRUNC);
	send_msg(c, JOIN_ERROR, 0, -1, why);
}

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

/* Is the peer (pid from SO_PEERCRED) in our own user namespace?  A process
 * in any jail is not: every jail has a user namespace of its own, and an agent
 * must never start commands in a jail (its own or another of the user's, with
 * a wider policy), even when a bind (`--ro ~/.local`) shows it the socket.
 * The uid alone cannot tell: a jail maps the user's uid to itself.  With
 * SO_PEERPIDFD the peer is known to be alive after the look, so its pid was
 * not reused in between; without it (kernels before 6.5) the look is as of
 * now.  Fails closed: a namespace it cannot read is not ours. */
static bool peer_in_our_userns(int c, pid_t pid)
{
	struct stat ours, theirs;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	if (pid <= 0 || stat("/proc/self/ns/user", &ours) < 0 || stat(path, &theirs) < 0)
		return false;
	if (ours.st_dev != theirs.st_dev || ours.st_ino != theirs.st_ino)
		return false;
	int pidfd = -1;
	socklen_t l = sizeof(pidfd);
	if (getsockopt(c, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &l) < 0 || pidfd < 0)
		return errno == ENOPROTOOPT;
	bool alive = syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
	close(pidfd);
	return alive;
}

/* Every connection's peer must be the caller's own uid (SO_PEERCRED, which
 * the kernel fills at connect): the session dir is 0700 and the socket 0600
 * already; this holds even if someone loosened them.  And it must be outside
 * every jail (peer_in_our_userns). */
static void *server_main(void *arg)
{
	struct join_server *srv = arg;
	for (;;) {
		int c = accept4(srv->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0 && (errno == EINTR || errno == ECONNABORTED))
			continue;
		if (c < 0)
			return NULL;  /* shut down: the jail ends */
		struct ucred cr;
		socklen_t l = sizeof(cr);
		struct jail_err e;
		if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &l) < 0 || cr.uid != getuid())
			refuse(c, "this session belongs to another user");
		else if (!peer_in_our_userns(c, cr.pid))
			refuse(c, "jail exec is refused from inside a jail (or any user namespace but the "
			          "one the jail was started in: run it there)");
		else if (sync_send(srv->sync_sock, SYNC_EXEC, NULL, 0, c, &e) < 0)
			refuse(c, "the jail is ending");
		close(c);
	}
}

/* A path for bind/connect that fits sun_path whatever the state dir's length. */
static void sock_addr(int dir_fd, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	snprintf(sa->sun_path, sizeof(sa->sun_path), "/proc/self/fd/%d/exec.sock", dir_fd);
}

int join_server_listen(const struct session *s, int sync_sock, struct join_server **out,
                       struct jail_err *e)
{
	struct join_server *srv = xcalloc(1, sizeof(*srv));
	srv->sync_sock = sync_sock;
	srv->dir_fd = open(s->dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	srv->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa;
	sock_addr(srv->dir_fd, &sa);
	int r = srv->dir_fd < 0 || srv->listen_fd < 0 ? -1 : 0;
	if (r == 0) {
		unlinkat(srv->dir_fd, "exec.sock", 0);  /* a crashed run's */
		mode_t old = umask(0177);
		r = bind(srv->listen_fd, (struct sockaddr *)&sa, sizeof(sa));
		umask(old);
	}
	if (r == 0)
		r = listen(srv->listen_fd, 8);
	if (r != 0) {
		jail_err_sys(e, "listen for jail exec in '%s'", s->dir);
		if (srv->listen_fd >= 0)
			close(srv->listen_fd);
		if (srv->dir_fd >= 0)
			close(srv->dir_fd);
		free(srv);
		return -1;
	}
	*out = srv;
	return 0;
}

int join_server_fd(const struct join_server *srv)
{
	return srv && !srv->tried ? srv->listen_fd : -1;
}

void join_server_serve(struct join_server *srv)
{
	if (!srv || srv->tried)
		return;
	srv->tried = true;
	int r = pthread_create(&srv->thread, NULL, server_main, srv);
	if (r != 0)
		log_warn("jail exec will not reach this jail: start its thread: %s", strerror(r));
	else
		srv->serving = true;
}

void join_server_stop(struct join_server *srv)
{
	if (!srv)
		return;
	unlinkat(srv->dir_fd, "exec.sock", 0);
	shutdown(srv->listen_fd, SHUT_RDWR);  /* wakes accept() */
	if (srv->serving)
		pthread_join(srv->thread, NULL);
	close(srv->listen_fd);
	close(srv->dir_fd);
	free(srv);
}

/* ---- init --------------------------------------------------------------- */

static struct {
	pid_t pid;
	int conn;
} joined[JOIN_MAX];

/* The jail's /dev is a tmpfs of the agent's uid: its /dev/ptmx (a link to
 * pts/ptmx) is the agent's to replace, with a link that would have init, with
 * its capabilities, open whatever the agent names.  devpts itself holds only
 * what the kernel makes, and /dev/pts is a mount point it cannot move: the
 * multiplexer is opened there, through no link at all. */
static int open_ptmx(void)
{
	struct open_how how = {.flags = O_RDWR | O_NOCTTY | O_CLOEXEC,
	                       .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, "/dev/pts/ptmx", &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		fd = open("/dev/pts/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);
	return fd;
}

static int open_pty_pair(int *master, int *slave, uint16_t rows, uint16_t cols)
{
	*master = open_ptmx();
	int unlock = 0;
	if (*master < 0 || ioctl(*master, TIOCSPTLCK, &unlock) < 0)
		return -1;
	*slave = ioctl(*master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*slave < 0)
		return -1;
	struct winsize ws = {.ws_row = rows, .ws_col = cols};
	if (rows && cols)
		ioctl(*master, TIOCSWINSZ, &ws);
	return 0;
}

/* Split the request's words: argv (NULL-terminated) and the working dir. */
static char **parse_request(char *buf, size_t n, const struct join_req *h, char **cwd)
{
	if (h->magic != JOIN_MAGIC || h->argc == 0 || h->argc > 4096 ||
	    h->len != n - sizeof(*h) || n <= sizeof(*h) || buf[n - 1] != '\0')
		return NULL;
	char **argv = xcalloc(h->argc + 1, sizeof(char *));
	char *p = buf + sizeof(*h), *end = buf + n;
	for (uint32_t i = 0; i <= h->argc; i++) {
		if (p >= end) {
			free(argv);
			return NULL;
		}
		if (i < h->argc)
			argv[i] = p;
		else
			*cwd = p;
		p += strlen(p) + 1;
	}
	return argv;
}

/* Signals init ignores are ignored since the jail started: its own caller's
 * (`nohup jail ...`, a `&` in a script ignores SIGINT and SIGQUIT), which a
 * joined command, another caller's, must not inherit.  A SIGHUP ignored would
 * keep it running after its client went (join_init_events), ^C on its pty
 * would not reach it. */
static void default_signals(void)
{
	/* the system call, not sigaction(3): glibc refuses 32 and 33 (its own),
	 * and a caller's ignore of them goes through exec like any other.
	 * SIG_DFL with no flags and an empty mask is the kernel's struct all
	 * zero, whatever its layout on this architecture. */
	unsigned long dfl[4] = {0};
	for (int sig = 1; sig < _NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			syscall(SYS_rt_sigaction, sig, dfl, NULL, _NSIG / 8);
}

/* In the forked child: default signals, the passed fds onto 0-2, then the
 * command. */
static void joined_child(const struct jail_plan *p, struct sync_go *go, char **argv,
                         const char *cwd, int slave, const int tty[3], const int *fds)
{
	default_signals();
	size_t k = 0;
	for (int fd = 0; fd < 3; fd++) {
		if (tty[fd])
			continue;
		int from = fds[k++];
		if (from < 0)
			from = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (from < 0 || dup2(from, fd) < 0)
			_exit(EXIT_JAIL_FAIL);
	}
	init_command(p, go, argv, cwd, slave, tty, COMMAND_JOINED);
}

static void start_joined(const struct jail_plan *p, struct sync_go *go, int conn, char *buf,
                         size_t n, int *fds, size_t nfds)
{
	struct join_req h;
	memcpy(&h, buf, sizeof(h));
	char *cwd = NULL;
	_cleanup_free_ char **argv = parse_request(buf, n, &h, &cwd);
	int tty[3] = {h.tty_mask & 1, (h.tty_mask >> 1) & 1, (h.tty_mask >> 2) & 1};
	int slots = 0;
	for (size_t i = 0; i < JOIN_MAX; i++)
		slots += joined[i].pid == 0;
	if (!argv || nfds != (size_t)(3 - tty[0] - tty[1] - tty[2]) || !slots) {
		send_msg(conn, JOIN_ERROR, 0, -1, slots ? "bad request" : "too many joined commands");
		return;
	}
	_cleanup_close_ int master = -1, slave = -1;
	if (h.tty_mask && open_pty_pair(&master, &slave, h.rows, h.cols) < 0) {
		send_msg(conn, JOIN_ERROR, 0, -1, "cannot open a pty in the jail");
		return;
	}
	pid_t pid = fork();
	if (pid == 0)
		joined_child(p, go, argv, cwd, slave, tty, fds);
	if (pid < 0) {
		send_msg(conn, JOIN_ERROR, 0, -1, "cannot fork in the jail");
		return;
	}
	for (size_t i = 0; i < JOIN_MAX; i++)
		if (joined[i].pid == 0) {
			joined[i].pid = pid;
			joined[i].conn = fcntl(conn, F_DUPFD_CLOEXEC, 3);
			break;
		}
	if (master >= 0)
		send_msg(conn, JOIN_PTY, 0, master, NULL);
}

void join_init_request(const struct jail_plan *p, struct sync_go *go, int conn)
{
	/* the client sent its request right after connect: never wait long */
	struct timeval tv = {.tv_sec = 5};
	setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	_cleanup_free_ char *buf = xcalloc(1, JOIN_REQ_MAX);
	int fds[3] = {-1, -1, -1};
	size_t nfds = 0;
	ssize_t n = recv_fds(conn, buf, JOIN_REQ_MAX, fds, &nfds);
	if (n >= (ssize_t)sizeof(struct join_req))
		start_joined(p, go, conn, buf, (size_t)n, fds, nfds);
	for (size_t i = 0; i < nfds; i++)
		close(fds[i]);
	close(conn);
}

bool join_init_reaped(pid_t pid, int status)
{
	for (size_t i = 0; i < JOIN_MAX; i++) {
		if (joined[i].pid != pid)
			continue;
		int code = WIFEXITED(status) ? WEXITSTATUS(status)
		           : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : EXIT_JAIL_FAIL;
		if (joined[i].conn >= 0) {
			send_msg(joined[i].conn, JOIN_EXIT, code, -1, NULL);
			close(joined[i].conn);
		}
		joined[i].pid = 0;
		joined[i].conn = -1;
		return true;
	}
	return false;
}

size_t join_init_pollfds(struct pollfd *fds)
{
	for (size_t i = 0; i < JOIN_MAX; i++)
		fds[i] = (struct pollfd){joined[i].pid ? joined[i].conn : -1, POLLIN, 0};
	return JOIN_MAX;
}

/* The client went away (killed, ^C without a terminal): so does its command. */
void join_init_events(const struct pollfd *fds, size_t n)
{
	for (size_t i = 0; i < n && i < JOIN_MAX; i++) {
		if (!fds[i].revents || fds[i].fd < 0)
			continue;
		char b;
		if (recv(fds[i].fd, &b, 1, MSG_DONTWAIT) > 0)
			continue;
		kill(-joined[i].pid, SIGHUP);
		close(joined[i].conn);
		joined[i].conn = -1;
	}
}

/* ---- the joined command's extra filter ---------------------------------- */

int join_attach_filter(const struct jail_config *cfg, struct jail_err *e)
{
	if (strv_contains(&cfg->syscalls_allow, "ptrace"))
		return 0;
	/* the first filter already killed foreign architectures */
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 6, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_writev, 5, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_getfd, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ptrace, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PTRACE_ATTACH_REQ, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PTRACE_SEIZE_REQ, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {ARRAY_SIZE(insns), insns};
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		return jail_err_sys(e, "load the joined command's seccomp layer");
	return 0;
}

/* ---- the client: jail exec ---------------------------------------------- */

static int build_request(char *const *argv, const char *cwd, int tty_mask, struct strbuf *b)
{
	struct join_req h = {.magic = JOIN_MAGIC, .tty_mask = (uint32_t)tty_mask};
	struct winsize ws;
	for (int fd = 0; fd < 3; fd++)
		if (((tty_mask >> fd) & 1) && ioctl(fd, TIOCGWINSZ, &ws) == 0) {
			h.rows = ws.ws_row;
			h.cols = ws.ws_col;
			break;
		}
	struct strbuf words = {0};
	for (; argv[h.argc]; h.argc++)
		sb_append(&words, argv[h.argc], strlen(argv[h.argc]) + 1);
	sb_append(&words, cwd, strlen(cwd) + 1);
	h.len = (uint32_t)words.len;
	sb_append(b, (const char *)&h, sizeof(h));
	sb_append(b, words.s, words.len);
	sb_free(&words);
	return b->len <= JOIN_REQ_MAX ? 0 : -1;
}

static int join_connect(const struct session *s, struct jail_err *e)
{
	_cleanup_close_ int dir = open(s->dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa;
	sock_addr(dir, &sa);
	if (dir < 0 || fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		return jail_err_set(e, err, "connect to session '%s' for jail exec", s->name);
	}
	return fd;
}

/* The answers, to the command's exit status. */
static int join_answers(int conn, const int tty[3], int r, struct jail_err *e)
{
	while (r == 0) {
		struct join_msg m;
		int got[3];
		size_t ngot = 0;
		ssize_t n = recv_fds(conn, &m, sizeof(m), got, &ngot);
		if (n != (ssize_t)sizeof(m))
			return jail_err_set(e, 0, "the jail ended before the command did");
		m.text[sizeof(m.text) - 1] = '\0';
		if (m.type == JOIN_ERROR)
			return jail_err_set(e, 0, "jail exec: %s", m.text);
		if (m.type == JOIN_EXIT)
			return m.value;
		if (m.type == JOIN_PTY && ngot == 1) {
			r = pty_relay_join(got[0], conn, tty, e);
			close(got[0]);
		}
	}
	return -1;
}

/* How long jail exec waits, after the command's exit, for what it wrote to be
 * copied out (a background child of it may hold its stdout on). */
#define EXEC_DRAIN_MS 2000

/* Send the request, then follow the answers to the command's exit status.
 * A file as our stdio goes in as a pipe (stdiorelay.h). */
static int join_talk(int conn, char *const *argv, const char *cwd, struct jail_err *e)
{
	int tty[3], tty_mask = 0, fds[3], jail_fds[3];
	size_t nfds = 0;
	struct stdio_relay *relay;
	if (stdio_relay_prepare(&relay, jail_fds, e) < 0)
		return -1;
	for (int fd = 0; fd < 3; fd++) {
		tty[fd] = isatty(fd);
		tty_mask |= tty[fd] << fd;
		/* a terminal never enters the jail: a new pty stands in for it */
		if (!tty[fd])
			fds[nfds++] = fcntl(fd, F_GETFD) < 0 ? open("/dev/null", O_RDWR | O_CLOEXEC)
			                                     : jail_fds[fd];
	}
	struct strbuf req = {0};
	int r = build_request(argv, cwd, tty_mask, &req);
	if (r < 0)
		jail_err_set(e, E2BIG, "jail exec: the command line is too long");
	else if (send_fds(conn, req.s, req.len, fds, nfds) < 0 && errno != EPIPE &&
	         errno != ECONNRESET)
		r = jail_err_sys(e, "send the jail exec request");
	/* refused before the request went out: the refusal is there to read */
	sb_free(&req);
	if (r == 0)
		r = stdio_relay_start(relay, e);
	r = join_answers(conn, tty, r, e);
	stdio_relay_finish(relay, r >= 0 ? EXEC_DRAIN_MS : 0);
	return r;
}

int cmd_exec(struct cli *c)
{
	struct jail_err e = {0};
	struct session s;
	if (session_resolve(&s, c->cfg.project, c->cfg.session, &e) < 0) {
		log_error("%s", e.msg);
		return EXIT_JAIL_FAIL;
	}
	struct live_info li;
	int rc = EXIT_JAIL_FAIL;
	_cleanup_free_ char *pesc = escape_name(s.project);
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	size_t pl = strlen(s.project);
	/* inside the project the command starts where the caller is, as a run does */
	const char *where = cwd && strncmp(cwd, s.project, pl) == 0 &&
	                    (cwd[pl] == '/' || !cwd[pl]) ? cwd : s.project;
	if (!live_get(s.dir, &li)) {
		_cleanup_free_ char *hint = hint_session_in_repo(s.project);
		_cleanup_free_ char *line = hint_jail_line(NULL, s.project, s.name, "-- COMMAND");
		log_error("session '%s' of %s is not running; start a command in it with "
		          "%s%s", s.name, pesc, line, hint);
	} else {
		_cleanup_close_ int conn = join_connect(&s, &e);
		int r = conn < 0 ? -1 : join_talk(conn, c->cfg.argv, where, &e);
		if (r < 0)
			log_error("%s", e.msg);
		else
			rc = r;
	}
	live_info_free(&li);
	session_free(&s);
	return rc;
}
