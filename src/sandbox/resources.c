/* resources.c — memory, process and CPU limits for the jail.
 *
 * cgroup v2 is the real mechanism: it limits the jail as a whole.  An
 * unprivileged user may only use it in a subtree delegated to them (systemd
 * delegates one with `systemd-run --user --scope -p Delegate=yes`), so the
 * supervisor uses the cgroup it runs in when that one is owned by the user,
 * writable, offers the controllers asked for and holds no process but jail's.
 * It never reaches above its own cgroup: the parent belongs to whoever
 * delegated it (systemd's slices), even when its files are the user's.
 *
 * The limits are set on DIR/jail-PID and the jail runs one level down, in
 * DIR/jail-PID/run: with nested namespaces allowed back (a container runtime
 * in the jail), the agent can make a cgroup namespace rooted where it is and
 * mount cgroup2 there, and the files of that root are the user's, so
 * writable to it unless the hierarchy is mounted nsdelegate (systemd's is,
 * others need not be).  A limit on the root it sees could be lifted (pids.max
 * went to max); the one above it cannot be seen.
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

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

/* The jail's processes' cgroup, below the one with the limits. */
#define JAIL_LEAF "run"

/* What attach changed, for limits_cgroup_cleanup (a void callback at exit, so
 * it lives here): the jail's cgroup, and, when the supervisor had to leave its
 * own cgroup to make room, where it went and which controllers it enabled. */
static struct {
	char *jail;       /* DIR/jail-PID: the limits; init and everything in the
	                   * jail in its JAIL_LEAF, and what they make below */
	char *parent;     /* DIR, the supervisor's own cgroup */
	char *supervisor; /* DIR/jail-PID.supervisor, or NULL */
	char *enabled;    /* "-memory -pids" to undo in DIR's subtree_control */
} cg;

static void cgroup_teardown(pid_t keep);

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

static int move_pid(int cgfd, const char *name, pid_t pid, struct jail_err *e)
{
	char s[32];
	snprintf(s, sizeof(s), "%ld", (long)pid);
	_cleanup_close_ int fd = openat(cgfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return jail_err_sys(e, "open the cgroup %s", name);
	return write_str_at(fd, "cgroup.procs", s, e);
}

static bool word_in(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return true;
	return false;
}

/* The controllers the limits need. */
static void wanted_controllers(const struct jail_config *cfg, const char *names[3])
{
	names[0] = cfg->memory ? "memory" : NULL;
	names[1] = cfg->pids ? "pids" : NULL;
	names[2] = cfg->cpus > 0 ? "cpu" : NULL;
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
	if (read_file_at(dfd, "cgroup.controllers", 4096, &have, NULL, e) < 0)
		return -1;
	const char *need[3];
	wanted_controllers(cfg, need);
	for (size_t i = 0; i < ARRAY_SIZE(need); i++)
		if (need[i] && !word_in(have, need[i]))
			return jail_err_set(e, 0, "%s does not offer the %s controller", dir, need[i]);
	return 0;
}

/* Enable the controllers the limits need for DIR's children; remember the
 * ones that were not on yet, so that cleanup can turn them off again. */
static int enable_controllers(int dfd, const struct jail_config *cfg, struct jail_err *e)
{
	_cleanup_free_ char *on = NULL;
	if (read_file_at(dfd, "cgroup.subtree_control", 4096, &on, NULL, e) < 0)
		return -1;
	const char *need[3];
	wanted_controllers(cfg, need);
	struct strbuf add = {0}, undo = {0};
	for (size_t i = 0; i < ARRAY_SIZE(need); i++) {
		if (need[i] && !word_in(on, need[i])) {
			sb_printf(&add, "+%s ", need[i]);
			sb_printf(&undo, "-%s ", need[i]);
		}
	}
	int r = add.len ? write_str_at(dfd, "cgroup.subtree_control", add.s, e) : 0;
	sb_free(&add);
	if (r == 0 && undo.len)
		cg.enabled = sb_steal(&undo);
	sb_free(&undo);
	return r;
}

/* cgroup v2 keeps processes out of the inner nodes of the tree: a cgroup
 * that holds processes cannot give domain controllers (memory) to its
 * children, and once it gives them threaded ones (pids, cpu) its children can
 * take no process.  The supervisor's own cgroup holds the supervisor and init,
 * so when it is the delegated one (systemd-run --user --scope -p
 * Delegate=yes), both move down into leaves first: the supervisor into
 * DIR/jail-PID.supervisor, init into DIR/jail-PID/run (init_at).  Only when
 * they are alone there: a shell sharing the cgroup is not ours to move.  The
 * root cgroup is exempt from the rule and is left as it is. */
static int make_room(int dfd, const char *dir, bool is_root, pid_t init_pid,
                     const char *jail_name, const char *init_at, struct jail_err *e)
{
	_cleanup_free_ char *procs = NULL;
	if (read_file_at(dfd, "cgroup.procs", 1 << 20, &procs, NULL, e) < 0)
		return -1;
	for (char *p = procs, *end; *p; p = end) {
		long pid = strtol(p, &end, 10);
		if (end == p)
			break;
		if (pid != getpid() && pid != init_pid)
			return is_root ? 0 : jail_err_set(e, EBUSY, "%s also holds process %ld, "
			                                  "which is not jail's", dir, pid);
	}
	_cleanup_free_ char *sup = xasprintf("%s.supervisor", jail_name);
	if (mkdirat(dfd, sup, 0755) < 0 && errno != EEXIST)
		return jail_err_sys(e, "create the cgroup %s/%s", dir, sup);
	cg.supervisor = xasprintf("%s/%s", dir, sup);
	if (move_pid(dfd, sup, getpid(), e) < 0 || move_pid(dfd, init_at, init_pid, e) < 0)
		return jail_err_wrap(e, "move jail's processes down from %s", dir);
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

/* Make DIR/jail-PID with the limits and move init_pid into its leaf.  Init
 * waits for GO, so nothing of the jail runs before its limits are in force. */
static int attach_under(const char *dir, bool is_root, const struct jail_config *cfg,
                        pid_t init_pid, struct jail_err *e)
{
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return jail_err_sys(e, "open %s", dir);
	if (check_delegated(dfd, dir, cfg, e) < 0)
		return -1;
	char name[64];
	snprintf(name, sizeof(name), "jail-%ld", (long)getpid());
	if (mkdirat(dfd, name, 0755) < 0 && errno != EEXIST)
		return jail_err_sys(e, "create the cgroup %s/%s", dir, name);
	cg.jail = xasprintf("%s/%s", dir, name);
	cg.parent = xstrdup(dir);
	_cleanup_free_ char *leaf = xasprintf("%s/" JAIL_LEAF, name);
	if (mkdirat(dfd, leaf, 0755) < 0 && errno != EEXIST)
		return jail_err_sys(e, "create the cgroup %s/%s", dir, leaf);
	if (make_room(dfd, dir, is_root, init_pid, name, leaf, e) < 0 ||
	    enable_controllers(dfd, cfg, e) < 0)
		return -1;
	_cleanup_close_ int cfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (cfd < 0)
		return jail_err_sys(e, "open %s", cg.jail);
	/* the limits hold for the whole subtree, whatever its own files say */
	if (write_limits(cfd, cfg, e) < 0 || move_pid(dfd, leaf, init_pid, e) < 0)
		return -1;
	return 0;
}

bool limits_cgroup_wanted(const struct jail_config *cfg)
{
	return cfg->memory || cfg->pids || cfg->cpus > 0;
}

int limits_cgroup_attach(const struct jail_config *cfg, pid_t init_pid, struct jail_err *e)
{
	if (!limits_cgroup_wanted(cfg))
		return 0;
	_cleanup_free_ char *mnt = cgroup2_mount(), *own = own_cgroup();
	if (!mnt || !own) {
		log_warn("cgroup v2 is not mounted here: %s", limits_fallback_note(cfg));
		return 0;
	}
	bool is_root = strcmp(own, "/") == 0;
	_cleanup_free_ char *dir = xasprintf("%s%s", mnt, is_root ? "" : own);
	struct jail_err why = {0};
	if (attach_under(dir, is_root, cfg, init_pid, &why) == 0) {
		log_debug("limits: jail in the cgroup %s", cg.jail);
		return 1;
	}
	cgroup_teardown(init_pid);
	log_warn("cannot use cgroup v2 for the limits (%s): %s", why.msg, limits_fallback_note(cfg));
	(void)e;
	return 0;
}

int limits_cgroup_delegated(struct jail_err *e)
{
	_cleanup_free_ char *mnt = cgroup2_mount();
	if (!mnt)
		return jail_err_set(e, 0, "cgroup v2 is not mounted");
	unsigned uid = (unsigned)geteuid();
	_cleanup_free_ char *dir =
		xasprintf("%s/user.slice/user-%u.slice/user@%u.service", mnt, uid, uid);
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return jail_err_sys(e, "no cgroup of systemd's user manager for uid %u (%s)", uid, dir);
	struct jail_config all = {.memory = 1, .pids = 1, .cpus = 1};
	return check_delegated(dfd, dir, &all, e);
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

/* A number from a /proc file; fallback when it cannot be read. */
static long proc_number(const char *path, long fallback)
{
	_cleanup_free_ char *text = NULL;
	struct jail_err ignored;
	if (read_file_at(AT_FDCWD, path, 64, &text, NULL, &ignored) < 0)
		return fallback;
	char *end;
	long v = strtol(text, &end, 10);
	return end == text || v <= 0 ? fallback : v;
}

/* Every process of the jail also takes a pid, and a thread, of the host's
 * (kernel.pid_max and threads-max of the initial namespaces count every
 * namespace's; the jail's own pid_max shows no such bound): a fork bomb with
 * no --pids filled them, and no one on the host, root included, could start
 * a process until it ended.  The user's own process limit counts the jail's
 * processes with the host's.  So the jail gets half of the least of them. */
unsigned long limits_default_nproc(void)
{
	long v = proc_number("/proc/sys/kernel/pid_max", 32768);
	long t = proc_number("/proc/sys/kernel/threads-max", v);
	if (t < v)
		v = t;
	struct rlimit own;
	if (getrlimit(RLIMIT_NPROC, &own) == 0 && own.rlim_cur != RLIM_INFINITY &&
	    own.rlim_cur < (rlim_t)v)
		v = (long)own.rlim_cur;
	return v / 2 > 0 ? (unsigned long)(v / 2) : 1;
}

/* The per-user counts the kernel charges to the jail's user namespace and to
 * the uid in the host's, against the limit the host gave the user: an agent
 * that queued 96,365 signals to itself (RLIMIT_SIGPENDING) left every program
 * of the user's on the host none (sigqueue, timer_create: EAGAIN), and POSIX
 * message queues share RLIMIT_MSGQUEUE the same way.  The jail gets half of
 * each, as of the inotify counts (limits_userns_counts). */
static int halve_shared_limits(struct jail_err *e)
{
	static const struct {
		int res;
		const char *name;
	} shared[] = {{RLIMIT_SIGPENDING, "RLIMIT_SIGPENDING"}, {RLIMIT_MSGQUEUE, "RLIMIT_MSGQUEUE"}};
	for (size_t i = 0; i < ARRAY_SIZE(shared); i++) {
		struct rlimit r;
		if (getrlimit(shared[i].res, &r) < 0 || r.rlim_cur == RLIM_INFINITY)
			continue;
		if (set_limit(shared[i].res, r.rlim_cur / 2, shared[i].name, e) < 0)
			return -1;
	}
	return 0;
}

int limits_apply_rlimits(const struct jail_config *cfg, bool cgroup_in_force,
                         unsigned long default_nproc, struct jail_err *e)
{
	/* core dumps off: a dump of the agent would carry its secrets (API keys)
	 * into files the user never asked for */
	if (set_limit(RLIMIT_CORE, 0, "RLIMIT_CORE", e) < 0)
		return -1;
	if (!cfg->pids && default_nproc &&
	    set_limit(RLIMIT_NPROC, (rlim_t)default_nproc, "RLIMIT_NPROC", e) < 0)
		return -1;
	if (halve_shared_limits(e) < 0)
		return -1;
	if (cgroup_in_force)
		return 0;
	if (cfg->memory && set_limit(RLIMIT_DATA, (rlim_t)cfg->memory, "RLIMIT_DATA", e) < 0)
		return -1;
	if (cfg->pids && set_limit(RLIMIT_NPROC, (rlim_t)cfg->pids, "RLIMIT_NPROC", e) < 0)
		return -1;
	return 0;
}

/* Half of the host's per-user limit in /proc/sys/fs/inotify/NAME (the
 * initial namespace's, which this procfs shows too), at least 1; fallback
 * when it cannot be read. */
static long host_half(const char *name, long fallback)
{
	_cleanup_free_ char *path = xasprintf("/proc/sys/fs/inotify/%s", name), *text = NULL;
	struct jail_err ignored;
	if (read_file_at(AT_FDCWD, path, 64, &text, NULL, &ignored) < 0)
		return fallback;
	char *end;
	long v = strtol(text, &end, 10);
	if (end == text || v <= 0)
		return fallback;
	return v / 2 > 0 ? v / 2 : 1;
}

/* Whether the policy allowed namespace creation back (no count is bounded). */
static bool namespaces_allowed(const struct jail_config *cfg)
{
	return strv_contains(&cfg->syscalls_allow, "unshare") ||
	       strv_contains(&cfg->syscalls_allow, "clone") ||
	       strv_contains(&cfg->syscalls_allow, "clone3");
}

/* opened without a look first: each lookup in /proc/sys walks a hash chain as
 * long as the namespaces the host has made */
static int forbid(int dfd, const char *const *counts, size_t n, struct jail_err *e)
{
	for (size_t i = 0; i < n; i++) {
		if (write_str_at(dfd, counts[i], "0", e) < 0) {
			if (e->errnum == ENOENT)
				continue; /* older kernel: no such count */
			return jail_err_wrap(e, "forbid namespaces in the jail");
		}
	}
	return 0;
}

/* Per-user-namespace counts (/proc/sys/user/, Linux 4.9+): a fresh user
 * namespace starts at INT_MAX.  The inotify counts are charged twice, to the
 * jail's namespace and to your uid in the host's, where your own programs
 * draw on them too: with the jail's at 128 instances, the host's per-user
 * limit, an agent that took them all left your editor and file watchers none
 * (EMFILE) while it ran.  The jail gets half of each host limit.  fanotify is
 * not for the jail at all, and, unless the policy allowed namespace creation
 * back, no namespace of any kind can be created (a second wall behind
 * seccomp). */
int limits_userns_counts(const struct jail_config *cfg, int dfd, struct jail_err *e)
{
	static const char *const ns_counts[] = {
		"max_user_namespaces", "max_net_namespaces",    "max_pid_namespaces",
		"max_ipc_namespaces",  "max_uts_namespaces",    "max_cgroup_namespaces",
		"max_time_namespaces",
	};
	char inst[32], watches[32];
	snprintf(inst, sizeof(inst), "%ld", host_half("max_user_instances", 64));
	snprintf(watches, sizeof(watches), "%ld", host_half("max_user_watches", 4096));
	if (write_str_at(dfd, "max_inotify_instances", inst, e) < 0 ||
	    write_str_at(dfd, "max_inotify_watches", watches, e) < 0 ||
	    write_str_at(dfd, "max_fanotify_groups", "0", e) < 0)
		return jail_err_wrap(e, "bound the jail's inotify/fanotify counts");
	if (namespaces_allowed(cfg))
		return 0;
	return forbid(dfd, ns_counts, ARRAY_SIZE(ns_counts), e);
}

int limits_mnt_namespaces(const struct jail_config *cfg, int dfd, struct jail_err *e)
{
	static const char *const mnt[] = {"max_mnt_namespaces"};
	return namespaces_allowed(cfg) ? 0 : forbid(dfd, mnt, ARRAY_SIZE(mnt), e);
}

static void rmdir_waiting(const char *path)
{
	for (int i = 0; i < 100; i++) {
		if (rmdir(path) == 0 || errno != EBUSY)
			return;
		usleep(10000); /* the killed processes are still exiting */
	}
	log_debug("limits: cannot remove the cgroup %s: %s", path, strerror(errno));
}

/* Remove the cgroup at path and every cgroup below it (the jail's leaf, and
 * what a nested cgroup namespace made there), deepest first.  The names are
 * the kernel's directories of cgroupfs, opened without following links. */
static void rmdir_tree(int dfd, const char *name, int depth)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct dirent *de;
	while (depth < 32 && (de = readdir(d)))
		if (de->d_type == DT_DIR && strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			rmdir_tree(dirfd(d), de->d_name, depth + 1);
	int r = -1;
	for (int i = 0; i < 100; i++) {
		r = unlinkat(dfd, name, AT_REMOVEDIR);
		if (r == 0 || errno != EBUSY)
			break;
		usleep(10000); /* the killed processes are still exiting */
	}
	if (r < 0 && depth == 0)
		log_debug("limits: cannot remove the cgroup %s: %s", name, strerror(errno));
	closedir(d);
}

static void remove_jail_cgroup(void)
{
	rmdir_tree(AT_FDCWD, cg.jail, 0);
}

/* Undo attach.  keep == 0: the run is over, kill what is left in the jail's
 * cgroup.  Otherwise attach failed half-way and the jail's init (keep) goes
 * back where it was, alive, for the rlimit fallback. */
static void cgroup_teardown(pid_t keep)
{
	struct jail_err ignored;
	if (cg.jail && !keep) {
		/* nothing outlives the session: kill what is left, then remove it */
		_cleanup_close_ int cfd = open(cg.jail, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (cfd >= 0)
			(void)!write_str_at(cfd, "cgroup.kill", "1", &ignored);
		remove_jail_cgroup();
	}
	/* leave the supervisor's cgroup as it was: controllers off (processes
	 * may not move into it before), then back home */
	_cleanup_close_ int pfd = cg.parent ? open(cg.parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (pfd >= 0 && cg.enabled)
		(void)!write_str_at(pfd, "cgroup.subtree_control", cg.enabled, &ignored);
	if (pfd >= 0 && keep && cg.jail) {
		(void)!move_pid(pfd, ".", keep, &ignored);
		remove_jail_cgroup();
	}
	if (pfd >= 0 && cg.supervisor) {
		(void)!move_pid(pfd, ".", getpid(), &ignored);
		rmdir_waiting(cg.supervisor);
	}
	free(cg.jail);
	free(cg.parent);
	free(cg.supervisor);
	free(cg.enabled);
	memset(&cg, 0, sizeof(cg));
}

bool limits_cgroup_in_use(void) { return cg.jail != NULL; }

void limits_cgroup_cleanup(void)
{
	cgroup_teardown(0);
}
