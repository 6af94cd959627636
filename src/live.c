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
#include <time.h>

void live_register(const struct session *s, pid_t init, char *const *argv)
{
	struct strbuf b = {0};
	sb_printf(&b, "supervisor=%d\ninit=%d\nstarted=%lld\ncommand=", (int)getpid(), (int)init,
	          (long long)time(NULL));
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
	out->supervisor = sup ? (pid_t)atoi(sup) : 0;
	out->init = init ? (pid_t)atoi(init) : 0;
	out->started = started ? atoll(started) : 0;
	out->command = record_value(data, "command");
	if (!out->command)
		out->command = xstrdup("?");
	return out->supervisor > 1 && out->init > 1;
}

void live_info_free(struct live_info *i)
{
	free(i->command);
	i->command = NULL;
}

static long count_upper(int dfd, const char *rel, const struct strv *hidden, int depth,
                        long cap)
{
	DIR *d = depth > 64 ? NULL : opendir_at(dfd, ".");
	if (!d)
		return 1;  /* too deep or unreadable: still a change, never "nothing here" */
	long n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < cap) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !strcmp(de->d_name, ".git"))
			continue;
		_cleanup_free_ char *path = xasprintf("%s%s", rel, de->d_name);
		if (de->d_type == DT_DIR) {
			_cleanup_close_ int sub = openat(dirfd(d), de->d_name,
			                                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			_cleanup_free_ char *srel = xasprintf("%s/", path);
			if (sub >= 0)
				n += count_upper(sub, srel, hidden, depth + 1, cap - n);
		} else if (!(de->d_type == DT_CHR && strv_contains(hidden, path))) {
			n++;
		}
	}
	closedir(d);
	return n;
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
	long n = fd >= 0 ? count_upper(fd, "", &hidden, 0, cap) : 0;
	strv_free(&hidden);
	return n;
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
	if (!live_get(s.dir, &li)) {
		_cleanup_free_ char *hint = hint_session_in_repo(s.project);
		log_error("session '%s' of %s is not running; jail ps lists the running ones%s",
		          s.name, pesc, hint);
		rc = EXIT_JAIL_FAIL;
	} else if (kill(li.supervisor, SIGTERM) < 0) {
		log_error("stop jail pid %d: %s", (int)li.supervisor, strerror(errno));
		rc = EXIT_JAIL_FAIL;
	} else if (!wait_stopped(s.dir, c->timeout * 1000)) {
		/* init's death takes every process of the jail with it */
		log_info("session '%s' did not stop within %ds: killing it", s.name, c->timeout);
		if (kill(li.init, SIGKILL) < 0 && errno != ESRCH)
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
