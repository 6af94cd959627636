/* Unit tests: resources.c — the rlimit side.  The cgroup side needs a pure
 * cgroup v2 hierarchy with a delegated subtree: tests/vm/cgroup2.sh runs it in
 * a VM that has one. */
#include "t.h"
#include "resources.h"

#include <sys/resource.h>
#include <sys/wait.h>

static int child(bool in_force)
{
	struct jail_config cfg;
	config_init(&cfg);
	cfg.memory = 64LL << 20;
	cfg.pids = 50;
	struct jail_err e = {0};
	if (limits_apply_rlimits(&cfg, in_force, 1000, &e) < 0)
		return 1;
	struct rlimit r;
	if (getrlimit(RLIMIT_CORE, &r) < 0 || r.rlim_cur != 0 || r.rlim_max != 0)
		return 2;
	rlim_t want_data = in_force ? RLIM_INFINITY : (rlim_t)cfg.memory;
	struct rlimit before;
	getrlimit(RLIMIT_DATA, &before);
	if (!in_force && (getrlimit(RLIMIT_DATA, &r) < 0 || r.rlim_max != want_data))
		return 3;
	if (!in_force && (getrlimit(RLIMIT_NPROC, &r) < 0 || r.rlim_max != 50))
		return 4;
	/* the hard limit cannot be raised again */
	r.rlim_cur = r.rlim_max = in_force ? r.rlim_max : 51;
	if (!in_force && geteuid() != 0 && setrlimit(RLIMIT_NPROC, &r) == 0)
		return 5;
	config_free(&cfg);
	return 0;
}

static int in_child(bool in_force)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(child(in_force));
	int st = -1;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
}

T(rlimit_fallback_and_core_off)
{
	CHECK_INT(in_child(false), 0);
	CHECK_INT(in_child(true), 0);
}

T(no_limits_asked_no_cgroup)
{
	struct jail_config cfg;
	config_init(&cfg);
	struct jail_err e = {0};
	CHECK_INT(limits_cgroup_attach(&cfg, getpid(), &e), 0);
	config_free(&cfg);
}

/* Without --pids the command still gets a process limit, the default the
 * supervisor worked out on the host; cgroup limits or not. */
static int child_default_nproc(void)
{
	struct jail_config cfg;
	config_init(&cfg);
	struct jail_err e = {0};
	struct rlimit r;
	if (limits_apply_rlimits(&cfg, true, 1000, &e) < 0 || getrlimit(RLIMIT_NPROC, &r) < 0)
		return 1;
	config_free(&cfg);
	return r.rlim_max == 1000 && r.rlim_cur == 1000 ? 0 : 2;
}

T(default_process_limit_without_pids)
{
	struct rlimit r;
	if (getrlimit(RLIMIT_NPROC, &r) == 0 && r.rlim_max != RLIM_INFINITY && r.rlim_max < 1000)
		T_SKIP("the process limit here is below the test's default");
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(child_default_nproc());
	int st = -1;
	waitpid(pid, &st, 0);
	CHECK_INT(WIFEXITED(st) ? WEXITSTATUS(st) : 100, 0);
	CHECK(limits_default_nproc() >= 1);
}
