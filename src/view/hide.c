/* hide.c — whiteouts for the project's ignored files and the policy's hidden
 * patterns. */
#include "hide.h"
#include "namematch.h"

#include "ignorecache.h"
#include "log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>


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

/* A directory of the upper dir that holds nothing but whiteouts (and such
 * directories): one that hiding made for nested whiteouts, not the agent. */
static bool only_whiteouts(int parent, const char *name, int depth)
{
	DIR *d = depth < 64 ? opendir_at(parent, name) : NULL;
	if (!d)
		return false;
	bool only = true;
	struct dirent *de;
	while (only && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		only = is_whiteout(dirfd(d), de->d_name) ||
		       only_whiteouts(dirfd(d), de->d_name, depth + 1);
	}
	closedir(d);
	return only;
}

static void remove_whiteout_dir(int parent, const char *name)
{
	DIR *d = opendir_at(parent, name);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (is_whiteout(dirfd(d), de->d_name))
			unlinkat(dirfd(d), de->d_name, 0);
		else
			remove_whiteout_dir(dirfd(d), de->d_name);
	}
	if (d)
		closedir(d);
	unlinkat(parent, name, AT_REMOVEDIR);
}

/* The agent's directory at a hidden path stays, but made opaque: the overlay
 * would merge it with the host's directory of that name (one that appeared
 * since the agent made its own, `secrets/` ignored now), showing the host's
 * hidden files in it. */
static void make_opaque(int dir, const char *name, const char *rel)
{
	_cleanup_close_ int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fsetxattr(fd, "user.overlay.opaque", "y", 1, 0) < 0) {
		_cleanup_free_ char *esc = escape_name(rel);
		log_warn("cannot hide ignored '%s' below the session's own directory: %s", esc,
		         strerror(errno));
	}
}

/* One whiteout; an entry already in the upper dir is the agent's and stays
 * (a directory made opaque), unless it is a directory of whiteouts only (an
 * earlier run hid paths below it: now the whole directory is hidden). */
static void whiteout(int upper, int lower, const char *rel)
{
	const char *name;
	_cleanup_close_ int dir = open_upper_parent(upper, lower, rel, &name);
	if (dir < 0)
		return;
	struct stat st;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		bool only = S_ISDIR(st.st_mode) && only_whiteouts(dir, name, 0);
		if (S_ISDIR(st.st_mode) && !only)
			make_opaque(dir, name, rel);
		if (!only)
			return;
		remove_whiteout_dir(dir, name);
	}
	if (mknodat(dir, name, S_IFCHR | 0, makedev(0, 0)) < 0) {
		_cleanup_free_ char *esc = escape_name(rel);
		log_warn("cannot hide ignored '%s': %s", esc, strerror(errno));
	}
}

/* Is `path` or a directory above it in `set`? */
static bool covered(const struct strv *set, const char *path)
{
	if (strv_contains(set, path))
		return true;
	_cleanup_free_ char *p = xstrdup(path);
	for (char *slash; (slash = strrchr(p, '/'));) {
		*slash = '\0';
		if (strv_contains(set, p))
			return true;
	}
	return false;
}

/* A directory of the upper dir by its path, through no link: the agent may
 * have made any step of it a link in its layer (to another session's upper
 * dir), and what is removed there must be in this session's layer. */
static int upper_dir_beneath(int upper, const char *rel)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
		           RESOLVE_NO_XDEV,
	};
	return (int)syscall(SYS_openat2, upper, rel, &how, sizeof(how));
}

/* Remove the whiteouts of the last run that `now` does not cover (a whiteout
 * below a directory hidden now stays: whiteout() may not be able to replace
 * the directory, and then it still hides what it hid).  True when the last
 * run's list is `list` byte for byte: nothing to remove, nothing to rewrite. */
static bool unhide_stale(const struct session *s, int upper, const struct strv *now,
                         const struct strbuf *list)
{
	_cleanup_free_ char *path = xasprintf("%s/hidden", s->dir);
	_cleanup_free_ char *old = NULL;
	size_t old_len;
	struct jail_err e;
	if (read_file_at(AT_FDCWD, path, 64 << 20, &old, &old_len, &e) < 0)
		return false;
	if (old_len == list->len && (!old_len || memcmp(old, list->s, old_len) == 0))
		return true;
	for (char *line = old, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (covered(now, line))
			continue;
		const char *slash = strrchr(line, '/');
		_cleanup_free_ char *parent = slash ? strndup(line, (size_t)(slash - line)) : NULL;
		_cleanup_close_ int dir = parent ? upper_dir_beneath(upper, parent)
		                                 : fcntl(upper, F_DUPFD_CLOEXEC, 3);
		const char *name = slash ? slash + 1 : line;
		if (dir >= 0 && is_whiteout(dir, name))
			unlinkat(dir, name, 0);
	}
	return false;
}

/* The search for names to hide goes as deep as the view's names do
 * (hidetree.h): a secret-shaped name at a depth the view shows and the search
 * did not reach would be shown (a `.env` 65 directories down was). */
#define HIDE_WALK_DEPTH HIDETREE_DEPTH

/* A secret-shaped name: a pattern without '/' matches the last component
 * (a file or a directory of that name, anywhere), one with '/' the end of the
 * path (`.docker/config.json` in any directory); a trailing '/' is ignored.
 * In any ASCII case (jail keeps the C locale): `SERVER.KEY`, `.ENV`, `Id_Rsa`
 * hold the same secrets, and are the same names where the project is also
 * checked out (macOS, Windows). */
static bool secret_match(const struct strv *patterns, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t i = 0; i < patterns->n; i++) {
		_cleanup_free_ char *pat = xstrdup(patterns->v[i]);
		size_t n = strlen(pat);
		while (n > 1 && pat[n - 1] == '/')
			pat[--n] = '\0';
		if (!strchr(pat, '/')) {
			if (fnmatch(pat, base, FNM_CASEFOLD) == 0)
				return true;
			continue;
		}
		for (const char *c = path; c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL)
			if (fnmatch(pat, c, FNM_PATHNAME | FNM_CASEFOLD) == 0)
				return true;
	}
	return false;
}

typedef bool (*match_fn)(const struct strv *patterns, const char *path);

static bool is_dir_entry(DIR *d, const struct dirent *de)
{
	struct stat st;
	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* Walk the project below `rel` (the walk grows with the tree, so it runs only
 * where it is asked for) and collect what `match` picks, unless `show` lets it
 * in; a matching directory is hidden whole. */
static void collect_disk(int lower, const char *rel, match_fn match, const struct strv *patterns,
                         const struct strv *show, struct strv *hidden, int depth)
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
		if (match(patterns, child) && !(show && namematch_any(show, child))) {
			if (!strv_contains(hidden, child))
				strv_push(hidden, child);
		} else if (is_dir_entry(d, de)) {
			collect_disk(lower, child, match, patterns, show, hidden, depth + 1);
		}
	}
	closedir(d);
}

/* The same over the names the view will serve (hidetree.h), node n at `rel`:
 * read from the project again, a name gone for a moment then (an .env
 * written anew) would not be judged, and be shown when back. */
static void collect_tree(const struct hide_node *n, const char *rel, match_fn match,
                         const struct strv *patterns, const struct strv *show,
                         struct strv *hidden, int depth)
{
	for (size_t i = 0; depth <= HIDE_WALK_DEPTH && i < n->n_kids; i++) {
		const struct hide_node *kid = n->kids[i];
		if (!rel[0] && !strcmp(kid->name, ".git"))
			continue;
		_cleanup_free_ char *child =
			rel[0] ? xasprintf("%s/%s", rel, kid->name) : xstrdup(kid->name);
		if (match(patterns, child) && !(show && namematch_any(show, child))) {
			if (!strv_contains(hidden, child))
				strv_push(hidden, child);
		} else if (kid->dir) {
			collect_tree(kid, child, match, patterns, show, hidden, depth + 1);
		}
	}
}

/* From the tree when there is one (the view's), else from the project. */
static void collect(int lower, struct hide_node *tree, const char *rel, match_fn match,
                    const struct strv *patterns, const struct strv *show, struct strv *hidden,
                    int depth)
{
	const struct hide_node *n = tree ? hidetree_lookup(tree, rel[0] ? rel : ".") : NULL;
	if (n)
		collect_tree(n, rel, match, patterns, show, hidden, depth);
	else if (!tree)
		collect_disk(lower, rel, match, patterns, show, hidden, depth);
}

static int depth_of(const char *rel)
{
	int n = 0;
	for (; *rel; rel++)
		n += *rel == '/';
	return n;
}

/* Whether `path` or a directory above it has a secret-shaped name that `show`
 * (if any) does not let in: judged from the top down, as collect() judges
 * what it walks.  git lists `secrets/prod.txt` on its own when `secrets/` is
 * tracked (a README in it): that path is a secret's too.  The directories in
 * the first `from` bytes (up to a '/') are known to be none. */
static bool secret_on_path_from(const struct jail_config *cfg, const char *path,
                                const struct strv *show, size_t from)
{
	_cleanup_free_ char *p = xstrdup(path);
	for (char *slash = p + from;; slash++) {
		slash = strchr(slash, '/');
		if (slash)
			*slash = '\0';
		if (secret_match(&cfg->secret_names, p) && !(show && namematch_any(show, p)))
			return true;
		if (!slash)
			return false;
		*slash = '/';
	}
}

static bool secret_on_path(const struct jail_config *cfg, const char *path,
                           const struct strv *show)
{
	return secret_on_path_from(cfg, path, show, 0);
}

/* hide_ignored = secrets: an ignored path of a secret-shaped name, or below a
 * directory of one, is hidden (git lists `secrets/prod.txt` on its own when
 * `secrets/` is tracked, with a README); an ignored directory that is not is
 * shown, but secret-shaped names inside it are looked for and hidden
 * (build/.env). */
static void select_secrets(int lower, struct hide_node *tree, const struct strv *ignored,
                           const struct jail_config *cfg, struct strv *hidden)
{
	/* git lists a directory's paths together (90,000 *.o of a build in
	 * place): the directories above the last path not hidden were judged,
	 * and are not judged again for the next path in the same directory */
	_cleanup_free_ char *judged = NULL;
	size_t judged_len = 0;
	for (size_t i = 0; i < ignored->n; i++) {
		const char *p = ignored->v[i];
		struct stat st;
		if (namematch_any(&cfg->show_ignored, p))
			continue;
		bool same = judged && !strncmp(p, judged, judged_len) && p[judged_len] == '/';
		if (secret_on_path_from(cfg, p, &cfg->show_ignored, same ? judged_len + 1 : 0)) {
			strv_push(hidden, p);
			continue;
		}
		const char *last = strrchr(p, '/');
		free(judged);
		judged = last ? strndup(p, (size_t)(last - p)) : NULL;
		judged_len = last ? (size_t)(last - p) : 0;
		/* (the tree's node: a file's has no names below it) */
		if (tree || (fstatat(lower, p, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)))
			collect(lower, tree, p, secret_match, &cfg->secret_names, &cfg->show_ignored,
			        hidden, depth_of(p) + 1);
	}
}

void hide_gitdir_secrets(const char *lower, const char *upper, const struct jail_config *cfg)
{
	if (cfg->hide_ignored == HIDE_NONE || !cfg->secret_names.n)
		return;
	_cleanup_close_ int lo = open(lower, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_close_ int up = open(upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = lo >= 0 && up >= 0 ? opendir_at(lo, ".") : NULL;
	struct dirent *de;
	/* a file or a directory (`.git/credentials/store`), as the view judges
	 * the project's .git; git's own names at the top are none of these */
	while (d && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    secret_match(&cfg->secret_names, de->d_name))
			whiteout(up, lo, de->d_name);
	}
	if (d)
		closedir(d);
}

bool hide_names_match(const struct strv *patterns, const char *path)
{
	return secret_match(patterns, path);
}

bool hide_secret_name(const struct jail_config *cfg, const char *path)
{
	return secret_on_path(cfg, path, NULL);
}

bool hide_secret_name_after(const struct jail_config *cfg, const char *path, size_t from)
{
	return secret_on_path_from(cfg, path, NULL, from);
}

bool hide_by_rule(const struct jail_config *cfg, bool no_rules, const char *path)
{
	if (no_rules && cfg->hide_ignored != HIDE_NONE && secret_on_path(cfg, path, &cfg->show_ignored))
		return true;
	_cleanup_free_ char *p = xstrdup(path);
	/* each directory above, then the path itself: as collect() walks down */
	for (char *slash = p;; slash++) {
		slash = strchr(slash, '/');
		if (slash)
			*slash = '\0';
		if (namematch_any(&cfg->hide, p))
			return true;
		if (!slash)
			return false;
		*slash = '/';
	}
}

/* What is hidden at start (the selection; hide_apply enforces it). */
int hide_select(const struct session *s, const struct jail_config *cfg, struct hide_node *tree,
                struct ignore_prefetch *pre, struct hide_set *out, struct jail_err *e)
{
	struct strv ignored = {0};
	memset(out, 0, sizeof(*out));
	int r = ignored_paths(s, tree, pre, &ignored, e);
	if (r < 0)
		return -1;
	out->no_rules = r == 1;
	_cleanup_close_ int lower = open(s->project, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lower < 0) {
		int err = errno;
		_cleanup_free_ char *pesc = escape_name(s->project);
		strv_free(&ignored);
		return jail_err_set(e, err, "open '%s'", pesc);
	}
	if (out->no_rules && cfg->hide_ignored != HIDE_NONE) {
		/* no ignore rules to go by: the secret-shaped names, anywhere */
		collect(lower, tree, "", secret_match, &cfg->secret_names, &cfg->show_ignored,
		        &out->paths, 0);
		out->secret_shaped = out->paths.n;
		/* but the repositories inside have theirs (listed with their paths) */
		for (size_t i = 0; cfg->hide_ignored == HIDE_ALL && i < ignored.n; i++)
			if (!namematch_any(&cfg->show_ignored, ignored.v[i]) &&
			    !strv_contains(&out->paths, ignored.v[i])) {
				strv_push(&out->paths, ignored.v[i]);
				out->inner++;
			}
	} else if (cfg->hide_ignored == HIDE_SECRETS) {
		select_secrets(lower, tree, &ignored, cfg, &out->paths);
	} else if (cfg->hide_ignored == HIDE_ALL) {
		for (size_t i = 0; i < ignored.n; i++)
			if (!namematch_any(&cfg->show_ignored, ignored.v[i]))
				strv_push(&out->paths, ignored.v[i]);
		out->ignored = out->paths.n;
	}
	if (cfg->hide.n)
		collect(lower, tree, "", namematch_any, &cfg->hide, NULL, &out->paths, 0);
	strv_free(&ignored);
	return 0;
}

/* Whiteouts for the selection, and the list kept for the exporter. */
int hide_apply(const struct session *s, const struct hide_set *set, bool whiteouts,
               struct jail_err *e)
{
	_cleanup_close_ int upper = open(s->upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_close_ int lower = open(s->project, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (upper < 0 || lower < 0) {
		int err = errno;
		_cleanup_free_ char *pesc = escape_name(upper < 0 ? s->upper : s->project);
		return jail_err_set(e, err, "open '%s'", pesc);
	}
	struct strbuf list = {0};
	for (size_t i = 0; i < set->paths.n; i++)
		if (!strchr(set->paths.v[i], '\n'))
			sb_printf(&list, "%s\n", set->paths.v[i]);
	/* stale ones first: a directory hidden now may hold whiteouts of the last run */
	bool same = unhide_stale(s, upper, &set->paths, &list);
	for (size_t i = 0; whiteouts && i < set->paths.n; i++)
		whiteout(upper, lower, set->paths.v[i]);
	int r = 0;
	if (!same) { /* a warm start hides what it hid: the file stays as it is */
		_cleanup_free_ char *path = xasprintf("%s/hidden", s->dir);
		r = write_file_at(AT_FDCWD, path, list.s ? list.s : "", list.len, 0600, e);
	}
	sb_free(&list);
	return r;
}

/* The first `max` top-level names of the first `n` paths, a directory with its
 * '/', escaped, comma-separated, "…" when there are more. */
static char *top_names(int lower, const struct strv *paths, size_t n, size_t max)
{
	struct strv top = {0};
	bool more = false;
	/* directories first: build output lives in them */
	for (size_t k = 0; k < 2 * n && !more; k++) {
		const char *p = paths->v[k % n];
		_cleanup_free_ char *first = strndup(p, strcspn(p, "/"));
		struct stat st;
		bool dir = p[strlen(first)] == '/' ||
		           (fstatat(lower, first, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode));
		if (dir != (k < n))
			continue;
		_cleanup_free_ char *esc = escape_name(first);
		_cleanup_free_ char *name = xasprintf("%s%s", esc, dir ? "/" : "");
		if (strv_contains(&top, name))
			continue;
		if (top.n == max) {
			more = true;
			break;
		}
		strv_push(&top, name);
	}
	struct strbuf b = {0};
	for (size_t i = 0; i < top.n; i++)
		sb_printf(&b, "%s%s", i ? ", " : "", top.v[i]);
	if (more)
		sb_printf(&b, ", …");
	strv_free(&top);
	return b.s ? b.s : xstrdup("");
}

void hide_say_start(const struct session *s, const struct hide_set *set)
{
	if (!set->no_rules)
		return;
	_cleanup_free_ char *esc = escape_name(s->project);
	/* the git repositories in it have rules of their own */
	bool one = set->inner == 1;
	_cleanup_free_ char *inner =
		set->inner ? xasprintf(" (%zu path%s that the git repositories in it ignore %s hidden)",
		                       set->inner, one ? "" : "s", one ? "is" : "are")
		           : xstrdup("");
	if (!set->secret_shaped) {
		log_info("%s is not a git repository: it has no ignore rules%s; nothing there has a "
		         "secret-shaped name ([fs] secret_names)", esc, inner);
		return;
	}
	struct strbuf names = {0};
	for (size_t i = 0; i < set->secret_shaped && i < 4; i++) {
		_cleanup_free_ char *esc_p = escape_name(set->paths.v[i]);
		sb_printf(&names, "%s%s", i ? ", " : "", esc_p);
	}
	if (set->secret_shaped > 4)
		sb_printf(&names, ", …");
	log_info("%s is not a git repository: it has no ignore rules%s; %zu secret-shaped "
	         "path%s hidden (%s); [fs] secret_names or --show PATTERN changes that",
	         esc, inner, set->secret_shaped, set->secret_shaped == 1 ? " is" : "s are", names.s);
	sb_free(&names);
}

void hide_hint(const struct session *s, const struct hide_set *set)
{
	if (!set->ignored)
		return;
	_cleanup_close_ int lower = open(s->project, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_free_ char *names = top_names(lower, &set->paths, set->ignored, 3);
	log_warn("%zu ignored path%s hidden (%s); --show PATTERN or [fs] show_ignored lets "
	         "them in, --hide-ignored=secrets hides only secret-shaped ones",
	         set->ignored, set->ignored == 1 ? " was" : "s were", names);
}

void hide_set_free(struct hide_set *set)
{
	strv_free(&set->paths);
	memset(set, 0, sizeof(*set));
}

int hide_ignored(const struct session *s, const struct jail_config *cfg, struct hide_node *tree,
                 struct ignore_prefetch *pre, struct hide_set *set, struct jail_err *e)
{
	if (hide_select(s, cfg, tree, pre, set, e) < 0)
		return -1;
	return hide_apply(s, set, true, e);
}
