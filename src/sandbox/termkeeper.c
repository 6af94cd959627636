/* termkeeper.c — the keeper of the host terminal (termkeeper.h says why). */
#include "termkeeper.h"

#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define RELEASED 'r'

/* The keeper: it runs only async-signal-safe calls (the supervisor has
 * threads).  fds 0-2 stay (the terminal), its end of the socket pair is at
 * 3 (term_keeper_start). */
static _Noreturn void keeper_main(const struct term_filter *f, int out,
                                  const struct termios *saved)
{
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL); /* the user's ^C and kill of the group
	                                      * are the supervisor's to handle */
	if (syscall(SYS_close_range, 4, ~0U, 0) < 0) /* the pty master, the jail's */
		_exit(1);                                 /* sockets: none held here */
	prctl(PR_SET_NAME, "jail-termkeeper", 0, 0, 0);
	char c;
	ssize_t n;
	while ((n = read(3, &c, 1)) < 0 && errno == EINTR)
		;
	if (n == 0) { /* the supervisor is gone without a word */
		char buf[TERM_RESET_MAX];
		size_t m = term_filter_reset(f, buf);
		if (m && write(out, buf, m) < 0)
			_exit(1); /* the terminal is gone too */
		if (saved)
			tcsetattr(STDIN_FILENO, TCSAFLUSH, saved);
	}
	_exit(0);
}

int term_keeper_start(struct term_keeper *k, int out, const struct termios *saved,
                      struct jail_err *e)
{
	k->pid = 0;
	k->fd = -1;
	k->filter = mmap(NULL, sizeof(*k->filter), PROT_READ | PROT_WRITE,
	                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (k->filter == MAP_FAILED) {
		k->filter = NULL;
		return jail_err_sys(e, "map the terminal filter");
	}
	/* a socket pair, not a pipe: the supervisor's word must not raise
	 * SIGPIPE when the keeper is gone (MSG_NOSIGNAL) */
	int p[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) < 0) {
		term_keeper_stop(k);
		return jail_err_sys(e, "socket pair for the terminal keeper");
	}
	pid_t pid = fork();
	if (pid == 0) {
		/* not the supervisor's end, or the pair would never end; ours
		 * onto 3, where keeper_main reads it */
		close(p[1]);
		if (p[0] != 3 && dup2(p[0], 3) < 0)
			_exit(1);
		keeper_main(k->filter, out, saved);
	}
	int err = errno;
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		term_keeper_stop(k);
		return jail_err_set(e, err, "start the terminal keeper");
	}
	k->pid = pid;
	k->fd = p[1];
	return 0;
}

void term_keeper_release(const struct term_keeper *k)
{
	char c = RELEASED;
	if (k->fd >= 0 && send(k->fd, &c, 1, MSG_NOSIGNAL) < 0)
		return; /* the keeper is gone: nothing to release */
}

void term_keeper_stop(struct term_keeper *k)
{
	term_keeper_release(k);
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
	while (k->pid > 0 && waitpid(k->pid, NULL, 0) < 0 && errno == EINTR)
		;
	k->pid = 0;
	if (k->filter)
		munmap(k->filter, sizeof(*k->filter));
	k->filter = NULL;
}
