/* bindcover.c — covers over the hidden files a bind inside the project
 * shows (bindcover.h). */
#include "bindcover.h"

#include "gitcreds.h"
#include "log.h"
#include "namematch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- the supervisor ---- */

/* One line for a bind of a directory inside the project: what it shows. */
static void say_bind(const struct jail_config *cfg, const char *flag, const char *path,
                     bool rw)
{
	_cleanup_free_ char *esc = escape_name(path);
	bool covered = cfg->hide_ignored != HIDE_NONE && cfg->secret_names.n;
	log_info("%s %s shows the host's directory as it is: the ignored files in it are "
	         "readable%s%s", flag, esc, rw ? " and written on the host" : "",
	         covered ? "; secret-shaped names in it are covered (--show PATH lets one in)"
	                 : "");
}

/* A bind inside the project, as the host resolves it. */
struct inside {
	const char *flag, *path; /* as named */
	char *rel;               /* relative to the project, "" for the project */
	bool dir;
};

/* Another bind inside `outer`'s directory, in a directory below it that the
 * outer bind covers (--ro sub --rw sub/secrets/keep): its mount point could
 * not be made in the cover.  The name of that directory, or NULL. */
static char *covered_between(const struct namematch *m, const char *outer,
                             const char *inner)
{
	if (strcmp(outer, inner) == 0 || !path_at_or_below(inner, outer))
		return NULL;
	_cleanup_free_ char *p = xstrdup(inner);
	/* each directory strictly between: outer's next name to inner's parent */
	for (char *slash = p + strlen(outer) + 1; (slash = strchr(slash, '/')); *slash++ = '/') {
		*slash = '\0';
		enum name_verdict v = namematch_judge(m, p);
		if (v == NAME_SHOWN)
			return NULL;
		if (v == NAME_COVER)
			return xstrdup(p);
	}
	return NULL;
}

/* The binds inside the project (`in`, filled); one of the project itself
 * is an error. */
static int find_inside(const struct jail_config *cfg, const char *project, struct inside *in,
                       size_t *n, struct jail_err *e)
{
	const struct { const struct strv *l; const char *flag; } lists[] = {
		{&cfg->ro_binds, "--ro"}, {&cfg->rw_binds, "--rw"},
	};
	for (size_t k = 0; k < ARRAY_SIZE(lists); k++)
		for (size_t i = 0; i < lists[k].l->n; i++) {
			const char *path = lists[k].l->v[i];
			_cleanup_free_ char *real = realpath(path, NULL);
			struct stat st;
			/* absent: a policy's optional path, bound as nothing */
			if (!real || stat(real, &st) < 0 || !path_at_or_below(real, project))
				continue;
			_cleanup_free_ char *esc = escape_name(path);
			if (strcmp(real, project) == 0)
				return jail_err_set(e, 0, "%s %s is the project itself, which the jail "
				                    "shows through its own overlay (ignored files "
				                    "hidden, changes kept for review); drop it, or name "
				                    "a directory inside the project", lists[k].flag, esc);
			in[(*n)++] = (struct inside){lists[k].flag, path,
			                             xstrdup(real + strlen(project) + 1),
			                             S_ISDIR(st.st_mode)};
		}
	return 0;
}

int bindcover_check(const struct jail_config *cfg, const char *project, struct jail_err *e)
{
	size_t total = cfg->ro_binds.n + cfg->rw_binds.n, n = 0;
	struct inside *in = xcalloc(total ? total : 1, sizeof(*in));
	struct namematch *m = namematch_new(cfg);
	int r = find_inside(cfg, project, in, &n, e);
	for (size_t i = 0; r == 0 && i < n; i++)
		for (size_t j = 0; r == 0 && j < n; j++) {
			_cleanup_free_ char *dir = in[i].dir ? covered_between(m, in[i].rel, in[j].rel)
			                                     : NULL;
			if (!dir)
				continue;
			_cleanup_free_ char *esc_in = escape_name(in[j].path);
			_cleanup_free_ char *esc_out = escape_name(in[i].path);
			_cleanup_free_ char *esc_dir = escape_name(dir);
			r = jail_err_set(e, 0, "%s %s lies in %s, which %s %s covers (a secret-shaped "
			                 "name); --show %s to show it, or drop one of the two",
			                 in[j].flag, esc_in, esc_dir, in[i].flag, esc_out, esc_dir);
		}
	/* said once all is well: a refusal is one line */
	for (size_t i = 0; r == 0 && i < n; i++)
		if (in[i].dir)
			say_bind(cfg, in[i].flag, in[i].path, strcmp(in[i].flag, "--rw") == 0);
	for (size_t i = 0; i < n; i++)
		free(in[i].rel);
	free(in);
	namematch_free(m);
	return r;
}

/* ---- init ---- */

/* The empty file and directory mounted over what is covered: made once in
 * the scratch root (init's cwd; detached with it at the pivot, the mounts of
 * them stay) and bound onto themselves read-only, so each cover, a bind of
 * one of them, is read-only too (a bind takes the flags of its source's
 * mount) with one mount(2) each. */
#define COVERS "/bindcover"
#define COVER_FILE COVERS "/file"
#define COVER_DIR COVERS "/dir"

static int covers_ready(struct jail_err *e)
{
	static bool ready;
	if (ready)
		return 0;
	if (mkdir(COVERS, 0755) < 0 || mkdir(COVER_DIR, 0555) < 0)
		return jail_err_sys(e, "create " COVERS);
	int fd = open(COVER_FILE, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
	if (fd < 0)
		return jail_err_sys(e, "create " COVER_FILE);
	close(fd);
	if (mount(COVERS, COVERS, NULL, MS_BIND, NULL) < 0 ||
	    mount(NULL, COVERS, NULL,
	          MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return jail_err_sys(e, "make " COVERS " read-only");
	ready = true;
	return 0;
}

const char *bindcover_file(struct jail_err *e)
{
	return covers_ready(e) < 0 ? NULL : COVER_FILE;
}

struct walk {
	const struct namematch *m;
	bool shown; /* below what --show names: only fs.hide still hides */
	bool refs;  /* below a git directory's refs/ or logs/: branches' names */
	bool in_secret; /* there, below a directory of a secret-shaped name */
	bool rw;        /* the bind is writable: the agent can move what is there */
	size_t top_len; /* strlen of the top's path (rel) */
	struct strv pins; /* directories to pin once the walk is done, below the top */
	const char *what;
	struct bindcover_count *count;
	char rel[PATH_MAX];
	struct jail_err *e;
};

static int too_many(struct walk *w, const char *which, unsigned max)
{
	_cleanup_free_ char *esc = escape_name(w->rel);
	return jail_err_set(w->e, 0, "%s holds more than %u %s to cover its secret-shaped "
	                    "names (at %s); bind a smaller directory, or --show the path to "
	                    "show all of it as on the host", w->what, max, which, esc);
}

/* A cover is a mount: what it covers cannot be renamed or removed.  But
 * below a --rw the agent could move a directory on its way, to where the
 * next start would not cover it: a secret's directory into one --show names,
 * a .git holding credentials out of its name (its config covered as a .git's
 * only), a socket's away from the kernel's name of it.  So, once the walk is
 * done, each directory between the top and a cover (`rel`, its last name
 * the mount point) is pinned: bound onto itself, a mount point too. */
static void pin_later(struct walk *w, const char *rel)
{
	size_t start = w->top_len ? w->top_len + 1 : 0;
	if (!w->rw || strlen(rel) <= start)
		return;
	for (const char *s = rel + start; (s = strchr(s, '/')); s++) {
		char *d = strndup(rel + start, (size_t)(s - rel - start));
		if (d && !strv_contains(&w->pins, d))
			strv_push_take(&w->pins, d);
		else
			free(d);
	}
}

/* The pins, outermost first (each chain was recorded so), through the
 * top's fd: a mount of each with what is mounted below it (the covers). */
static int pin_all(struct walk *w, int top)
{
	for (size_t i = 0; i < w->pins.n; i++) {
		struct open_how how = {
			.flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		};
		_cleanup_close_ int fd =
			(int)syscall(SYS_openat2, top, w->pins.v[i], &how, sizeof(how));
		_cleanup_free_ char *on = fd < 0 ? NULL : xasprintf("/oldroot/proc/self/fd/%d", fd);
		if (!on || mount(on, on, NULL, MS_BIND | MS_REC, NULL) < 0) {
			_cleanup_free_ char *esc = escape_name(w->pins.v[i]);
			return jail_err_sys(w->e, "%s: pin %s, on the way to a cover (run again if "
			                    "it moved during the start)", w->what, esc);
		}
	}
	return 0;
}

/* Mount the empty file or directory over `name` in dir (not a link: one
 * resolves in the jail, to the view or a cover), by its fd: a name swapped
 * since does not move the mount. */
static int cover(struct walk *w, int dir, const char *name)
{
	struct stat st;
	_cleanup_close_ int fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		_cleanup_free_ char *esc = escape_name(w->rel);
		return jail_err_sys(w->e, "%s: open %s to cover it", w->what, esc);
	}
	if (S_ISLNK(st.st_mode))
		return 0;
	if (++w->count->covers > BINDCOVER_COVERS_MAX)
		return too_many(w, "secret-shaped names", BINDCOVER_COVERS_MAX);
	_cleanup_free_ char *on = xasprintf("/oldroot/proc/self/fd/%d", fd);
	if (mount(S_ISDIR(st.st_mode) ? COVER_DIR : COVER_FILE, on, NULL, MS_BIND, NULL) < 0) {
		_cleanup_free_ char *esc = escape_name(w->rel);
		return jail_err_sys(w->e, "%s: cover %s", w->what, esc);
	}
	pin_later(w, w->rel);
	return 0;
}

/* A git directory below the bind (a clone in vendor/, the project's own
 * .git) shows its config as the host has it, where the view withholds the
 * credentials in it (gitcreds.h): one that holds any gets a copy without
 * them bound over it, read-only; one too large to read, the empty file. */
#define GITCFG COVERS "-git"
#define GITCFG_MAX (4u << 20)

static int cover_git_config(struct walk *w, int gitdir)
{
	static unsigned next;
	struct stat st;
	_cleanup_close_ int fd =
		openat(gitdir, "config", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	_cleanup_free_ char *text = NULL, *clean = NULL;
	size_t len = 0;
	unsigned withheld = 0;
	struct jail_err ignored;
	bool whole = read_file_fd(fd, "config", GITCFG_MAX, &text, &len, &ignored) == 0;
	if (whole && !(clean = gitcreds_redact(text, len, &withheld)))
		return 0;
	_cleanup_free_ char *copy = xasprintf(GITCFG "/%u", next++);
	_cleanup_free_ char *esc = escape_name(w->rel);
	if (whole && ((mkdir(GITCFG, 0700) < 0 && errno != EEXIST) ||
	              write_file_at(AT_FDCWD, copy, clean, strlen(clean), 0444, w->e) < 0 ||
	              mount(copy, copy, NULL, MS_BIND, NULL) < 0 ||
	              mount(NULL, copy, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID |
	                    MS_NODEV | MS_NOEXEC, NULL) < 0))
		return jail_err_sys(w->e, "%s: a copy of %s/config without its credentials",
		                    w->what, esc);
	_cleanup_free_ char *on = xasprintf("/oldroot/proc/self/fd/%d", fd);
	if (mount(whole ? copy : COVER_FILE, on, NULL, MS_BIND, NULL) < 0)
		return jail_err_sys(w->e, "%s: cover %s/config", w->what, esc);
	w->count->covers++;
	_cleanup_free_ char *cfg = xasprintf("%s/config", w->rel);
	pin_later(w, cfg);
	return 0;
}

static bool is_dir(int dir, const struct dirent *de)
{
	struct stat st;
	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return fstatat(dir, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

static int walk_dir(struct walk *w, int fd, int depth, bool git_top);

/* A socket or a named FIFO: a live one is a door to the host process behind
 * it, which a read-only mount does not close (livesock.h); this walk finds
 * them all, whatever their names (another name of a socket's inode too),
 * where the sockets' list by path cannot. */
static bool is_door(int dir, const struct dirent *de)
{
	struct stat st;
	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_SOCK || de->d_type == DT_FIFO;
	return fstatat(dir, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       (S_ISSOCK(st.st_mode) || S_ISFIFO(st.st_mode));
}

/* What git writes below refs/ and logs/: a ref ("<id>\n", "ref: <name>\n")
 * or a reflog, whose lines start "<old id> <new id> "; a regular file whose
 * first line is one of them.  (The file is the host's: under a --rw the
 * agent can move it, but not write into it while it is covered.) */
static bool holds_ref(int dir, const char *name)
{
	_cleanup_close_ int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char b[160];
	ssize_t n = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, b, sizeof(b) - 1)
	                                                                : -1;
	if (n <= 0)
		return false;
	b[n] = '\0';
	size_t h = strspn(b, "0123456789abcdef");
	if (h == 40 || h == 64)
		return b[h] == '\n' || (b[h] == ' ' && strspn(b + h + 1, "0123456789abcdef") == h &&
		                        b[2 * h + 1] == ' ');
	return strncmp(b, "ref: ", 5) == 0 && strchr(b, '\n') && !strchr(b, '\n')[1];
}

/* One entry of the directory at `fd`; w->rel is its path; git_top: that
 * directory is a .git.  Every name is judged, also below a git directory's
 * objects/, refs/ and logs/, where the view (whose tree the agent cannot
 * rearrange) judges none: through a --rw the agent moves the host's files,
 * and a secret's directory moved below sub/.git/objects/ was the host's at
 * the next start.  Below refs/ and logs/ names are branches' (secrets/x):
 * there a secret-shaped name is covered unless git wrote it, a ref or a
 * reflog, and a directory is walked, not covered whole. */
static int walk_entry(struct walk *w, int fd, const struct dirent *de, int depth,
                      bool git_top)
{
	if (++w->count->entries > BINDCOVER_ENTRIES_MAX)
		return too_many(w, "entries", BINDCOVER_ENTRIES_MAX);
	if (is_door(fd, de))
		return cover(w, fd, de->d_name);
	enum name_verdict v = !w->shown ? namematch_judge(w->m, w->rel)
	                      : namematch_hides(w->m, w->rel) ? NAME_COVER : NAME_KEEP;
	bool secret_dir = false;
	if (w->refs && (v == NAME_COVER || w->in_secret)) {
		if (!is_dir(fd, de))
			return holds_ref(fd, de->d_name) ? 0 : cover(w, fd, de->d_name);
		secret_dir = true; /* (each file below judged so) */
		v = NAME_KEEP;
	}
	if (v == NAME_COVER)
		return cover(w, fd, de->d_name);
	if (!is_dir(fd, de))
		return 0;
	if (depth >= BINDCOVER_DEPTH_MAX)
		return too_many(w, "levels of directories", BINDCOVER_DEPTH_MAX);
	int sub = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0) {
		/* no more readable to the agent, which has init's rights here, or
		 * fewer: what neither can list, neither reads below */
		if (errno == EACCES || errno == EPERM)
			return 0;
		_cleanup_free_ char *esc = escape_name(w->rel);
		return jail_err_sys(w->e, "%s: open %s", w->what, esc);
	}
	bool git = strcmp(de->d_name, ".git") == 0;
	if (git && cover_git_config(w, sub) < 0) {
		close(sub);
		return -1;
	}
	/* a directory --show names is walked too: for what fs.hide names below
	 * it (the view hides that whatever --show says), and its sockets */
	bool was = w->shown, was_refs = w->refs, was_secret = w->in_secret;
	w->shown = was || v == NAME_SHOWN;
	w->refs = was_refs || (git_top && (!strcmp(de->d_name, "refs") ||
	                                   !strcmp(de->d_name, "logs")));
	w->in_secret = was_secret || secret_dir;
	int r = walk_dir(w, sub, depth + 1, git);
	w->shown = was;
	w->refs = was_refs;
	w->in_secret = was_secret;
	return r;
}

/* Walk the directory at `fd` (taken), whose path is w->rel. */
static int walk_dir(struct walk *w, int fd, int depth, bool git_top)
{
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return jail_err_sys(w->e, "%s: read a directory", w->what);
	}
	size_t len = strlen(w->rel);
	int r = 0;
	struct dirent *de;
	errno = 0;
	while (r == 0 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		int n = snprintf(w->rel + len, sizeof(w->rel) - len, "%s%s", len ? "/" : "",
		                 de->d_name);
		if (n < 0 || (size_t)n >= sizeof(w->rel) - len)
			r = too_many(w, "bytes in a path", PATH_MAX);
		else
			r = walk_entry(w, dirfd(d), de, depth, git_top);
		w->rel[len] = '\0';
		errno = 0;
	}
	if (r == 0 && errno != 0)
		r = jail_err_sys(w->e, "%s: read a directory", w->what);
	closedir(d);
	return r;
}

/* --show names the top or a directory above it: below, only fs.hide hides. */
static bool shown_whole(const struct namematch *m, const char *rel)
{
	_cleanup_free_ char *p = xstrdup(rel);
	for (char *slash = p; *p;) {
		slash = strchr(slash, '/');
		if (slash)
			*slash = '\0';
		if (namematch_judge(m, p) == NAME_SHOWN)
			return true;
		if (!slash)
			return false;
		*slash++ = '/';
	}
	return false;
}

int bindcover_walk(const struct jail_config *cfg, int top, const char *rel, bool rw,
                   const char *what, struct bindcover_count *count, struct jail_err *e)
{
	struct namematch *m = namematch_new(cfg);
	/* walked whatever the rules: every socket and FIFO below is covered */
	struct walk w = {.m = m, .shown = shown_whole(m, rel), .what = what, .count = count, .e = e,
	                 .rw = rw, .top_len = strlen(rel)};
	int r = 0;
	if (strlen(rel) >= sizeof(w.rel))
		r = jail_err_set(e, ENAMETOOLONG, "%s: path too long", what);
	else
		strcpy(w.rel, rel);
	if (r == 0)
		r = covers_ready(e);
	int fd = r < 0 ? -1 : openat(top, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r == 0 && fd < 0)
		r = jail_err_sys(e, "%s: read it to cover its secret-shaped names", what);
	const char *base = strrchr(rel, '/');
	bool git = strcmp(base ? base + 1 : rel, ".git") == 0;
	if (r == 0 && git)
		r = cover_git_config(&w, fd);
	if (r == 0)
		r = walk_dir(&w, fd, 0, git);
	else if (fd >= 0)
		close(fd);
	if (r == 0)
		r = pin_all(&w, top);
	strv_free(&w.pins);
	log_debug("init: %s: %zu entries looked at below binds in the project, %zu covered",
	          what, count->entries, count->covers);
	namematch_free(m);
	return r;
}
