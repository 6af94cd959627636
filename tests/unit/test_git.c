/* Unit tests: git.c — how a git process's failure is reported. */
#include "t.h"
#include "git.h"

#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>

/* A git that fails without a word on stderr (a "-q" check, or one killed by
 * a signal: the agent's objects can make git run out of CPU time or memory):
 * the failure is an error with its exit code.  The message was cut at its
 * first newline in place, and with no stderr that place was a string
 * literal: jail died of SIGSEGV. */
T(silent_git_failure_is_an_error)
{
	char tmpl[] = "/tmp/test-git.XXXXXX";
	CHECK(mkdtemp(tmpl) != NULL);
	struct jail_err e = {0};
	struct git g = {.cwd = tmpl};
	const char *init[] = {"init", "-q", NULL};
	if (git_run(&g, init, NULL, 0, NULL, NULL, &e) < 0)
		T_SKIP("no git here");
	const char *verify[] = {"rev-parse", "-q", "--verify", "refs/heads/none", NULL};
	CHECK_INT(git_run(&g, verify, NULL, 0, NULL, NULL, &e), -1);
	CHECK(strstr(e.msg, "git rev-parse failed (exit 1)") != NULL);
	struct jail_err ignored;
	CHECK(rm_rf_at(AT_FDCWD, tmpl, &ignored) == 0);
}

/* A git that reads what the agent wrote runs with a CPU budget (agentgit.c:
 * a delta chain's cost is bounded by no size): the limit is the process's. */
T(cpu_budget_is_the_git_process_limit)
{
	char tmpl[] = "/tmp/test-git.XXXXXX";
	CHECK(mkdtemp(tmpl) != NULL);
	struct jail_err e = {0};
	struct git g = {.cwd = tmpl};
	const char *init[] = {"init", "-q", NULL};
	if (git_run(&g, init, NULL, 0, NULL, NULL, &e) < 0)
		T_SKIP("no git here");
	g.cpu_seconds = 7;
	struct git_proc p = {0};
	const char *batch[] = {"cat-file", "--batch-check", NULL};
	CHECK(git_start(&g, batch, &p, &e) == 0);
	struct rlimit cpu;
	CHECK(prlimit(p.pid, RLIMIT_CPU, NULL, &cpu) == 0);
	CHECK_INT((int)cpu.rlim_cur, 7);
	CHECK(git_finish(&p, NULL, &e) == 0);
	struct jail_err ignored;
	CHECK(rm_rf_at(AT_FDCWD, tmpl, &ignored) == 0);
}
