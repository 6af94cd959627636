/* resources.c — memory, process and CPU limits for the jail.
 *
 * cgroup v2 is the real mechanism: it limits the jail as a whole.  An
 * unprivileged user may only use it in a subtree delegated to them (systemd
 * gives one to user@UID.service), so the supervisor tries the cgroup it runs
 * in and that cgroup's parent, and takes the first one that is owned by the
 * user, writable and offers the controllers asked for.  A cgroup that holds
 * processes cannot enable controllers for children ("no internal processes"),
 * which is why the parent is the usual winner (a scope's slice).
 *
 * Otherwise the limits fall back to rlimits, applied in init's child before
 * exec: RLIMIT_DATA per process for --memory (it counts private writable
 * memory, not address space reservations, so runtimes that reserve large
 * PROT_NONE ranges still start), RLIMIT_NPROC for --pids (since Linux 5.14 it
 * counts per user namespace, so it bounds the jail's processes, not the
 * user's), and nothing for --cpus, which the warning says.
 */
#include "resources.h"

#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

/* The cgroup made for this run, for limits_cgroup_cleanup (a void callback
 * at exit, so it lives here). */
static char *jail_cgroup;

/* The mount point of the cgroup2 filesystem, from mountinfo. */
static char *cgroup2_mount(void)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	while (f && fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");
		if (!sep || strncmp(sep + 3, "cgroup2 ", 8) != 0)
			continue;
		char mnt[4096];
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 && !strchr(mnt, '\\'))
			return xstrdup(mnt);
	}
	return NULL;
}

/* Our own cgroup v2 path ("0::/path" in /proc/self/cgroup). */
static char *own_cgroup(void)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096];
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			return xstrdup(line + 3);
		}
	}
	return NULL;
}

static int write_str_at(int dfd, const char *name, const char *s, struct jail_err *e)
{
	_cleanup_close_ int fd = openat(dfd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return jail_err_sys(e, "open %s", name);
	if (write(fd, s, strlen(s)) < 0)
		return jail_err_sys(e, "write '%s' to %s", s, name);
	return 0;
}

/* The controllers the limits need, as "+memory +pids +cpu". */
static void wanted_controllers(const struct jail_config *cfg, struct strbuf *b)
{
	if (cfg->memory)
		sb_puts(b, "+memory ");
	if (cfg->pids)
		sb_puts(b, "+pids ");
	if (cfg->cpus > 0)
		sb_puts(b, "+cpu ");
}

static int check_delegated(int dfd, const char *dir, const struct jail_config *cfg,
                           struct jail_err *e)
{
	struct stat st;
	if (fstat(dfd, &st) < 0)
		return jail_err_sys(e, "stat %s", dir);
	if (st.st_uid != geteuid())
		return jail_err_set(e, EACCES, "%s is not delegated to uid %u", dir,
		                    (unsigned)geteuid());
	if (faccessat(dfd, "cgroup.subtree_control", W_OK, AT_EACCESS) < 0 ||
	    faccessat(dfd, "cgroup.procs", W_OK, AT_EACCESS) < 0)
		return jail_err_sys(e, "%s is not writable", dir);
	_cleanup_free_ char *have = NULL;
	size_t len;
	if (read_file_at(dfd, "cgroup.controllers", 4096, &have, &len, e) < 0)
		return -1;
	const char *need[] = {cfg->memory ? "memory" : NULL, cfg->pids ? "pids" : NULL,
	                      cfg->cpus > 0 ? "cpu" : NULL};
	_cleanup_free_ char *padded = xasprintf(" %.*s ", (int)strcspn(have, "\n"), have);
	for (size_t i = 0; i < ARRAY_SIZE(need); i++) {
		char word[32];
		snprintf(word, sizeof(word), " %s ", need[i] ? need[i] : "");
		if (need[i] && !strstr(padded, word))
			return jail_err_set(e, 0, "%s does not offer the %s controller", dir, need[i]);
	}
	return 0;
}

static int write_limits(int cfd, const struct jail_config *cfg, struct jail_err *e)
{
	char v[64];
	if (cfg->memory) {
		snprintf(v, sizeof(v), "%lld", cfg->memory);
		if (write_str_at(cfd, "memory.max", v, e) < 0)
			return -1;
		/* no swap: the limit must mean memory, not memory plus swap */
		struct jail_err ignored;
		(void)!write_str_at(cfd, "memory.swap.max", "0", &ignored);
	}
	if (cfg->pids) {
		snprintf(v, sizeof(v), "%lld", cfg->pids);
		if (write_str_at(cfd, "pids.max", v, e) < 0)
			return -1;
	}
	if (cfg->cpus > 0) {
		snprintf(v, sizeof(v), "%lld 100000", (long long)(cfg->cpus * 100000));
		if (write_str_at(cfd, "cpu.max", v, e) < 0)
			return -1;
	}
	return 0;
}

/* Make DIR/jail-PID with the limits and move init_pid into it. */
static int attach_under(const char *dir, const struct jail_config *cfg, pid_t init_pid,
                        struct jail_err *e)
{
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return jail_err_sys(e, "open %s", dir);
	if (check_delegated(dfd, dir, cfg, e) < 0)
		return -1;
	struct strbuf want = {0};
	wanted_controllers(cfg, &want);
	int r = write_str_at(dfd, "cgroup.subtree_control", want.s, e);
	sb_free(&want);
	if (r < 0)
		return jail_err_wrap(e, "%s", dir);
	char name[64];
	snprintf(name, sizeof(name), "jail-%ld", (long)getpid());
	if (mkdirat(dfd, name, 0755) < 0 && errno != EEXIST)
		return jail_err_sys(e, "create the cgroup %s/%s", dir, name);
	jail_cgroup = xasprintf("%s/%s", dir, name);
	_cleanup_close_ int cfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	char pid[32];
	snprintf(pid, sizeof(pid), "%ld", (long)init_pid);
	if (cfd < 0 || write_limits(cfd, cfg, e) < 0 ||
	    write_str_at(cfd, "cgroup.procs", pid, e) < 0) {
		if (cfd < 0)
			jail_err_sys(e, "open %s", jail_cgroup);
		limits_cgroup_cleanup();
		return -1;
	}
	return 0;
}

int limits_cgroup_attach(const struct jail_config *cfg, pid_t init_pid, struct jail_err *e)
{
	if (!cfg->memory && !cfg->pids && !(cfg->cpus > 0))
		return 0;
	_cleanup_free_ char *mnt = cgroup2_mount(), *own = own_cgroup();
	if (!mnt || !own) {
		log_warn("cgroup v2 is not mounted here: %s", limits_fallback_note(cfg));
		return 0;
	}
	_cleanup_free_ char *dir = xasprintf("%s%s", mnt, strcmp(own, "/") ? own : "");
	struct jail_err why = {0};
	for (int up = 0; up < 2; up++) {
		if (attach_under(dir, cfg, init_pid, &why) == 0) {
			log_debug("limits: jail in the cgroup %s", jail_cgroup);
			return 1;
		}
		log_debug("limits: %s", why.msg);
		char *slash = strrchr(dir, '/');
		if (!slash || (size_t)(slash - dir) < strlen(mnt))
			break;
		*slash = '\0';
	}
	log_warn("no delegated cgroup v2 subtree (%s): %s", why.msg, limits_fallback_note(cfg));
	(void)e;
	return 0;
}

const char *limits_fallback_note(const struct jail_config *cfg)
{
	if (cfg->cpus > 0)
		return "using rlimits: --memory limits each process, --pids the jail's "
		       "processes, --cpus is NOT enforced (run jail under systemd-run --user --scope -p "
		       "Delegate=yes for cgroup limits)";
	return "using rlimits: --memory limits each process, --pids the jail's processes "
	       "(run jail under systemd-run --user --scope -p Delegate=yes for cgroup limits)";
}

static int set_limit(int res, rlim_t v, const char *what, struct jail_err *e)
{
	struct rlimit cur, lim = {v, v};
	if (getrlimit(res, &cur) == 0 && cur.rlim_max != RLIM_INFINITY && cur.rlim_max < v)
		lim.rlim_cur = lim.rlim_max = cur.rlim_max; /* never raise a limit */
	if (setrlimit(res, &lim) < 0)
		return jail_err_sys(e, "setrlimit %s %llu", what, (unsigned long long)v);
	return 0;
}

int limits_apply_rlimits(const struct jail_config *cfg, bool cgroup_in_force,
                         struct jail_err *e)
{
	/* core dumps off: a dump of the agent would carry its secrets (API keys)
	 * into files the user never asked for */
	if (set_limit(RLIMIT_CORE, 0, "RLIMIT_CORE", e) < 0)
		return -1;
	if (cgroup_in_force)
		return 0;
	if (cfg->memory && set_limit(RLIMIT_DATA, (rlim_t)cfg->memory, "RLIMIT_DATA", e) < 0)
		return -1;
	if (cfg->pids && set_limit(RLIMIT_NPROC, (rlim_t)cfg->pids, "RLIMIT_NPROC", e) < 0)
		return -1;
	return 0;
}

/* Per-user-namespace counts (/proc/sys/user/, Linux 4.9+): a fresh user
 * namespace starts at INT_MAX.  Inotify instances are bounded like the host's
 * per-user default, and, unless the policy allowed namespace creation back,
 * no namespace of any kind can be created (a second wall behind seccomp). */
int limits_userns_counts(const struct jail_config *cfg, int dfd, struct jail_err *e)
{
	static const char *const ns_counts[] = {
		"max_user_namespaces", "max_mnt_namespaces", "max_net_namespaces",
		"max_pid_namespaces", "max_ipc_namespaces", "max_uts_namespaces",
		"max_cgroup_namespaces", "max_time_namespaces",
	};
	if (write_str_at(dfd, "max_inotify_instances", "128", e) < 0 ||
	    write_str_at(dfd, "max_fanotify_groups", "0", e) < 0)
		return jail_err_wrap(e, "bound the jail's inotify/fanotify counts");
	if (strv_contains(&cfg->syscalls_allow, "unshare") ||
	    strv_contains(&cfg->syscalls_allow, "clone") ||
	    strv_contains(&cfg->syscalls_allow, "clone3"))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(ns_counts); i++) {
		if (faccessat(dfd, ns_counts[i], F_OK, 0) < 0)
			continue; /* older kernel: no such count */
		if (write_str_at(dfd, ns_counts[i], "0", e) < 0)
			return jail_err_wrap(e, "forbid namespaces in the jail");
	}
	return 0;
}

void limits_cgroup_cleanup(void)
{
	if (!jail_cgroup)
		return;
	/* nothing outlives the session: kill what is left, then remove it */
	_cleanup_close_ int cfd = open(jail_cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	struct jail_err ignored;
	if (cfd >= 0)
		(void)!write_str_at(cfd, "cgroup.kill", "1", &ignored);
	for (int i = 0; i < 100; i++) {
		if (rmdir(jail_cgroup) == 0 || errno != EBUSY)
			break;
		usleep(10000); /* the killed processes are still exiting */
	}
	free(jail_cgroup);
	jail_cgroup = NULL;
}
