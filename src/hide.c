/* hide.c — whiteouts for the project's ignored files and the policy's hidden
 * patterns. */
#include "hide.h"

#include "ignorecache.h"
#include "log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* A pattern names a path when it matches the whole relative path, its last
 * component, or a directory above it. */
static bool matches_any(const struct strv *patterns, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t i = 0; i < patterns->n; i++) {
		const char *pat = patterns->v[i];
		size_t n = strlen(pat);
		if (fnmatch(pat, path, FNM_PATHNAME) == 0 || fnmatch(pat, base, 0) == 0 ||
		    (strncmp(path, pat, n) == 0 && path[n] == '/'))
			return true;
	}
	return false;
}

/* Open (creating as needed, with the lower dir's mode) the upper directory that
 * mirrors `rel`'s parent.  Returns -1 with errno ENOTDIR when something in the
 * upper already covers it (the agent's own file, a whiteout). */
static int open_upper_parent(int upper, int lower, const char *rel, const char **name)
{
	_cleanup_free_ char *dup = xstrdup(rel);
	int up = fcntl(upper, F_DUPFD_CLOEXEC, 3);
	int lo = fcntl(lower, F_DUPFD_CLOEXEC, 3);
	char *save = NULL, *comp = strtok_r(dup, "/", &save), *next;
	for (; comp && (next = strtok_r(NULL, "/", &save)); comp = next) {
		struct stat st;
		if (fstatat(lo, comp, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			goto fail;
		if (mkdirat(up, comp, st.st_mode & 07777) < 0 && errno != EEXIST)
			goto fail;
		int nup = openat(up, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int nlo = openat(lo, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(up);
		close(lo);
		up = nup, lo = nlo;
		if (up < 0 || lo < 0)
			goto fail;
	}
	close(lo);
	*name = rel + (comp ? (size_t)(comp - dup) : 0);
	return up;
fail:
	if (up >= 0)
		close(up);
	if (lo >= 0)
		close(lo);
	errno = ENOTDIR;
	return -1;
}

static bool is_whiteout(int dir, const char *name)
{
	struct stat st;
	return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISCHR(st.st_mode) &&
	       st.st_rdev == makedev(0, 0);
}

/* One whiteout; an entry already in the upper dir is the agent's and stays. */
static void whiteout(int upper, int lower, const char *rel)
{
	const char *name;
	_cleanup_close_ int dir = open_upper_parent(upper, lower, rel, &name);
	if (dir < 0)
		return;
	struct stat st;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return;
	if (mknodat(dir, name, S_IFCHR | 0, makedev(0, 0)) < 0) {
		_cleanup_free_ char *esc = escape_name(rel);
		log_warn("cannot hide ignored '%s': %s", esc, strerror(errno));
	}
}

/* Remove the whiteouts of the last run that are not in `now`. */
static void unhide_stale(const struct session *s, int upper, const struct strv *now)
{
	_cleanup_free_ char *path = xasprintf("%s/hidden", s->dir);
	_cleanup_free_ char *old = NULL;
	struct jail_err e;
	if (read_file_at(AT_FDCWD, path, 64 << 20, &old, NULL, &e) < 0)
		return;
	for (char *line = old, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (strv_contains(now, line))
			continue;
		const char *slash = strrchr(line, '/');
		_cleanup_free_ char *parent = slash ? strndup(line, (size_t)(slash - line)) : NULL;
		_cleanup_close_ int dir =
			parent ? openat(upper, parent, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			       : fcntl(upper, F_DUPFD_CLOEXEC, 3);
		const char *name = slash ? slash + 1 : line;
		if (dir >= 0 && is_whiteout(dir, name))
			unlinkat(dir, name, 0);
	}
}

#define HIDE_WALK_DEPTH 64

/* fs.hide: walk the project (only when patterns are given: the walk grows with
 * the tree) and hide what matches; a matching directory is hidden whole. */
static void hide_patterns(int upper, int lower, const char *rel, const struct strv *patterns,
                          struct strv *hidden, int depth)
{
	if (depth > HIDE_WALK_DEPTH)
		return;
	DIR *d = opendir_at(lower, rel[0] ? rel : ".");
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		if (!strcmp(n, ".") || !strcmp(n, "..") || (!rel[0] && !strcmp(n, ".git")))
			continue;
		_cleanup_free_ char *child = rel[0] ? xasprintf("%s/%s", rel, n) : xstrdup(n);
		if (matches_any(patterns, child)) {
			if (!strv_contains(hidden, child)) {
				whiteout(upper, lower, child);
				strv_push(hidden, child);
			}
		} else if (de->d_type == DT_DIR) {
			hide_patterns(upper, lower, child, patterns, hidden, depth + 1);
		}
	}
	closedir(d);
}

int hide_ignored(const struct session *s, const struct jail_config *cfg, struct strv *out,
                 struct jail_err *e)
{
	struct strv ignored = {0}, hidden = {0};
	int r = ignored_paths(s, &ignored, e);
	if (r < 0)
		return -1;
	_cleanup_close_ int upper = open(s->upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_close_ int lower = open(s->project, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (upper < 0 || lower < 0) {
		strv_free(&ignored);
		return jail_err_sys(e, "open '%s'", upper < 0 ? s->upper : s->project);
	}
	for (size_t i = 0; i < ignored.n; i++) {
		if (matches_any(&cfg->show_ignored, ignored.v[i]))
			continue;
		whiteout(upper, lower, ignored.v[i]);
		strv_push(&hidden, ignored.v[i]);
	}
	if (cfg->hide.n)
		hide_patterns(upper, lower, "", &cfg->hide, &hidden, 0);
	unhide_stale(s, upper, &hidden);
	struct strbuf list = {0};
	for (size_t i = 0; i < hidden.n; i++)
		if (!strchr(hidden.v[i], '\n'))
			sb_printf(&list, "%s\n", hidden.v[i]);
	_cleanup_free_ char *path = xasprintf("%s/hidden", s->dir);
	r = write_file_at(AT_FDCWD, path, list.s ? list.s : "", list.len, 0600, e);
	sb_free(&list);
	strv_free(&ignored);
	*out = hidden;
	return r;
}
