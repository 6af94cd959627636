/* sessions.c — `jail reset` and `jail list`. */
#include "commands.h"

#include "log.h"
#include "session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

int cmd_reset(struct cli *c)
{
	struct jail_err e = {0};
	struct session s;
	int rc = 0;
	if (session_resolve(&s, c->cfg.project, c->cfg.session, &e) < 0 ||
	    session_lock(&s, &e) < 0 || session_remove(&s, &e) < 0) {
		log_error("%s", e.msg);
		rc = EXIT_JAIL_FAIL;
	} else {
		log_info("session '%s' of %s reset: the agent's changes are gone", s.name, s.project);
	}
	session_free(&s);
	return rc;
}

/* Count the entries of the upper dir (what the session changed), bounded in
 * depth (fds) and in entries over the whole tree (time). */
#define COUNT_MAX 100000
static long count_changes(int dfd, int depth, long *budget)
{
	if (depth > 64)
		return 0;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;
	}
	long n = 0;
	struct dirent *de;
	while (*budget > 0 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !strcmp(de->d_name, ".git"))
			continue;
		--*budget;  /* a directory costs too, counted or not */
		if (de->d_type == DT_DIR) {
			int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				n += count_changes(sub, depth + 1, budget);
		} else {
			n++;
		}
	}
	closedir(d);
	return n;
}

static bool session_in_use(const char *dir)
{
	_cleanup_free_ char *path = xasprintf("%s/lock", dir);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return false;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		return errno == EWOULDBLOCK;
	flock(fd, LOCK_UN);
	return false;
}

static void print_session(const struct session *proj, const char *name)
{
	struct session s;
	struct jail_err e;
	if (session_resolve(&s, proj->project, name, &e) < 0)
		return;
	/* every run writes its pid into the lock: its mtime is the last run */
	_cleanup_free_ char *lock = xasprintf("%s/lock", s.dir);
	struct stat st;
	char when[32] = "never";
	if (stat(lock, &st) == 0)
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M", localtime(&st.st_mtime));
	int up = open(s.upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	long budget = COUNT_MAX;
	long changes = up >= 0 ? count_changes(up, 0, &budget) : 0;
	printf("%-20s %-17s %6ld  %s\n", name, when, changes,
	       session_in_use(s.dir) ? "in use" : "");
	session_free(&s);
}

int cmd_list(struct cli *c)
{
	struct jail_err e = {0};
	struct session s;
	if (session_resolve(&s, c->cfg.project, "default", &e) < 0) {
		log_error("%s", e.msg);
		return EXIT_JAIL_FAIL;
	}
	DIR *d = opendir(s.project_root);
	if (!d) {
		if (errno != ENOENT)
			log_error("read '%s': %s", s.project_root, strerror(errno));
		else
			printf("no sessions for %s\n", s.project);
		session_free(&s);
		return errno == ENOENT ? 0 : EXIT_JAIL_FAIL;
	}
	printf("%-20s %-17s %6s\n", "SESSION", "LAST RUN", "ENTRIES");
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_type == DT_DIR && de->d_name[0] != '.')
			print_session(&s, de->d_name);
	closedir(d);
	session_free(&s);
	return 0;
}
