/* pager.c — page long output as git does. */
#include "pager.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

int pager_open(struct pager *p, bool empty, struct jail_err *e)
{
	*p = (struct pager){.fd = STDOUT_FILENO, .pid = -1};
	const char *pager = getenv("PAGER");
	if (!isatty(STDOUT_FILENO) || empty || (pager && (!*pager || strcmp(pager, "cat") == 0)))
		return 0;
	if (!pager)
		pager = "less -R";
	if (!getenv("LESS"))
		setenv("LESS", "FRX", 1);
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return jail_err_sys(e, "pipe for the pager");
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[0], STDIN_FILENO);
	char sh[] = "sh", dash_c[] = "-c";
	_cleanup_free_ char *cmd = xstrdup(pager);
	char *argv[] = {sh, dash_c, cmd, NULL};
	pid_t pid;
	int r = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[0]);
	if (r != 0) {  /* no pager: the text goes out directly */
		close(pfd[1]);
		return 0;
	}
	p->fd = pfd[1];
	p->pid = pid;
	/* the user quitting the pager early is no error */
	p->old_sigpipe = signal(SIGPIPE, SIG_IGN);
	return 0;
}

int pager_put(struct pager *p, const char *s, size_t n, struct jail_err *e)
{
	if (p->gone || !n || write_all(p->fd, s, n) == 0)
		return 0;
	if (p->pid < 0)
		return jail_err_sys(e, "write to standard output");
	p->gone = true;  /* quit early (EPIPE), or gone otherwise: nothing more to show */
	return 0;
}

void pager_close(struct pager *p)
{
	if (p->pid < 0)
		return;
	close(p->fd);
	signal(SIGPIPE, p->old_sigpipe);
	int ws;
	while (waitpid(p->pid, &ws, 0) < 0 && errno == EINTR)
		;
	p->pid = -1;
}

int pager_write(const char *s, size_t n, struct jail_err *e)
{
	struct pager p;
	if (pager_open(&p, !n, e) < 0)
		return -1;
	int r = pager_put(&p, s, n, e);
	pager_close(&p);
	return r;
}
