/* live.c — the running record, `jail ps` and `jail stop`. */
#include "live.h"

#include "commands.h"
#include "hints.h"
#include "log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>

/* When a process started (clock ticks since boot: /proc/PID/stat's 22nd
 * field), 0 if it is gone or unreadable.  With its pid it names one process
 * for good; the pid alone names whichever process has it now. */
static unsigned long long proc_start(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	_cleanup_free_ char *data = NULL;
	struct jail_err e;
	if (pid <= 0 || read_file_at(AT_FDCWD, path, 4096, &data, NULL, &e) < 0)
		return 0;
	/* the name (field 2) may hold spaces and parentheses: count from the
	 * last ')'; the state is field 3, the start time field 22 */
	char *p = strrchr(data, ')');
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

void live_register(const struct session *s, pid_t init, char *const *argv)
{
	struct strbuf b = {0};
	sb_printf(&b, "supervisor=%d\ninit=%d\nstarted=%lld\nsupervisor_start=%llu\n"
	          "init_start=%llu\ncommand=", (int)getpid(), (int)init, (long long)time(NULL),
	          proc_start(getpid()), proc_start(init));
	for (size_t i = 0; argv && argv[i] && b.len < 1024; i++) {
		_cleanup_free_ char *esc = escape_name(argv[i]);
		sb_printf(&b, "%s%s", i ? " " : "", esc);
	}
	sb_puts(&b, "\n");
	_cleanup_free_ char *path = xasprintf("%s/running", s->dir);
	struct jail_err e;
	if (replace_file(path, b.s, b.len, 0600, &e) < 0)
		log_debug("write the running record: %s", e.msg);
	sb_free(&b);
}

void live_unregister(const struct session *s)
{
	_cleanup_free_ char *path = xasprintf("%s/running", s->dir);
	unlink(path);
}

/* Someone holds the session's lock (a run, or briefly an export). */
static bool lock_held(const char *dir)
{
	_cleanup_free_ char *path = xasprintf("%s/lock", dir);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return false;
	if (flock(fd, LOCK_SH | LOCK_NB) < 0)
		return errno == EWOULDBLOCK;
	flock(fd, LOCK_UN);
	return false;
}

static char *record_value(const char *data, const char *key)
{
	size_t kl = strlen(key);
	for (const char *line = data; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		if (n > kl && strncmp(line, key, kl) == 0 && line[kl] == '=')
			return strndup(line + kl + 1, n - kl - 1);
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

bool live_get(const char *session_dir, struct live_info *out)
{
	memset(out, 0, sizeof(*out));
	_cleanup_free_ char *path = xasprintf("%s/running", session_dir);
	_cleanup_free_ char *data = NULL;
	struct jail_err e;
	if (read_file_at(AT_FDCWD, path, 8192, &data, NULL, &e) < 0 || !lock_held(session_dir))
		return false;
	_cleanup_free_ char *sup = record_value(data, "supervisor");
	_cleanup_free_ char *init = record_value(data, "init");
	_cleanup_free_ char *started = record_value(data, "started");
	_cleanup_free_ char *sup_start = record_value(data, "supervisor_start");
	_cleanup_free_ char *init_start = record_value(data, "init_start");
	out->supervisor = sup ? (pid_t)atoi(sup) : 0;
	out->init = init ? (pid_t)atoi(init) : 0;
	out->started = started ? atoll(started) : 0;
	out->supervisor_start = sup_start ? strtoull(sup_start, NULL, 10) : 0;
	out->init_start = init_start ? strtoull(init_start, NULL, 10) : 0;
	out->command = record_value(data, "command");
	if (!out->command)
		out->command = xstrdup("?");
	/* a record left by a killed supervisor, read while something else holds
	 * the lock: its supervisor is gone (its pid perhaps another's) */
	if (out->supervisor_start && proc_start(out->supervisor) != out->supervisor_start)
		return false;
	return out->supervisor > 1 && out->init > 1;
}

int live_pidfd(pid_t pid, unsigned long long start)
{
#ifdef SYS_pidfd_open
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
#else
	int fd = -1;
	errno = ENOSYS;
#endif
	if (fd < 0)
		return -1;
	/* opened first, checked after: a process alive now with the record's
	 * start time had the pid when the pidfd was opened (it started before
	 * the record was written) */
	if (start && proc_start(pid) != start) {
		close(fd);
		errno = ESRCH;
		return -1;
	}
	return fd;
}

void live_info_free(struct live_info *i)
{
	free(i->command);
	i->command = NULL;
}

/* The count, and what it may look at: every entry counts against `left`,
 * directories too, so that millions of empty directories (or an agent
 * making new ones ahead of the walk) cannot make `jail ps` or `list` slow. */
struct upper_count {
	long files, left;
};

static void count_upper(int dfd, const char *rel, const struct strv *hidden, int depth,
                        struct upper_count *c)
{
	DIR *d = depth > 64 ? NULL : opendir_at(dfd, ".");
	if (!d) {
		c->files++;  /* too deep or unreadable: still a change, never "nothing here" */
		return;
	}
	struct dirent *de;
	while (c->left > 0 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !strcmp(de->d_name, ".git"))
			continue;
		c->left--;
		_cleanup_free_ char *path = xasprintf("%s%s", rel, de->d_name);
		if (de->d_type == DT_DIR) {
			_cleanup_close_ int sub = openat(dirfd(d), de->d_name,
			                                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			_cleanup_free_ char *srel = xasprintf("%s/", path);
			if (sub >= 0)
				count_upper(sub, srel, hidden, depth + 1, c);
		} else if (!(de->d_type == DT_CHR && strv_contains(hidden, path))) {
			c->files++;
		}
	}
	closedir(d);
}

long live_changed_files(const char *session_dir, long cap)
{
	_cleanup_free_ char *upper = xasprintf("%s/upper", session_dir);
	_cleanup_free_ char *hpath = xasprintf("%s/hidden", session_dir);
	_cleanup_free_ char *list = NULL;
	struct jail_err e;
	struct strv hidden = {0};
	if (read_file_at(AT_FDCWD, hpath, 64 << 20, &list, NULL, &e) == 0) {
		char *save = NULL;
		for (char *l = strtok_r(list, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			strv_push(&hidden, l);
	}
	_cleanup_close_ int fd = open(upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct upper_count c = {.files = 0, .left = cap};
	if (fd >= 0)
		count_upper(fd, "", &hidden, 0, &c);
	strv_free(&hidden);
	/* the budget spent on directories alone: a change all the same */
	if (c.left <= 0 && c.files == 0)
		c.files = 1;
	return c.files;
}

void live_format_age(long long since, char *buf, size_t n)
{
	long long s = (long long)time(NULL) - since;
	if (s < 0)
		s = 0;
	if (s >= 86400)
		snprintf(buf, n, "%lldd %lldh", s / 86400, s % 86400 / 3600);
	else if (s >= 3600)
		snprintf(buf, n, "%lldh %lldm", s / 3600, s % 3600 / 60);
	else if (s >= 60)
		snprintf(buf, n, "%lldm %llds", s / 60, s % 60);
	else
		snprintf(buf, n, "%llds", s);
}

static void ps_project(const char *root, const char *pname)
{
	_cleanup_free_ char *pdir = xasprintf("%s/%s", root, pname);
	DIR *d = opendir(pdir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		_cleanup_free_ char *sdir = xasprintf("%s/%s", pdir, de->d_name);
		struct live_info li;
		if (!live_get(sdir, &li)) {
			live_info_free(&li);
			continue;
		}
		struct session s = {.dir = sdir};
		_cleanup_free_ char *project = session_meta_get(&s, "project");
		_cleanup_free_ char *pesc = escape_name(project ? project : pname);
		char age[32];
		live_format_age(li.started, age, sizeof(age));
		printf("%-30s %-12s %7d %8s %7ld  %s\n", pesc, de->d_name, (int)li.supervisor, age,
		       live_changed_files(sdir, 1000000), li.command);
		live_info_free(&li);
	}
	closedir(d);
}

int cmd_ps(struct cli *c)
{
	_cleanup_free_ char *root = state_root();
	DIR *d = opendir(root);
	if (!d && errno != ENOENT) {
		log_error("read '%s': %s", root, strerror(errno));
		return EXIT_JAIL_FAIL;
	}
	printf("%-30s %-12s %7s %8s %7s  %s\n", "PROJECT", "SESSION", "PID", "UPTIME", "CHANGED",
	       "COMMAND");
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' && de->d_type == DT_DIR)
			ps_project(root, de->d_name);
	if (d)
		closedir(d);
	return 0;
}

/* Poll until the session's jail has ended, at most ms milliseconds. */
static bool wait_stopped(const char *dir, int ms)
{
	for (int waited = 0;; waited += 50) {
		struct live_info li;
		bool running = live_get(dir, &li);
		live_info_free(&li);
		if (!running)
			return true;
		if (waited >= ms)
			return false;
		poll(NULL, 0, 50);
	}
}

/* Through the pidfd; without one (err: why live_pidfd gave none) by pid, as
 * of now, only on a kernel without pidfds (before 5.3). */
static int send_signal(int pidfd, int err, pid_t pid, int sig)
{
	if (pidfd >= 0)
		return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
	if (err != ENOSYS) {
		errno = ESRCH;
		return -1;
	}
	return kill(pid, sig);
}

int cmd_stop(struct cli *c)
{
	struct jail_err e = {0};
	struct session s;
	if (session_resolve(&s, c->cfg.project, c->cfg.session, &e) < 0) {
		log_error("%s", e.msg);
		return EXIT_JAIL_FAIL;
	}
	struct live_info li;
	_cleanup_free_ char *pesc = escape_name(s.project);
	int rc = 0;
	/* pidfds, taken while the record is known true: signals sent later (init's
	 * SIGKILL comes after the timeout) never reach a process that took one of
	 * the pids once the jail's ended */
	_cleanup_close_ int sup = -1, init = -1;
	int sup_err = 0, init_err = 0;
	bool running = live_get(s.dir, &li);
	if (running) {
		sup = live_pidfd(li.supervisor, li.supervisor_start);
		sup_err = sup < 0 ? errno : 0;
		init = live_pidfd(li.init, li.init_start);
		init_err = init < 0 ? errno : 0;
		running = sup >= 0 || sup_err == ENOSYS;
	}
	if (!running) {
		_cleanup_free_ char *hint = hint_session_in_repo(s.project);
		log_error("session '%s' of %s is not running; jail ps lists the running ones%s",
		          s.name, pesc, hint);
		rc = EXIT_JAIL_FAIL;
	} else if (send_signal(sup, sup_err, li.supervisor, SIGTERM) < 0 && errno != ESRCH) {
		log_error("stop jail pid %d: %s", (int)li.supervisor, strerror(errno));
		rc = EXIT_JAIL_FAIL;
	} else if (!wait_stopped(s.dir, c->timeout * 1000)) {
		/* init's death takes every process of the jail with it */
		log_info("session '%s' did not stop within %ds: killing it", s.name, c->timeout);
		if (send_signal(init, init_err, li.init, SIGKILL) < 0 && errno != ESRCH)
			log_warn("kill the jail's init %d: %s", (int)li.init, strerror(errno));
		if (!wait_stopped(s.dir, 10000)) {
			log_error("session '%s' is still running (jail pid %d)", s.name,
			          (int)li.supervisor);
			rc = EXIT_JAIL_FAIL;
		}
	}
	if (rc == 0)
		log_info("session '%s' of %s stopped", s.name, pesc);
	live_info_free(&li);
	session_free(&s);
	return rc;
}
