/* sessions.c — `jail reset` and `jail list`. */
#include "commands.h"

#include "discard.h"
#include "hints.h"
#include "live.h"
#include "log.h"
#include "scratchroom.h"
#include "session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

/* Resolve the session a subcommand names; one that was never made is an error
 * (`jail reset -s typo` must not say "gone" about nothing). */
static int resolve_existing(struct cli *c, struct session *s, struct jail_err *e)
{
	if (session_resolve(s, c->cfg.project, c->cfg.session, e) < 0)
		return -1;
	struct stat st;
	if (lstat(s->dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		_cleanup_free_ char *esc = escape_name(s->project);
		_cleanup_free_ char *hint = hint_session_in_repo(s->project);
		_cleanup_free_ char *line = hint_jail_line("list", s->project, NULL, "");
		return jail_err_set(e, 0, "no session '%s' for %s; %s shows its sessions%s",
		                    s->name, esc, line, hint);
	}
	return 0;
}

static int refuse_running(const struct session *s, const char *what, struct jail_err *e)
{
	struct live_info li;
	if (!live_get(s->dir, &li)) {
		live_info_free(&li);
		return 0;
	}
	live_info_free(&li);
	return jail_err_set(e, 0, "session '%s' is running (jail pid %d): %s it once it ended; "
	                    "jail stop -s %s ends it", s->name, (int)li.supervisor, what, s->name);
}

/* Without paths the whole session goes: say so first when it holds work. */
static int confirm_reset_all(struct cli *c, const struct session *s, struct jail_err *e)
{
	long n = live_changed_files(s->dir, 1000000);
	if (c->all || n == 0)
		return 0;
	if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO))
		return jail_err_set(e, 0, "session '%s' holds %ld changed file%s; jail reset --all "
		                    "discards them all, jail reset PATH... only those", s->name, n,
		                    n == 1 ? "" : "s");
	fprintf(stderr, "jail: discard all %ld changed file%s of session '%s'? [y/N] ", n,
	        n == 1 ? "" : "s", s->name);
	char answer[16] = "";
	if (!fgets(answer, sizeof(answer), stdin) || (answer[0] != 'y' && answer[0] != 'Y'))
		return jail_err_set(e, 0, "nothing discarded");
	return 0;
}

int cmd_reset(struct cli *c)
{
	struct jail_err e = {0};
	struct session s = {.lockfd = -1};
	bool paths = c->args && c->args[0];
	int r = resolve_existing(c, &s, &e);
	if (r == 0 && paths)
		r = refuse_running(&s, "discard paths", &e);
	if (r == 0)
		r = session_lock(&s, &e);
	if (r == 0 && paths)
		r = session_discard_paths(&s, c->args, &e);
	else if (r == 0 && (r = confirm_reset_all(c, &s, &e)) == 0 &&
	         (r = session_remove(&s, &e)) == 0)
		scratch_tmp_remove(s.dir);  /* what killed reads left in TMPDIR */
	if (r == 0) {
		/* the next run's "this run changed" starts afresh (runstamp.h) */
		_cleanup_free_ char *stamp = xasprintf("%s/export.stamp", s.dir);
		unlink(stamp);
	}
	_cleanup_free_ char *pesc = r == 0 && !paths ? escape_name(s.project) : NULL;
	if (r < 0)
		log_error("%s", e.msg);
	else if (!paths)
		log_info("session '%s' of %s reset: the agent's changes are gone", s.name, pesc);
	session_free(&s);
	return r < 0 ? EXIT_JAIL_FAIL : 0;
}

int cmd_rm(struct cli *c)
{
	struct jail_err e = {0};
	struct session s = {.lockfd = -1};
	int r = resolve_existing(c, &s, &e);
	if (r == 0)
		r = session_lock(&s, &e);
	/* everything, the lock last: a jail starting meanwhile finds it in use */
	if (r == 0 && (r = session_remove_all(&s, &e)) == 0) {
		scratch_tmp_remove(s.dir);          /* what killed reads left in TMPDIR */
		live_places_sweep(s.project_root);  /* and killed live reads */
		rmdir(s.project_root);  /* when it was the project's last session */
	}
	_cleanup_free_ char *pesc = r == 0 ? escape_name(s.project) : NULL;
	if (r < 0)
		log_error("%s", e.msg);
	else
		log_info("session '%s' of %s deleted", s.name, pesc);
	session_free(&s);
	return r < 0 ? EXIT_JAIL_FAIL : 0;
}

/* The walk of a session's size stops this deep (one fd a level) and after
 * this many entries (a few seconds): the agent shapes the tree, and `jail
 * list` must answer.  A size cut short is printed as a lower bound ("1.2G+"). */
#define USAGE_MAX_DEPTH 64
#define USAGE_MAX_ENTRIES 2000000

/* Inodes with more than one link are counted once: an agent's hard-link farm
 * (one 100 MiB file linked 65,000 times) would read as 6 TiB.  The set of
 * those seen is bounded; past it, the size is a lower bound. */
#define USAGE_MAX_LINKED (1u << 20)

struct inode_key {
	dev_t dev;
	ino_t ino;
};

struct usage {
	long long bytes;
	long entries;
	bool partial;
	struct inode_key *linked;  /* open addressing; ino 0: a free slot */
	size_t linked_n, linked_cap;
};

static size_t inode_slot(const struct inode_key *v, size_t cap, dev_t dev, ino_t ino)
{
	size_t i = (size_t)((ino * 0x9e3779b97f4a7c15ull) ^ dev) & (cap - 1);
	while (v[i].ino && (v[i].ino != ino || v[i].dev != dev))
		i = (i + 1) & (cap - 1);
	return i;
}

/* Is this the first time the walk meets the inode?  False past the bound. */
static bool first_link(struct usage *u, dev_t dev, ino_t ino)
{
	if (u->linked_n * 2 >= u->linked_cap) {
		if (u->linked_n >= USAGE_MAX_LINKED) {
			u->partial = true;
			return false;
		}
		size_t cap = u->linked_cap ? u->linked_cap * 2 : 1024;
		struct inode_key *v = xcalloc(cap, sizeof(*v));
		for (size_t i = 0; i < u->linked_cap; i++)
			if (u->linked[i].ino)
				v[inode_slot(v, cap, u->linked[i].dev, u->linked[i].ino)] = u->linked[i];
		free(u->linked);
		u->linked = v;
		u->linked_cap = cap;
	}
	size_t i = inode_slot(u->linked, u->linked_cap, dev, ino);
	if (u->linked[i].ino)
		return false;
	u->linked[i] = (struct inode_key){dev, ino ? ino : 1};
	u->linked_n++;
	return true;
}

/* Disk space under a directory (st_blocks), never following a symlink. */
static void disk_usage(int dfd, int depth, struct usage *u)
{
	if (depth > USAGE_MAX_DEPTH) {
		u->partial = true;
		return;
	}
	DIR *d = opendir_at(dfd, ".");
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		struct stat st;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++u->entries > USAGE_MAX_ENTRIES) {
			u->partial = true;
			break;
		}
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode) || st.st_nlink < 2 || first_link(u, st.st_dev, st.st_ino))
			u->bytes += (long long)st.st_blocks * 512;
		if (S_ISDIR(st.st_mode)) {
			_cleanup_close_ int sub = openat(dirfd(d), de->d_name,
			                                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				disk_usage(sub, depth + 1, u);
		}
	}
	closedir(d);
}

static void human_size(const struct usage *us, char *buf, size_t n)
{
	const char *units = "BKMGT";
	double v = (double)us->bytes;
	int u = 0;
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, n, u ? "%.1f%c%s" : "%.0f%c%s", v, units[u], us->partial ? "+" : "");
}

/* One line of `jail list`: the session's name, its size on disk, the host commit
 * it started from, the files it changed, its last run, whether it runs now. */
static void print_session(const char *pdir, const char *name, const char *project)
{
	_cleanup_free_ char *dir = xasprintf("%s/%s", pdir, name);
	struct session s = {.dir = dir};
	/* every run writes its pid into the lock: its mtime is the last run */
	_cleanup_free_ char *lock = xasprintf("%s/lock", dir);
	_cleanup_free_ char *base = session_meta_get(&s, "base");
	struct stat st;
	char when[32] = "never", size[16];
	if (stat(lock, &st) == 0)
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M", localtime(&st.st_mtime));
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct usage us = {0};
	if (fd >= 0)
		disk_usage(fd, 0, &us);
	free(us.linked);
	human_size(&us, size, sizeof(size));
	struct live_info li;
	bool running = live_get(dir, &li);
	live_info_free(&li);
	if (project)
		printf("%-40s ", project);
	printf("%-20s %7s %-12.12s %7ld  %-16s %s\n", name, size, base ? base : "-",
	       live_changed_files(dir, 1000000), when, running ? "running" : "");
}

static void print_header(bool all)
{
	if (all)
		printf("%-40s ", "PROJECT");
	printf("%-20s %7s %-12s %7s  %-16s %s\n", "SESSION", "SIZE", "BASE", "CHANGED", "LAST RUN",
	       "STATE");
}

static void list_project(const char *pdir, const char *project)
{
	DIR *d = opendir(pdir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_type == DT_DIR && de->d_name[0] != '.')
			print_session(pdir, de->d_name, project);
	closedir(d);
}

/* Every project's sessions: the project path comes from a session's meta. */
static int list_all(void)
{
	_cleanup_free_ char *root = state_root();
	DIR *d = opendir(root);
	if (!d && errno != ENOENT) {
		log_error("read '%s': %s", root, strerror(errno));
		return EXIT_JAIL_FAIL;
	}
	print_header(true);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		_cleanup_free_ char *pdir = xasprintf("%s/%s", root, de->d_name);
		_cleanup_free_ char *project = NULL;
		DIR *sd = opendir(pdir);
		struct dirent *se;
		while (sd && !project && (se = readdir(sd))) {
			if (se->d_name[0] == '.')
				continue;
			_cleanup_free_ char *sdir = xasprintf("%s/%s", pdir, se->d_name);
			struct session s = {.dir = sdir};
			project = session_meta_get(&s, "project");
		}
		if (sd)
			closedir(sd);
		_cleanup_free_ char *esc = escape_name(project ? project : de->d_name);
		list_project(pdir, esc);
	}
	if (d)
		closedir(d);
	return 0;
}

int cmd_list(struct cli *c)
{
	if (c->all)
		return list_all();
	struct jail_err e = {0};
	struct session s;
	if (session_resolve(&s, c->cfg.project, "default", &e) < 0) {
		log_error("%s", e.msg);
		return EXIT_JAIL_FAIL;
	}
	struct stat st;
	if (stat(s.project_root, &st) < 0) {
		_cleanup_free_ char *esc = escape_name(s.project);
		printf("no sessions for %s\n", esc);
	} else {
		print_header(false);
		list_project(s.project_root, NULL);
	}
	session_free(&s);
	return 0;
}
