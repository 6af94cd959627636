/* pager.c — page long output as git does. */
#include "pager.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

static int write_direct(const char *s, size_t n, struct jail_err *e)
{
	if (n && write_all(STDOUT_FILENO, s, n) < 0)
		return jail_err_sys(e, "write to standard output");
	return 0;
}

int pager_write(const char *s, size_t n, struct jail_err *e)
{
	const char *pager = getenv("PAGER");
	if (!isatty(STDOUT_FILENO) || !n || (pager && (!*pager || strcmp(pager, "cat") == 0)))
		return write_direct(s, n, e);
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
	if (r != 0) {
		close(pfd[1]);
		return write_direct(s, n, e);
	}
	/* the user quitting the pager early is no error */
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	if (write_all(pfd[1], s, n) < 0 && errno != EPIPE)
		jail_err_sys(e, "write to the pager");
	close(pfd[1]);
	signal(SIGPIPE, old);
	int ws;
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	return 0;
}
