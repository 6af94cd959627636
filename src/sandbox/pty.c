/* pty.c — relay between the host terminal and the jail's pty.
 *
 * The host terminal's fd never enters the jail: the command gets the slave of a
 * pty from the jail's own devpts, and everything it prints passes through
 * term_filter_run before it reaches the host terminal.  Input waits in a bounded
 * buffer: when the command does not read, the relay stops reading the host.
 * When the jail ends, the modes its output turned on are turned off again
 * (term_filter_reset): after the agent exits or is killed, from a handler
 * when the supervisor itself crashes, and from a keeper process
 * (termkeeper.h) when the supervisor is killed outright (SIGKILL, the OOM
 * killer). */
#include "pty.h"

#include "log.h"
#include "sync.h"
#include "termfilter.h"
#include "termkeeper.h"

#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>

#define WINSIZE_MAX 2000 /* rows and columns; anything larger is a lie */

struct relay {
	int in;        /* host stdin when it is a terminal, else -1 */
	int out;       /* host terminal fd that shows the jail's output */
	int master;
	char pending[4096];
	size_t npending;
	struct term_filter *filter; /* the keeper's shared one, or &own */
	struct term_filter own;      /* when no keeper could start */
	struct term_keeper keeper;
	bool init_done, master_done;
};

static struct termios saved_termios;
static bool termios_saved;
/* For the crash handler: the running relay (its filter, where it writes). */
static const struct relay *crash_relay;

/* Write what puts the host terminal back: async-signal-safe. */
static void write_reset(int fd, const struct term_filter *f)
{
	char buf[TERM_RESET_MAX];
	size_t n = term_filter_reset(f, buf);
	if (n && write(fd, buf, n) < 0)
		return; /* the terminal is gone: nothing to put back */
}

static void on_crash(int sig)
{
	if (crash_relay)
		write_reset(crash_relay->out, crash_relay->filter);
	if (termios_saved)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_termios);
	if (crash_relay)
		term_keeper_release(&crash_relay->keeper); /* done here: once is enough */
	raise(sig); /* SA_RESETHAND: the default action, once the handler returns */
}

static void catch_crashes(const struct relay *r)
{
	static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
	struct sigaction sa = {.sa_handler = on_crash, .sa_flags = (int)SA_RESETHAND};
	sigemptyset(&sa.sa_mask);
	crash_relay = r;
	for (size_t i = 0; i < ARRAY_SIZE(fatal); i++)
		sigaction(fatal[i], &sa, NULL);
}

static void restore_terminal(void)
{
	if (termios_saved) {
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_termios);
		termios_saved = false;
	}
}

static int raw_mode(struct jail_err *e)
{
	if (tcgetattr(STDIN_FILENO, &saved_termios) < 0)
		return jail_err_sys(e, "read terminal settings");
	struct termios raw = saved_termios;
	cfmakeraw(&raw);
	termios_saved = true;
	atexit(restore_terminal);
	if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) < 0)
		return jail_err_sys(e, "set the terminal to raw mode");
	return 0;
}

/* Do in and out name the same terminal? */
static bool same_tty(int in, int out)
{
	struct stat a, b;
	return fstat(in, &a) == 0 && fstat(out, &b) == 0 && S_ISCHR(a.st_mode) &&
	       a.st_rdev == b.st_rdev;
}

/* The relay starts: its filter is shared with a keeper when one can start
 * (after raw mode: the keeper puts the saved settings back). */
static void start_keeper(struct relay *r, bool eight_bit)
{
	struct jail_err e;
	r->filter = &r->own;
	if (term_keeper_start(&r->keeper, r->out, termios_saved ? &saved_termios : NULL, &e) < 0)
		log_debug("no terminal keeper: %s", e.msg);
	else
		r->filter = r->keeper.filter;
	r->filter->eight_bit = eight_bit;
	/* what the terminal sends is relayed only from stdin, when it is the
	 * terminal that shows the output */
	r->filter->no_input = r->in < 0 || !same_tty(r->in, r->out);
}

/* One byte of what the terminal sent: true when it ends the answer to DA1
 * (ESC [ ? digits and ';' c).  *st is where the match stands. */
static bool da1_step(int *st, unsigned char c)
{
	static const char lead[] = "\x1b[?";
	if (*st < 3) {
		*st = c == (unsigned char)lead[*st] ? *st + 1 : c == 0x1b;
		return false;
	}
	if ((c >= '0' && c <= '9') || c == ';')
		return false;
	if (c == 'c')
		return true;
	*st = c == 0x1b;
	return false;
}

/* A report the terminal sent before it read the reset (a mouse move, the
 * focus report tmux sends as soon as 1004 is set) may arrive after the
 * relay stopped reading: the flush of the input at the end missed it, and
 * the next program (the user's shell) read it as typed.  So when a
 * reporting mode passed, ask for the device attributes after the reset and
 * read what comes until their answer: terminals answer in order, so every
 * report sent before is read here.  Bounded: a terminal that does not
 * answer costs FENCE_MS once. */
#define FENCE_MS 1000

static void fence_reports(const struct relay *r)
{
	if (r->in < 0 || !termios_saved || !r->filter->modes.reports || !same_tty(r->in, r->out) ||
	    write_all(r->out, "\x1b[c", 3) < 0)
		return;
	double end = mono_ms() + FENCE_MS;
	int st = 0;
	for (;;) {
		double left = end - mono_ms();
		struct pollfd p = {r->in, POLLIN, 0};
		int k = left > 0 ? poll(&p, 1, (int)left + 1) : 0;
		if (k < 0 && errno == EINTR)
			continue;
		char buf[256];
		ssize_t n = k > 0 ? read(r->in, buf, sizeof(buf)) : 0;
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		for (ssize_t i = 0; i < n; i++)
			if (da1_step(&st, (unsigned char)buf[i]))
				return;
		if (n <= 0)
			return; /* timed out, or the terminal is gone */
	}
}

/* The relay ends: put the terminal back, and leave the crash path. */
static void end_relay(struct relay *r)
{
	write_reset(r->out, r->filter);
	fence_reports(r);
	restore_terminal();
	crash_relay = NULL;
	r->filter = &r->own; /* the keeper's goes with it */
	term_keeper_stop(&r->keeper);
}

static bool read_winsize(int from, struct winsize *ws)
{
	if (ioctl(from, TIOCGWINSZ, ws) < 0)
		return false;
	if (ws->ws_row > WINSIZE_MAX)
		ws->ws_row = WINSIZE_MAX;
	if (ws->ws_col > WINSIZE_MAX)
		ws->ws_col = WINSIZE_MAX;
	return true;
}

bool pty_host_winsize(const int tty_fds[3], struct winsize *ws)
{
	/* as the relay reads it: stdin when it is the terminal, else the output */
	return read_winsize(tty_fds[0] ? STDIN_FILENO : tty_fds[1] ? STDOUT_FILENO : STDERR_FILENO, ws);
}

static void copy_winsize(const struct relay *r)
{
	struct winsize ws;
	if (read_winsize(r->in >= 0 ? r->in : r->out, &ws))
		ioctl(r->master, TIOCSWINSZ, &ws);
}

/* Read what the jail printed and show it, filtered.  Returns false at EOF/EIO. */
static bool pump_output(struct relay *r)
{
	char buf[8192], out[8192 + sizeof(r->filter->hold)];
	ssize_t n = read(r->master, buf, sizeof(buf));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (n <= 0)
		return false; /* EIO: every slave fd is closed */
	size_t m = term_filter_run(r->filter, buf, (size_t)n, out);
	if (write_all(r->out, out, m) < 0)
		return false;
	return true;
}

static void pump_input(struct relay *r)
{
	if (r->npending == 0) {
		ssize_t n = read(r->in, r->pending, sizeof(r->pending));
		if (n <= 0) {
			if (n == 0 || errno != EINTR)
				r->in = -1; /* host stdin closed: stop reading it */
			return;
		}
		r->npending = (size_t)n;
	}
	ssize_t w = write(r->master, r->pending, r->npending);
	if (w > 0) {
		memmove(r->pending, r->pending + w, r->npending - (size_t)w);
		r->npending -= (size_t)w;
	}
}

/* One round of the relay: fds[1] is the master, fds[2] the user's terminal. */
static void pump(struct relay *r, const struct pollfd *fds)
{
	if (fds[1].revents & POLLIN)
		r->master_done = !pump_output(r);
	else if (fds[1].revents & (POLLHUP | POLLERR))
		r->master_done = true;
	if ((fds[1].revents & POLLOUT) || (fds[2].revents & (POLLIN | POLLHUP)))
		pump_input(r);
}

/* A signal for the supervisor: returns true when init has exited. */
static bool handle_signal(struct relay *r, pid_t init_pid, int sigfd, struct jail_end *end)
{
	struct signalfd_siginfo si;
	if (read(sigfd, &si, sizeof(si)) != sizeof(si))
		return false;
	if (si.ssi_signo == SIGCHLD)
		return (end->reaped = waitpid(init_pid, &end->status, WNOHANG) == init_pid);
	if (si.ssi_signo == SIGWINCH && r)
		copy_winsize(r);
	else
		kill(init_pid, (int)si.ssi_signo);
	return false;
}

/* Init's SYNC_DONE: the command and everything else in the jail are gone,
 * init's exit (its namespaces' teardown, milliseconds) need not be waited
 * for.  A closed or odd socket: back to waiting for init itself. */
static bool handle_done(int *sock, struct jail_end *end)
{
	int code = 0;
	size_t len = sizeof(code);
	struct jail_err e;
	if (sync_recv(*sock, SYNC_DONE, &code, &len, NULL, &e) < 0 || len != sizeof(code) ||
	    code < 0 || code > 255) {
		*sock = -1;
		return false;
	}
	end->status = code << 8; /* as waitpid reports an exit with that code */
	end->reaped = false;
	return true;
}

static void drain_output(struct relay *r)
{
	while (pump_output(r))
		;
}

int pty_relay(const struct jail_plan *p, int master, pid_t init_pid, int sigfd, int sock,
              struct join_server *joins, struct jail_end *end, struct jail_err *e)
{
	struct relay r = {.in = p->tty_fds[0] ? STDIN_FILENO : -1, .master = master};
	r.out = p->tty_fds[1] ? STDOUT_FILENO : STDERR_FILENO;
	if (fcntl(master, F_SETFL, O_NONBLOCK) < 0)
		return jail_err_sys(e, "make the pty master non-blocking");
	copy_winsize(&r);
	if (r.in >= 0 && raw_mode(e) < 0)
		return -1;
	start_keeper(&r, terminal_eight_bit());
	catch_crashes(&r);
	bool done = false;
	while (!done) {
		struct pollfd fds[5] = {
			{sigfd, POLLIN, 0},
			{r.master_done ? -1 : master, (short)(POLLIN | (r.npending ? POLLOUT : 0)), 0},
			{r.npending || r.in < 0 ? -1 : r.in, POLLIN, 0},
			{sock, POLLIN, 0},
			{join_server_fd(joins), POLLIN, 0},
		};
		if (poll(fds, 5, -1) < 0 && errno != EINTR) {
			int err = errno;
			end_relay(&r);
			return jail_err_set(e, err, "poll the terminal");
		}
		if (fds[0].revents & POLLIN)
			done = handle_signal(&r, init_pid, sigfd, end);
		if (!done && fds[3].revents)
			done = handle_done(&sock, end);
		if (fds[4].revents)
			join_server_serve(joins);
		pump(&r, fds);
	}
	drain_output(&r);
	end_relay(&r);
	return 0;
}

int wait_forwarding(pid_t init_pid, int sigfd, int sock, struct join_server *joins,
                    struct disk_guard *guard, struct jail_end *end, struct jail_err *e)
{
	for (;;) {
		struct pollfd pfd[3] = {
			{sigfd, POLLIN, 0}, {sock, POLLIN, 0}, {join_server_fd(joins), POLLIN, 0}};
		int r = poll(pfd, 3, disk_guard_timeout(guard));
		int err = errno;
		disk_guard_look(guard);
		if (r < 0) {
			if (err == EINTR)
				continue;
			return jail_err_set(e, err, "wait for the jail");
		}
		if ((pfd[0].revents & POLLIN) && handle_signal(NULL, init_pid, sigfd, end))
			return 0;
		if (pfd[1].revents && handle_done(&sock, end))
			return 0;
		if (pfd[2].revents)
			join_server_serve(joins);
	}
}

/* How long jail exec shows what arrives on the joined pty after the
 * command's exit status: until every slave is closed (EIO), or nothing came
 * for a moment, or the time is up.  The command's own output is in the master
 * by then; the agent can hold the slave open (a pty of the jail's devpts, of
 * the agent's uid: it opens /dev/pts/N) and write on, and a background child
 * of the command may hold it; neither may keep jail exec, with the terminal
 * raw, running after the command ended. */
#define JOIN_DRAIN_QUIET_MS 100
#define JOIN_DRAIN_MAX_MS 2000

static void drain_joined(struct relay *r)
{
	double end = mono_ms() + JOIN_DRAIN_MAX_MS;
	for (;;) {
		double left = end - mono_ms();
		if (left <= 0)
			return;
		struct pollfd p = {r->master, POLLIN, 0};
		int n = poll(&p, 1, left < JOIN_DRAIN_QUIET_MS ? (int)left + 1 : JOIN_DRAIN_QUIET_MS);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || !pump_output(r))
			return; /* quiet, or every slave closed */
	}
}

int pty_relay_join(int master, int done_fd, const int tty_fds[3], struct jail_err *e)
{
	struct relay r = {.in = tty_fds[0] ? STDIN_FILENO : -1, .master = master};
	r.out = tty_fds[1] ? STDOUT_FILENO : STDERR_FILENO;
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGWINCH);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return jail_err_sys(e, "block SIGWINCH");
	int sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0 || fcntl(master, F_SETFL, O_NONBLOCK) < 0) {
		if (sigfd >= 0)
			close(sigfd);
		return jail_err_sys(e, "set up the terminal relay");
	}
	copy_winsize(&r);
	int ret = r.in >= 0 ? raw_mode(e) : 0;
	bool done = ret < 0;
	/* the agent can write to this pty too: the same filter as the jail's own */
	start_keeper(&r, terminal_eight_bit());
	catch_crashes(&r);
	while (!done) {
		struct pollfd fds[4] = {
			{sigfd, POLLIN, 0},
			{r.master_done ? -1 : master, (short)(POLLIN | (r.npending ? POLLOUT : 0)), 0},
			{r.npending || r.in < 0 ? -1 : r.in, POLLIN, 0},
			{done_fd, POLLIN, 0},
		};
		if (poll(fds, 4, -1) < 0 && errno != EINTR) {
			ret = jail_err_sys(e, "poll the terminal");
			break;
		}
		struct signalfd_siginfo si;
		if ((fds[0].revents & POLLIN) && read(sigfd, &si, sizeof(si)) == sizeof(si))
			copy_winsize(&r);
		pump(&r, fds);
		/* the exit status is there: what the command printed is in the master */
		done = fds[3].revents != 0;
	}
	drain_joined(&r);
	end_relay(&r);
	close(sigfd);
	return ret;
}
