/* export.c — walk the upper dir against the lower and classify what changed. */
#include "export.h"

#include "applied.h"
#include "git.h"
#include "hide.h"
#include "hideobj.h"
#include "hostgit.h"
#include "linkcheck.h"
#include "repodir.h"
#include "submodule.h"
#include "log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#define LOWER_READ_MAX (1LL << 30)

/* ---- opening and reading below a root, never following a symlink ---- */

static int open_walk(int dirfd, const char *rel, int flags)
{
	_cleanup_free_ char *copy = xstrdup(rel);
	_cleanup_close_ int cur = -1;
	char *save = NULL, *part = strtok_r(copy, "/", &save);
	while (part) {
		char *next = strtok_r(NULL, "/", &save);
		if (strcmp(part, "..") == 0 || strcmp(part, ".") == 0) {
			errno = EXDEV;
			return -1;
		}
		int base = cur >= 0 ? cur : dirfd;
		int f = next ? O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
		             : flags | O_NOFOLLOW | O_CLOEXEC;
		int fd = openat(base, part, f);
		if (fd < 0)
			return -1;
		closep(&cur);
		cur = fd;
		part = next;
	}
	return steal_fd(&cur);
}

int open_beneath(int dirfd, const char *rel, int flags)
{
	/* what lies there is the agent's: a fifo where the walk saw a file (a live
	 * session swaps them) must not make the open wait for a writer */
	if (!(flags & O_PATH))  /* openat2 refuses O_PATH with other flags */
		flags |= O_NONBLOCK;
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_NOFOLLOW | O_CLOEXEC),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
	if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
		return fd;
	return open_walk(dirfd, rel, flags);
}

static int read_fd_all(int fd, size_t max, struct strbuf *out)
{
	char chunk[65536];
	for (;;) {
		ssize_t r = read(fd, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			return 0;
		if (out->len + (size_t)r > max) {
			errno = EFBIG;
			return -1;
		}
		sb_append(out, chunk, (size_t)r);
	}
}

int read_entry(int dirfd, const char *rel, enum ftype t, size_t max, struct strbuf *out,
               struct jail_err *e)
{
	sb_append(out, "", 0);
	if (t == FT_SYMLINK) {
		/* O_PATH|O_NOFOLLOW opens the link itself; readlinkat with "" reads it */
		_cleanup_close_ int fd = open_beneath(dirfd, rel, O_PATH);
		char buf[4096];
		ssize_t n = fd < 0 ? -1 : readlinkat(fd, "", buf, sizeof(buf));
		if (n < 0 || (size_t)n >= sizeof(buf)) {
			_cleanup_free_ char *esc = escape_name(rel);
			return jail_err_sys(e, "read symlink '%s'", esc);
		}
		sb_append(out, buf, (size_t)n);
		return 0;
	}
	_cleanup_close_ int fd = open_beneath(dirfd, rel, O_RDONLY);
	struct stat st;
	int r = fd < 0 || fstat(fd, &st) < 0 ? -1 : 0;
	if (r == 0 && !S_ISREG(st.st_mode)) {
		errno = EINVAL;  /* it changed type since the walk */
		r = -1;
	}
	if (r == 0)
		r = read_fd_all(fd, max, out);
	if (r < 0) {
		_cleanup_free_ char *esc = escape_name(rel);
		return jail_err_sys(e, "read '%s'", esc);
	}
	return 0;
}

/* ---- the changeset ---- */

static struct change *change_add(struct changeset *cs, const char *path, enum ftype old_t,
                                 enum ftype new_t)
{
	if (cs->n == cs->cap) {
		cs->cap = cs->cap ? cs->cap * 2 : 32;
		cs->v = xrealloc(cs->v, cs->cap * sizeof(*cs->v));
	}
	struct change *c = &cs->v[cs->n++];
	memset(c, 0, sizeof(*c));
	c->path = xstrdup(path);
	cs->path_bytes += strlen(path) + 1;
	c->old_type = old_t;
	c->new_type = new_t;
	return c;
}

void changeset_free(struct changeset *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		change_drop_fd(&cs->v[i]);
		free(cs->v[i].path);
		free(cs->v[i].reason);
		free(cs->v[i].note);
	}
	free(cs->v);
	strv_free(&cs->git_dirs);
	memset(cs, 0, sizeof(*cs));
}

size_t changeset_included(const struct changeset *cs)
{
	size_t n = 0;
	for (size_t i = 0; i < cs->n; i++)
		n += cs->v[i].reason == NULL;
	return n;
}

/* ---- the walk ---- */

struct walk {
	struct export_ctx *x;
	struct changeset *cs;
	struct jail_err *e;
	int depth;
};

/* Beyond these the agent is building a trap (fd exhaustion, paths longer than
 * the kernel resolves), not a project: left out, and the export goes on.  The
 * walk holds three fds and one small frame per level. */
#define WALK_MAX_DEPTH 64
#define WALK_MAX_PATH 2048

/* The memory of a walk is bounded for any number of files: past this many
 * changed paths, or this many bytes of their names, the walk stops and the
 * changeset says so (export.h: truncated). */
#define WALK_MAX_CHANGES 100000
#define WALK_MAX_PATH_BYTES (16u << 20)

/* Is the changeset full?  Then the walk unwinds (-1, cs->truncated set). */
static int walk_full(struct walk *w)
{
	if (w->cs->n < WALK_MAX_CHANGES && w->cs->path_bytes < WALK_MAX_PATH_BYTES)
		return 0;
	w->cs->truncated = true;
	return jail_err_set(w->e, 0, "more than %d changed paths", WALK_MAX_CHANGES);
}

/* A directory too deep to walk: one left-out entry for all of it. */
static void too_deep(struct walk *w, const char *path, enum ftype old_t, enum ftype new_t)
{
	change_add(w->cs, path, old_t, new_t)->reason =
		xasprintf("nested deeper than %d directories or longer than %d bytes",
		          WALK_MAX_DEPTH, WALK_MAX_PATH);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Was path (or a directory above it) whited out by the supervisor to hide a
 * git-ignored file?  Those whiteouts are not the agent's deletions. */
bool export_path_hidden(const struct export_ctx *x, const char *path)
{
	if (x->hidden.n == 0)
		return false;
	_cleanup_free_ char *p = xstrdup(path);
	for (;;) {
		char *key = p;
		if (bsearch(&key, x->hidden.v, x->hidden.n, sizeof(char *), cmp_str))
			return true;
		char *slash = strrchr(p, '/');
		if (!slash)
			return false;
		*slash = '\0';
	}
}

bool export_path_hidden_now(const struct export_ctx *x, const char *path, bool on_host)
{
	return export_path_hidden(x, path) ||
	       (on_host && x->cfg && hide_by_rule(x->cfg, !x->is_repo, path));
}

static enum ftype ftype_of(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return FT_FILE;
	if (S_ISLNK(st->st_mode))
		return FT_SYMLINK;
	if (S_ISDIR(st->st_mode))
		return FT_DIR;
	return FT_SPECIAL;
}

static const char *special_kind(mode_t m)
{
	if (S_ISFIFO(m))
		return "a fifo";
	if (S_ISSOCK(m))
		return "a socket";
	return "a device node";
}

bool overlay_is_whiteout(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && st->st_rdev == makedev(0, 0);
}

bool overlay_is_opaque(int dirfd)
{
	char v[4];
	static const char *const names[] = {"user.overlay.opaque", "trusted.overlay.opaque"};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		ssize_t n = fgetxattr(dirfd, names[i], v, sizeof(v));
		if (n == 1 && v[0] == 'y')
			return true;
	}
	return false;
}

static char *join(const char *rel, const char *name)
{
	return rel ? xasprintf("%s/%s", rel, name) : xstrdup(name);
}

/* The agent can chmod its files and directories 000: that leaves them out, it
 * does not stop the export.  Returns 1 when errno says so (and records it). */
static int unreadable(struct walk *w, const char *path, enum ftype old_t, enum ftype new_t)
{
	if (errno != EACCES && errno != EPERM)
		return 0;
	change_add(w->cs, path, old_t, new_t)->reason = xasprintf("cannot read it: %s", strerror(errno));
	return 1;
}

/* A live read (`jail status`, `jail diff` of a running session) lists a
 * directory, then opens what it listed: the agent may have removed or
 * replaced it in between (an editor's write-and-rename).  Such a path is left
 * out with that reason, as of this read; an export of the ended session never
 * meets one.  Returns 1 when errno says so (and records it). */
static int changed_while_read(struct walk *w, const char *path, const struct stat *lst)
{
	if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP && errno != ENXIO)
		return 0;
	change_add(w->cs, path, lst ? ftype_of(lst) : FT_NONE, FT_NONE)->reason =
		xstrdup("it changed while it was read (the session is running): read it again");
	return 1;
}

/* Every file and symlink below the lower directory name is deleted. */
static int delete_lower_tree(struct walk *w, int lfd, const char *name, const char *path)
{
	DIR *d = opendir_at(lfd, name);
	if (!d) {
		_cleanup_free_ char *esc = escape_name(path);
		return jail_err_sys(w->e, "open '%s' in the project", esc);
	}
	int ret = 0;
	struct dirent *de;
	w->depth++;
	while (ret == 0 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !strcmp(de->d_name, ".git"))
			continue;
		_cleanup_free_ char *p = join(path, de->d_name);
		struct stat st;
		if (export_path_hidden(w->x, p) || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		enum ftype t = ftype_of(&st);
		if ((ret = walk_full(w)) < 0)
			break;
		if (t == FT_DIR && (w->depth >= WALK_MAX_DEPTH || strlen(p) > WALK_MAX_PATH))
			too_deep(w, p, FT_DIR, FT_NONE);
		else if (t == FT_DIR)
			ret = delete_lower_tree(w, dirfd(d), de->d_name, p);
		else if (t != FT_SPECIAL)
			change_add(w->cs, p, t, FT_NONE)->old_exec = st.st_mode & 0100;
	}
	w->depth--;
	closedir(d);
	return ret;
}

/* The lower entry at name is gone from the merged view. */
static int delete_lower(struct walk *w, int lfd, const char *name, const char *path,
                        const struct stat *lst)
{
	enum ftype t = ftype_of(lst);
	if (t == FT_DIR)
		return delete_lower_tree(w, lfd, name, path);
	if (t != FT_SPECIAL)
		change_add(w->cs, path, t, FT_NONE)->old_exec = lst->st_mode & 0100;
	return 0;
}

static int same_content(int ufd, int lfd, const char *name, bool *same)
{
	/* the walk saw two files; a live session may have put a fifo there since,
	 * which must not make the open wait for a writer (open_beneath) */
	const int flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
	_cleanup_close_ int a = openat(ufd, name, flags);
	_cleanup_close_ int b = openat(lfd, name, flags);
	struct stat sa, sb;
	if (a < 0 || b < 0 || fstat(a, &sa) < 0 || fstat(b, &sb) < 0)
		return -1;
	if (!S_ISREG(sa.st_mode) || !S_ISREG(sb.st_mode)) {
		*same = false;  /* no longer a file: a change, which the filter reads again */
		return 0;
	}
	static char ba[65536], bb[65536];
	for (;;) {
		ssize_t ra = read(a, ba, sizeof(ba));
		ssize_t rb = ra < 0 ? -1 : read(b, bb, (size_t)ra ? (size_t)ra : 1);
		if (ra < 0 || rb < 0)
			return -1;
		if (ra != rb || memcmp(ba, bb, (size_t)ra) != 0) {
			*same = false;
			return 0;
		}
		if (ra == 0) {
			*same = true;
			return 0;
		}
	}
}

static int same_link(int ufd, int lfd, const char *name, bool *same)
{
	char a[4096], b[4096];
	ssize_t na = readlinkat(ufd, name, a, sizeof(a));
	ssize_t nb = readlinkat(lfd, name, b, sizeof(b));
	if (na < 0 || nb < 0)
		return -1;
	*same = na == nb && memcmp(a, b, (size_t)na) == 0;
	return 0;
}

/* A regular file or symlink in the upper dir, against the lower entry (if any). */
static int classify_leaf(struct walk *w, int ufd, int lfd, const char *name, const char *path,
                         const struct stat *st, const struct stat *lst)
{
	enum ftype nt = ftype_of(st), ot = lst ? ftype_of(lst) : FT_NONE;
	bool nexec = nt == FT_FILE && (st->st_mode & 0100);
	bool oexec = ot == FT_FILE && (lst->st_mode & 0100);
	if (ot == FT_DIR) {
		if (delete_lower_tree(w, lfd, name, path) < 0)
			return -1;
		ot = FT_NONE;
	} else if (ot == FT_SPECIAL) {
		ot = FT_NONE;
	}
	if (ot == nt) {
		bool same = false;
		int r = 0;
		if (nt == FT_FILE && st->st_size == lst->st_size)
			r = same_content(ufd, lfd, name, &same);
		else if (nt == FT_SYMLINK)
			r = same_link(ufd, lfd, name, &same);
		if (r < 0 && (unreadable(w, path, ot, nt) || changed_while_read(w, path, lst)))
			return 0;
		if (r < 0) {
			_cleanup_free_ char *esc = escape_name(path);
			return jail_err_sys(w->e, "compare '%s' with the project", esc);
		}
		if (same && nexec == oexec)
			return 0;
	}
	struct change *c = change_add(w->cs, path, ot, nt);
	c->old_exec = oexec;
	c->new_exec = nexec;
	c->new_size = st->st_size;
	return 0;
}

static int walk_dir(struct walk *w, int ufd, int lfd, bool opaque, const char *rel);

/* A directory new to the project that holds a .git of its own (the agent's
 * `git submodule add`, `git clone`, `git worktree add` in the tree) is another
 * repository: git on the host shows it as one entry and never adds its files
 * to the superproject, so its files are left out as one, not exported as the
 * project's own. */
static bool own_repository(struct walk *w, int sub, const char *path, const struct stat *lst)
{
	struct stat st;
	if (fstatat(sub, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	_cleanup_free_ char *shown = xasprintf("%s/", path);  /* reads as a directory */
	change_add(w->cs, shown, lst ? ftype_of(lst) : FT_NONE, FT_DIR)->reason =
		xstrdup("a git repository of its own (submodule add, clone, worktree add): "
		        "its files are not the project's");
	return true;
}

/* A directory in the upper dir: recurse with the lower directory of that name. */
static int classify_dir(struct walk *w, int ufd, int lfd, const char *name, const char *path,
                        const struct stat *lst, bool opaque)
{
	_cleanup_close_ int sub = openat(ufd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0 && (unreadable(w, path, FT_NONE, FT_DIR) || changed_while_read(w, path, lst)))
		return 0;
	if (sub < 0) {
		_cleanup_free_ char *esc = escape_name(path);
		return jail_err_sys(w->e, "open '%s' in the session", esc);
	}
	_cleanup_close_ int lsub = -1;
	if (lst && S_ISDIR(lst->st_mode)) {
		lsub = openat(lfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (lsub < 0) {
			_cleanup_free_ char *esc = escape_name(path);
			return jail_err_sys(w->e, "open '%s' in the project", esc);
		}
	} else if (lst && delete_lower(w, lfd, name, path, lst) < 0) {
		return -1;
	}
	if (lsub < 0 && own_repository(w, sub, path, lst))
		return 0;
	/* below an opaque directory the lower is hidden, whether or not the
	 * subdirectory carries the mark itself */
	opaque = opaque || overlay_is_opaque(sub);
	if (repodir_merged(sub, lsub, opaque)) {
		_cleanup_free_ char *shown = xasprintf("%s/", path);  /* reads as a directory */
		change_add(w->cs, shown, lst ? ftype_of(lst) : FT_NONE, FT_DIR)->reason =
			xstrdup(REPODIR_REASON);
		return 0;
	}
	w->depth++;
	int r = walk_dir(w, sub, lsub, opaque, path);
	w->depth--;
	return r;
}

/* A directory a deny rule leaves out (node_modules/, .venv/): everything below
 * is left out for the same reason, so one entry says it, and the walk does not
 * spend time and memory on what an install put there. */
static bool denied_dir(struct walk *w, const char *path, const struct stat *lst)
{
	char *why = pathrules_denied(&w->x->rules, path, true);
	if (!why)
		return false;
	_cleanup_free_ char *shown = xasprintf("%s/", path);  /* reads as a directory */
	change_add(w->cs, shown, lst ? ftype_of(lst) : FT_NONE, FT_DIR)->reason = why;
	return true;
}

static int walk_entry(struct walk *w, int ufd, int lfd, const char *name, const char *rel,
                      bool opaque)
{
	_cleanup_free_ char *path = join(rel, name);
	if (strcmp(name, ".git") == 0) {
		strv_push(&w->cs->git_dirs, path);
		return 0;
	}
	if (walk_full(w) < 0)
		return -1;
	if (w->depth >= WALK_MAX_DEPTH || strlen(path) > WALK_MAX_PATH) {
		too_deep(w, path, FT_NONE, FT_DIR);
		return 0;
	}
	struct stat st, lstb, *lst = NULL;
	if (fstatat(ufd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;  /* gone since the listing: a live read of a running session */
		_cleanup_free_ char *esc = escape_name(path);
		return jail_err_sys(w->e, "stat '%s' in the session", esc);
	}
	if (lfd >= 0 && fstatat(lfd, name, &lstb, AT_SYMLINK_NOFOLLOW) == 0)
		lst = &lstb;
	if (overlay_is_whiteout(&st)) {
		if (!lst || export_path_hidden(w->x, path))
			return 0;
		return delete_lower(w, lfd, name, path, lst);
	}
	switch (ftype_of(&st)) {
	case FT_DIR:
		if (denied_dir(w, path, lst))
			return 0;
		return classify_dir(w, ufd, lfd, name, path, lst, opaque);
	case FT_FILE:
	case FT_SYMLINK:
		return classify_leaf(w, ufd, lfd, name, path, &st, lst);
	case FT_SPECIAL:
	case FT_NONE:
	default:
		if (lst && delete_lower(w, lfd, name, path, lst) < 0)
			return -1;
		change_add(w->cs, path, FT_NONE, FT_SPECIAL)->special = special_kind(st.st_mode);
		return 0;
	}
}

/* In an opaque directory, lower entries the upper does not hold are deleted. */
static int opaque_deletions(struct walk *w, int lfd, const struct strv *seen, const char *rel)
{
	DIR *d = opendir_at(lfd, ".");
	if (!d)
		return jail_err_sys(w->e, "read a project directory");
	int ret = 0;
	struct dirent *de;
	while (ret == 0 && (de = readdir(d))) {
		const char *n = de->d_name;
		const char *key = n;
		if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, ".git") ||
		    bsearch(&key, seen->v, seen->n, sizeof(char *), cmp_str))
			continue;
		_cleanup_free_ char *p = join(rel, n);
		struct stat st;
		if (export_path_hidden(w->x, p) || fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if ((ret = walk_full(w)) == 0)
			ret = delete_lower(w, dirfd(d), n, p, &st);
	}
	closedir(d);
	return ret;
}

static int walk_dir(struct walk *w, int ufd, int lfd, bool opaque, const char *rel)
{
	DIR *d = opendir_at(ufd, ".");
	/* a directory the agent left readable but not searchable (chmod 600)
	 * opens, and then cannot be listed: left out like one it cannot open */
	if (!d && rel && unreadable(w, rel, FT_NONE, FT_DIR))
		return 0;
	if (!d)
		return jail_err_sys(w->e, "read a session directory");
	struct strv seen = {0};
	int ret = 0;
	struct dirent *de;
	while (ret == 0 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (opaque && lfd >= 0)
			strv_push(&seen, de->d_name);
		ret = walk_entry(w, ufd, lfd, de->d_name, rel, opaque);
	}
	closedir(d);
	if (ret == 0 && opaque && lfd >= 0) {
		if (seen.n)
			qsort(seen.v, seen.n, sizeof(char *), cmp_str);
		ret = opaque_deletions(w, lfd, &seen, rel);
	}
	strv_free(&seen);
	return ret;
}

static int cmp_change(const void *a, const void *b)
{
	return strcmp(((const struct change *)a)->path, ((const struct change *)b)->path);
}

int export_scan(struct export_ctx *x, struct changeset *cs, struct jail_err *e)
{
	memset(cs, 0, sizeof(*cs));
	struct walk w = {x, cs, e, 0};
	if (x->upper_fd < 0)
		return 0;  /* the session never ran: nothing changed */
	bool opaque = overlay_is_opaque(x->upper_fd);
	if (walk_dir(&w, x->upper_fd, x->project_fd, opaque, NULL) < 0 && !cs->truncated)
		return -1;
	/* a project in a subdirectory of its repository that the agent made
	 * one (repodir.h): git run there would take it, so nothing goes */
	bool repo = repodir_merged(x->upper_fd, x->project_fd, opaque);
	for (size_t i = 0; repo && i < cs->n; i++)
		if (!cs->v[i].reason)
			cs->v[i].reason = xstrdup("in a project git takes for a repository (HEAD, "
			                          "objects, refs at its top): git run there reads its "
			                          "config and runs its hooks");
	if (cs->n)
		qsort(cs->v, cs->n, sizeof(*cs->v), cmp_change);
	return 0;
}

/* ---- context: the dirs, the hidden list, the host repository ---- */

static void read_hidden(struct export_ctx *x, const char *session_dir)
{
	_cleanup_free_ char *path = xasprintf("%s/hidden", session_dir);
	_cleanup_free_ char *data = NULL;
	struct jail_err ignored;
	if (read_file_at(AT_FDCWD, path, 64u << 20, &data, NULL, &ignored) < 0)
		return;
	for (char *at = data, *line; (line = line_next(&at));) {
		size_t l = strlen(line);
		while (l > 1 && line[l - 1] == '/')
			line[--l] = '\0';
		if (l > 2 && line[0] == '.' && line[1] == '/')
			line += 2;
		if (*line)
			strv_push(&x->hidden, line);
	}
	if (x->hidden.n)
		qsort(x->hidden.v, x->hidden.n, sizeof(char *), cmp_str);
}

/* Is the project a git work tree, and where in its repository does it sit?
 * git reads only the host's own repository here, never the upper dir. */
static int probe_repo(struct export_ctx *x, struct jail_err *e)
{
	struct git g = {.cwd = x->project};
	struct strbuf out = {0};
	int status;
	const char *args[] = {"rev-parse", "--is-inside-work-tree", "--show-prefix",
	                      "--git-path", "objects", "--git-path", "index", NULL};
	if (git_run(&g, args, NULL, 0, &out, &status, e) < 0)
		return -1;
	x->is_repo = status == 0 && out.s && strncmp(out.s, "true\n", 5) == 0;
	char *prefix = x->is_repo ? out.s + 5 : "";
	char *objects = x->is_repo ? strchr(prefix, '\n') : NULL;
	x->prefix = xasprintf("%.*s", (int)strcspn(prefix, "\n"), prefix);
	/* "PREFIX\nOBJECTS\nINDEX\n", relative to the project unless absolute */
	char *index = objects ? strchr(objects + 1, '\n') : NULL;
	if (index && index[1] && index[strlen(index) - 1] == '\n') {
		index[strlen(index) - 1] = '\0';
		*index++ = '\0';
		objects++;
		x->objects = objects[0] == '/' ? xstrdup(objects)
		                               : xasprintf("%s/%s", x->project, objects);
		x->index = index[0] == '/' ? xstrdup(index) : xasprintf("%s/%s", x->project, index);
	}
	sb_free(&out);
	return 0;
}

/* The "base" key of the session's meta file: a commit id, or NULL. */
static char *read_base(const char *session_dir)
{
	_cleanup_free_ char *path = xasprintf("%s/meta", session_dir);
	_cleanup_free_ char *data = NULL;
	struct jail_err ignored;
	if (read_file_at(AT_FDCWD, path, 1 << 20, &data, NULL, &ignored) < 0)
		return NULL;
	for (char *at = data, *line; (line = line_next(&at));) {
		size_t n = strspn(line + 5, "0123456789abcdef");
		if (strncmp(line, "base=", 5) == 0 && (n == 40 || n == 64) && line[5 + n] == '\0')
			return xstrdup(line + 5);
	}
	return NULL;
}

/* u+rwx on the session's upper dir, as it is (not through a symlink). */
static int upper_dir_usable(const char *upper)
{
	struct stat st;
	if (fstatat(AT_FDCWD, upper, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return fchmodat(AT_FDCWD, upper, (st.st_mode & 07777) | 0700, 0);
}

/* path with "." and ".." components and repeated '/' taken out, as text. */
static char *normalize_path(const char *path)
{
	_cleanup_free_ char *copy = xstrdup(path);
	struct strbuf b = {0};
	sb_append(&b, "", 0);
	char *save = NULL;
	for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			char *slash = strrchr(b.s, '/');
			b.len = slash ? (size_t)(slash - b.s) : 0;
			b.s[b.len] = '\0';
			continue;
		}
		sb_printf(&b, "/%s", c);
	}
	return sb_steal(&b);
}

/* Leave out the path that abs (absolute, as the host's config names it) is
 * in the project, for why: as written, "." and ".." taken as text, else
 * through the host's links.  The project's root itself names no path. */
static void deny_host_path(struct export_ctx *x, const char *abs, bool dir, const char *why)
{
	_cleanup_free_ char *norm = normalize_path(abs);
	_cleanup_free_ char *proj = normalize_path(x->project);
	char real[PATH_MAX];
	const char *forms[] = {norm, realpath(norm, real) ? real : NULL};
	size_t n = strlen(proj);
	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		const char *p = forms[i];
		if (!p || (i > 0 && strcmp(p, norm) == 0) || strncmp(p, proj, n) != 0 ||
		    p[n] != '/' || !p[n + 1])
			continue;
		_cleanup_free_ char *pat = pathrules_path_pattern(p + n + 1, dir);
		pathrules_deny(&x->rules, pat, why);
	}
}

/* What the host's git reads from the project as its own settings and runs:
 * the hooks of core.hooksPath when that directory is in the project
 * (.githooks, tools/hooks: a hook the agent writes there runs on the user's
 * next commit, and post-applypatch while git am lands the patch that brings
 * it), the attributes and ignore files the config names when they are in
 * the project (a filter= there runs a driver; an ignore rule dropped there
 * un-hides a secret, as a .gitignore would), and files the repository's
 * config includes (include.path = ../.gitconfig shares settings through the
 * tree: fsmonitor, aliases, filters run from there), and the programs of
 * the project that a setting's command names (a filter's clean command runs
 * on git status, core.fsmonitor on every one).  They are left out like
 * .git/hooks and .git/config. */
static int deny_host_git_settings(struct export_ctx *x, const char *excludes,
                                  struct jail_err *e)
{
	/* relative paths: from the work tree's top (the project less its
	 * prefix), where git runs hooks and reads its files from */
	size_t pl = strlen(x->project), xl = strlen(x->prefix);
	_cleanup_free_ char *top = xl && pl > xl ? strndup(x->project, pl - xl)
	                                         : xstrdup(x->project);
	struct git_settings gs;
	if (git_tree_settings(x->project, top, &gs, e) < 0) {
		git_settings_free(&gs);
		return -1;
	}
	struct {
		const char *path;
		bool dir;
		const char *why;
	} set[] = {
		{gs.hooks_path, true, "git runs the hooks in it (core.hooksPath)"},
		{gs.attributes_file, false,
		 "git reads filters and drivers from it (core.attributesFile)"},
		{excludes, false,
		 "git reads ignore rules from it (core.excludesFile): the jail's hiding too"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(set); i++) {
		const char *p = set[i].path;
		if (!p)
			continue;
		_cleanup_free_ char *abs = p[0] == '/' ? xstrdup(p) : xasprintf("%s/%s", top, p);
		deny_host_path(x, abs, set[i].dir, set[i].why);
	}
	for (size_t i = 0; i < gs.includes.n; i++)
		deny_host_path(x, gs.includes.v[i], false,
		               "git reads it as the repository's config (include.path)");
	for (size_t i = 0; i < gs.programs.n; i++) {
		_cleanup_free_ char *why = xasprintf("git runs it (%s)", gs.program_keys.v[i]);
		deny_host_path(x, gs.programs.v[i], false, why);
	}
	git_settings_free(&gs);
	return 0;
}

int export_ctx_open(struct export_ctx *x, const char *project, const char *session_dir,
                    const struct jail_config *cfg, struct jail_err *e)
{
	memset(x, 0, sizeof(*x));
	x->project_fd = x->upper_fd = -1;
	x->project = project;
	x->upper = NULL;
	x->cfg = cfg;
	pathrules_init(&x->rules, cfg);
	x->project_fd = open(project, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (x->project_fd < 0)
		return jail_err_sys(e, "open project '%s'", project);
	_cleanup_free_ char *upper = xasprintf("%s/upper", session_dir);
	x->upper_fd = open(upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* the upper dir is the overlay's root: a chmod of the project's root
	 * inside lands on it.  Its mode is not exported, and the next start sets
	 * it again (session.c), so the owner's rwx come back before reading. */
	if (x->upper_fd < 0 && errno == EACCES && upper_dir_usable(upper) == 0)
		x->upper_fd = open(upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (x->upper_fd < 0 && errno != ENOENT)
		return jail_err_sys(e, "open the session's upper dir '%s'", upper);
	read_hidden(x, session_dir);
	_cleanup_free_ char *withheld = xasprintf("%s/withheld", session_dir);
	hideobj_load(withheld, &x->withheld);
	if (probe_repo(x, e) < 0)
		return -1;
	_cleanup_free_ char *ex = x->is_repo ? git_excludes_file(x->project) : NULL;
	if (ex)
		x->user_excludes = xasprintf("core.excludesFile=%s", ex);
	if (x->is_repo && deny_host_git_settings(x, ex, e) < 0)
		return -1;
	if (x->is_repo) {
		x->base = read_base(session_dir);
		x->applied = xcalloc(1, sizeof(struct applied));
		applied_load(session_dir, x->applied);
	}
	return 0;
}

int export_ctx_open_sub(struct export_ctx *x, const struct export_ctx *parent, const char *sub,
                        const struct jail_config *cfg, struct jail_err *e)
{
	memset(x, 0, sizeof(*x));
	x->project_fd = x->upper_fd = -1;
	x->owned_project = xasprintf("%s/%s", parent->project, sub);
	x->project = x->owned_project;
	pathrules_init(&x->rules, cfg);
	_cleanup_free_ char *esc = escape_name(sub);
	x->project_fd = open_beneath(parent->project_fd, sub, O_RDONLY | O_DIRECTORY);
	if (x->project_fd < 0)
		return jail_err_sys(e, "open the submodule '%s'", esc);
	if (parent->upper_fd >= 0) {
		x->upper_fd = open_beneath(parent->upper_fd, sub, O_RDONLY | O_DIRECTORY);
		if (x->upper_fd < 0 && errno != ENOENT)
			return jail_err_sys(e, "open the submodule '%s' in the session", esc);
	}
	size_t n = strlen(sub);
	for (size_t i = 0; i < parent->hidden.n; i++)  /* stays sorted */
		if (strncmp(parent->hidden.v[i], sub, n) == 0 && parent->hidden.v[i][n] == '/')
			strv_push(&x->hidden, parent->hidden.v[i] + n + 1);
	for (size_t i = 0; i < parent->withheld.n; i++)  /* ids: the same in any repository */
		strv_push(&x->withheld, parent->withheld.v[i]);
	if (probe_repo(x, e) < 0)
		return -1;
	if (!x->is_repo)
		return jail_err_set(e, 0, "the submodule '%s' is not a git work tree", esc);
	/* (the superproject's excludes file: its own rules leave it out) */
	if (deny_host_git_settings(x, NULL, e) < 0)
		return -1;
	if (parent->user_excludes)
		x->user_excludes = xstrdup(parent->user_excludes);
	return 0;
}

void export_ctx_close(struct export_ctx *x)
{
	closep(&x->project_fd);
	closep(&x->upper_fd);
	x->project_fd = x->upper_fd = -1;
	free(x->prefix);
	free(x->objects);
	free(x->index);
	free(x->user_excludes);
	free(x->base);
	x->prefix = x->objects = x->index = x->user_excludes = x->base = NULL;
	strv_free(&x->hidden);
	strv_free(&x->withheld);
	pathrules_free(&x->rules);
	if (x->applied)
		applied_free(x->applied);
	free(x->applied);
	x->applied = NULL;
	strv_free(&x->submodules);
	free(x->owned_project);
	x->owned_project = NULL;
}

/* ---- the filter ---- */

static void leave_out(struct change *c, char *reason)
{
	if (!c->reason)
		c->reason = reason;
	else
		free(reason);
}

/* The rules that need nothing but the change itself and a symlink's target. */
static int filter_local(struct export_ctx *x, struct change *c, struct jail_err *e)
{
	const char *p = path_name_problem(c->path);
	if (!p)
		p = path_git_refuses(c->path, c->new_type == FT_SYMLINK);
	if (p)
		return leave_out(c, xasprintf("%s", p)), 0;
	if (c->new_type == FT_SPECIAL)
		return leave_out(c, xasprintf("%s: only files and symlinks are exported", c->special)), 0;
	/* the agent never saw what was there (a project without git hides
	 * secret-shaped names; fs.hide): a patch would carry the host's content.
	 * The list is the last start's: a host file that appeared since, or one
	 * the run now starting hides (its view's server is still writing the
	 * list), is hidden by the rules that will list it. */
	if (export_path_hidden_now(x, c->path, c->old_type != FT_NONE))
		return leave_out(c, xstrdup("hidden in the jail")), 0;
	char *why = c->new_type == FT_SYMLINK ? pathrules_denied_link(&x->rules, c->path)
	                                      : pathrules_denied(&x->rules, c->path, false);
	if (why)
		return leave_out(c, why), 0;
	if (c->new_type != FT_SYMLINK)
		return 0;
	struct strbuf t = {0};
	if (read_entry(x->upper_fd, c->path, FT_SYMLINK, 4096, &t, e) < 0)
		return -1;
	if (path_name_problem(t.s) || strlen(t.s) != t.len)
		leave_out(c, xstrdup("symlink target with control characters or invalid UTF-8"));
	else if (symlink_leaves_tree(c->path, t.s))
		leave_out(c, xstrdup("symlink pointing outside the project"));
	sb_free(&t);
	return 0;
}

/* NUL-separated git output into a sorted list.  git lists in byte order
 * already (the index's, a tree's): a pass that finds it so saves the sort
 * (4,800 paths: 60,000 comparisons). */
static void split_nul(const struct strbuf *out, struct strv *l)
{
	bool sorted = true;
	for (size_t i = 0; out->s && i < out->len;) {
		size_t n = strlen(out->s + i);
		if (n) {
			sorted = sorted && (!l->n || strcmp(l->v[l->n - 1], out->s + i) <= 0);
			strv_push(l, out->s + i);
		}
		i += n + 1;
	}
	if (l->n && !sorted)
		qsort(l->v, l->n, sizeof(char *), cmp_str);
}

static bool in_sorted(const struct strv *l, const char *s)
{
	return l->n && bsearch(&s, l->v, l->n, sizeof(char *), cmp_str) != NULL;
}

#define PATHSPEC_MAX 64

/* Which of the changed paths does the host's index track? */
static int host_tracked(struct export_ctx *x, struct changeset *cs, struct strv *tracked,
                        struct jail_err *e)
{
	struct strv args = {0};
	strv_push(&args, "ls-files");
	strv_push(&args, "-z");
	strv_push(&args, "--");
	/* with few changes, pathspecs keep git's output (and our work) small;
	 * git matches every entry against every pathspec, so with many the whole
	 * index is cheaper (2,000 paths in a 4,800-file index: 55 ms against 3) */
	for (size_t i = 0; cs->n <= PATHSPEC_MAX && i < cs->n; i++)
		if (!cs->v[i].reason)
			strv_push(&args, cs->v[i].path);
	struct git g = {.cwd = x->project, .literal_pathspecs = true};
	struct strbuf out = {0};
	int r = 0;
	if (cs->n > PATHSPEC_MAX || args.n > 3)
		r = git_run(&g, (const char *const *)args.v, NULL, 0, &out, NULL, e);
	if (r == 0)
		split_nul(&out, tracked);
	strv_free(&args);
	sb_free(&out);
	return r;
}

/* Which of these untracked paths do the host's ignore rules (the lower tree's
 * .gitignore files, .git/info/exclude and the user's global excludes file; never
 * the agent's edits) ignore, and which does git refuse to look at?  Both lists
 * come back sorted. */
static int host_ignored(struct export_ctx *x, char *const *cand, size_t n, struct strv *ignored,
                        struct strv *refused, struct jail_err *e)
{
	if (host_check_ignore(x, cand, n, ignored, refused, e) < 0)
		return -1;
	if (ignored->n)
		qsort(ignored->v, ignored->n, sizeof(char *), cmp_str);
	if (refused->n)
		qsort(refused->v, refused->n, sizeof(char *), cmp_str);
	return 0;
}

static void parse_ls_tree(struct export_ctx *x, struct changeset *cs, const struct strbuf *out)
{
	/* records: "MODE TYPE OID\tPATH\0" */
	for (size_t i = 0; out->s && i < out->len;) {
		char *rec = out->s + i;
		i += strlen(rec) + 1;
		char *tab = strchr(rec, '\t');
		char type[16], oid[65];
		unsigned mode;
		if (!tab || sscanf(rec, "%o %15s %64s", &mode, type, oid) != 3 || strcmp(type, "blob"))
			continue;
		struct change key = {.path = tab + 1}, *c;
		c = bsearch(&key, cs->v, cs->n, sizeof(*cs->v), cmp_change);
		if (c && !c->reason) {
			c->pre = PRE_BASE;
			c->base_mode = mode;
			snprintf(c->base_oid, sizeof(c->base_oid), "%s", oid);
		}
	}
}

/* The changed paths as they were in the session's base commit: the agent started
 * from there, so the patch says base -> agent, and `git am -3` merges whatever the
 * host did since instead of the patch silently undoing it. */
static int host_base_entries(struct export_ctx *x, struct changeset *cs, struct jail_err *e)
{
	if (!x->base)
		return 0;
	struct strv args = {0};
	const char *head[] = {"ls-tree", "-r", "-z", x->base, "--"};
	for (size_t i = 0; i < ARRAY_SIZE(head); i++)
		strv_push(&args, head[i]);
	for (size_t i = 0; cs->n <= PATHSPEC_MAX && i < cs->n; i++)  /* as host_tracked() */
		if (!cs->v[i].reason)
			strv_push(&args, cs->v[i].path);
	struct git g = {.cwd = x->project, .literal_pathspecs = true};
	struct strbuf out = {0};
	int status = 0, r = 0;
	if (cs->n > PATHSPEC_MAX || args.n > ARRAY_SIZE(head))
		r = git_run(&g, (const char *const *)args.v, NULL, 0, &out, &status, e);
	if (r == 0 && status == 0)
		parse_ls_tree(x, cs, &out);
	else if (r == 0)
		log_warn("the session's base commit %.12s is gone from the project; the patch "
		         "is against the files as they are now", x->base);
	strv_free(&args);
	sb_free(&out);
	return r;
}

/* Which of oids the host repository still holds as blobs, into present
 * (sorted): one `git cat-file --batch-check` for them all.  (A `cat-file -e`
 * each was a git run for every path the agent changed again after `jail
 * apply`: 20,000 such paths, a minute of every status.)  A git that fails
 * finds none, and the paths stand on the base commit as before. */
static void host_blobs(const struct export_ctx *x, const struct strv *oids, struct strv *present)
{
	struct strbuf in = {0}, out = {0};
	for (size_t i = 0; i < oids->n; i++)
		sb_printf(&in, "%s\n", oids->v[i]);
	struct git g = {.cwd = x->project};
	const char *args[] = {"cat-file", "--batch-check=%(objectname) %(objecttype)", NULL};
	struct jail_err e;
	int status = 0;
	if (in.len && git_run(&g, args, in.s, in.len, &out, &status, &e) == 0 && status == 0)
		for (char *at = out.s, *line; at && (line = line_next(&at));) {
			char *sp = strchr(line, ' ');
			if (sp && strcmp(sp + 1, "blob") == 0) {
				*sp = '\0';
				strv_push(present, line);
			}
		}
	if (present->n)
		qsort(present->v, present->n, sizeof(char *), cmp_str);
	sb_free(&in);
	sb_free(&out);
}

static bool oid_in(void *ctx, const char *oid)
{
	return in_sorted(ctx, oid);
}

static int filter_git(struct export_ctx *x, struct changeset *cs, struct jail_err *e)
{
	struct strv tracked = {0}, ignored = {0}, refused = {0};
	struct strbuf memo = {0};
	char **cand = NULL;
	size_t ncand = 0;
	/* a submodule's files never go into the superproject's patch */
	int r = submodule_split(x, cs, e);
	if (r == 0)
		r = host_tracked(x, cs, &tracked, e);
	if (r == 0)
		r = host_base_entries(x, cs, e);
	/* after `jail apply`: only what changed since the applied versions */
	if (r == 0 && x->applied) {
		struct strv wanted = {0}, present = {0};
		applied_wanted(x->applied, cs, &wanted);
		host_blobs(x, &wanted, &present);
		applied_adjust(x->applied, cs, oid_in, &present);
		strv_free(&wanted);
		strv_free(&present);
	}
	for (size_t i = 0; r == 0 && i < cs->n; i++) {
		struct change *c = &cs->v[i];
		bool tracked_now = in_sorted(&tracked, c->path);
		if (c->pre != PRE_BASE)
			c->pre = c->old_type != FT_NONE && tracked_now ? PRE_LOWER : PRE_NONE;
		if (c->reason || c->pre != PRE_NONE || tracked_now)
			continue;
		char *refuse = c->new_type == FT_NONE ? NULL
		               : host_path_refused(x->project_fd, c->path, &memo);
		if (c->new_type == FT_NONE)
			leave_out(c, xstrdup("not tracked by git: the patch does not delete it"));
		else if (refuse)
			leave_out(c, refuse);
		else
			cand = xrealloc(cand, ++ncand * sizeof(*cand)), cand[ncand - 1] = c->path;
	}
	if (r == 0)
		r = host_ignored(x, cand, ncand, &ignored, &refused, e);
	for (size_t i = 0; r == 0 && i < cs->n; i++) {
		if (!cs->v[i].reason && in_sorted(&ignored, cs->v[i].path))
			leave_out(&cs->v[i], xstrdup("ignored by git on the host"));
		if (!cs->v[i].reason && in_sorted(&refused, cs->v[i].path))
			leave_out(&cs->v[i], xstrdup("host git refuses the path (git check-ignore "
			                             "exits 128 on it)"));
	}
	strv_free(&tracked);
	strv_free(&ignored);
	strv_free(&refused);
	sb_free(&memo);
	free(cand);
	return r;
}

void change_drop_fd(struct change *c)
{
	if (c->kept_fd1 > 0)
		close(c->kept_fd1 - 1);
	c->kept_fd1 = 0;
}

int change_take_fd(struct change *c)
{
	int fd = c->kept_fd1 - 1;
	c->kept_fd1 = 0;
	return fd;
}

/* The files the filter keeps open for the pack: open and read once, not twice
 * (the second open and its path walk were a tenth of an export's CPU), and
 * what the pack holds is what the filter looked at.  Beyond this many (at
 * most 4,096, each a file the kernel keeps; 512 fds stay free) the pack
 * opens the file again.  Keeping is only a saving: it must never make an
 * export fail, so the fds open already (a shell or an editor may hand down
 * hundreds) count against the limit, and an open that still finds none free
 * gives the kept ones back (export_filter). */
#define KEEP_FDS_MAX 4096
#define KEEP_FDS_SPARE 512

/* The fds this process has open now; SIZE_MAX when /proc cannot say. */
static size_t fds_open(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return SIZE_MAX;
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static size_t keep_fds_max(void)
{
	struct rlimit nofile;
	if (getrlimit(RLIMIT_NOFILE, &nofile) < 0 || nofile.rlim_cur < 1024)
		return 0;
	if (nofile.rlim_cur == RLIM_INFINITY)
		return KEEP_FDS_MAX;
	size_t used = fds_open();
	if (used == SIZE_MAX || nofile.rlim_cur < used + KEEP_FDS_SPARE)
		return 0;
	rlim_t n = nofile.rlim_cur - used - KEEP_FDS_SPARE;
	return n > KEEP_FDS_MAX ? KEEP_FDS_MAX : (size_t)n;
}

/* Every kept file closed, none kept from now on: the pack opens them again. */
static void keep_none(struct changeset *cs, size_t *keep)
{
	for (size_t i = 0; i < cs->n; i++)
		change_drop_fd(&cs->v[i]);
	*keep = 0;
}

/* Is there a NUL past the probe?  git's own test looks at the first 8000
 * bytes only: a script of 8000 text bytes with a payload after them would
 * go out as a text patch of binary bytes.  And terminal controls, read on
 * the way (chunks overlap by a character: one cut at a chunk's end is seen
 * whole in the next). */
static int nul_after(int fd, off_t off, bool *found, bool *controls)
{
	char chunk[65536];
	for (;;) {
		ssize_t n = pread(fd, chunk, sizeof(chunk), off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -1 : 0;
		if (memchr(chunk, '\0', (size_t)n)) {
			*found = true;
			return 0;
		}
		*controls = *controls || content_drives_terminal(chunk, (size_t)n);
		off += n > 2 && n == (ssize_t)sizeof(chunk) ? n - 2 : n;
	}
}

static int filter_content(struct export_ctx *x, struct change *c, size_t *keep, bool kept_any,
                          struct jail_err *e)
{
	if (c->new_type != FT_FILE)
		return 0;
	if (c->new_size > x->rules.max_size)
		return leave_out(c, xasprintf("larger than the size limit (%lld bytes > %lld; "
		                              "raise it with --max-size)",
		                              c->new_size, x->rules.max_size)), 0;
	_cleanup_close_ int fd = open_beneath(x->upper_fd, c->path, O_RDONLY);
	if (fd < 0 && (errno == EMFILE || errno == ENFILE) && kept_any)
		return 1;  /* the caller gives the kept files back and asks again */
	char buf[BINARY_PROBE_LEN];
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, x->rules.binary_ok ? 0 : sizeof(buf), 0);
	if (n < 0 && (errno == EACCES || errno == EPERM))
		return leave_out(c, xasprintf("cannot read it: %s", strerror(errno))), 0;
	/* gone or no longer a file since the walk (a live read: see
	 * changed_while_read) */
	if (n < 0 && (errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == ENXIO ||
	              errno == ESPIPE || errno == EISDIR))
		return leave_out(c, xstrdup("it changed while it was read (the session is running): "
		                            "read it again")), 0;
	if (n < 0) {
		_cleanup_free_ char *esc = escape_name(c->path);
		return jail_err_sys(e, "read '%s' in the session", esc);
	}
	bool binary = content_is_binary(buf, (size_t)n);
	bool controls = !binary && content_drives_terminal(buf, (size_t)n);
	if (!binary && n == (ssize_t)sizeof(buf) && c->new_size > n &&
	    nul_after(fd, (off_t)n - 2, &binary, &controls) < 0) {
		_cleanup_free_ char *esc = escape_name(c->path);
		return jail_err_sys(e, "read '%s' in the session", esc);
	}
	if (binary)
		leave_out(c, xstrdup("binary content (export it with --allow-binary)"));
	else if (controls)
		c->flags |= CF_CONTROLS;
	if (!binary && *keep && fd >= 0)
		(*keep)--, c->kept_fd1 = steal_fd(&fd) + 1;
	return 0;
}

static void set_flags(struct change *c)
{
	if (c->new_type == FT_FILE && c->new_exec && !(c->old_type == FT_FILE && c->old_exec))
		c->flags |= CF_EXEC_ADDED;
	if (c->new_type == FT_SYMLINK)
		c->flags |= CF_SYMLINK;
	if ((c->flag_why = path_flag_reason(c->path, c->new_type == FT_SYMLINK)))
		c->flags |= CF_REVIEW;
}

/* The patch is built in memory (patch.c): its files together stay below this,
 * so an export's memory is bounded whatever the agent wrote.  What is over it
 * waits for the next export (after `jail apply` lands this one). */
#define EXPORT_MAX_TOTAL (256ULL << 20)

static void over_total(struct change *c, unsigned long long *total)
{
	if (c->reason || c->new_type != FT_FILE || c->new_size <= 0)
		return;
	if (*total + (unsigned long long)c->new_size > EXPORT_MAX_TOTAL)
		leave_out(c, xasprintf("over the %llu MiB one patch carries; apply this one, then "
		                       "export again", EXPORT_MAX_TOTAL >> 20));
	else
		*total += (unsigned long long)c->new_size;
}

/* The tree after landing, as link_check() sees it: a change left out keeps the
 * host's entry; so do the paths the supervisor hid and .git. */
struct link_ctx {
	struct export_ctx *x;
	struct changeset *cs;
	bool touched;  /* the resolution went through a link that this export changes */
};

static int cmp_path_change(const void *key, const void *c)
{
	return strcmp(key, ((const struct change *)c)->path);
}

static bool link_host_only(void *ctx, const char *path)
{
	struct link_ctx *lc = ctx;
	if (path_in_git_dir(path) || export_path_hidden(lc->x, path))
		return true;
	const struct change *c =
	    bsearch(path, lc->cs->v, lc->cs->n, sizeof(*lc->cs->v), cmp_path_change);
	if (!c)
		return false;
	if (c->reason)
		return true;
	lc->touched |= c->new_type == FT_SYMLINK;
	return false;
}

static bool link_hidden(void *ctx, const char *path)
{
	const struct link_ctx *lc = ctx;
	return export_path_hidden_now(lc->x, path, true);
}

/* Each symlink that goes out must resolve inside the project in the tree after
 * landing.  Leaving one out puts the host's entry back at its path, which can
 * change where others lead: they are judged again until nothing more is left
 * out.  Only links whose resolution went through a changed link can change
 * their verdict; a link left out once stays out, so this ends. */
static int filter_links(struct export_ctx *x, struct changeset *cs, struct jail_err *e)
{
	struct link_ctx lc = {x, cs, false};
	struct link_view v = {x->upper_fd, x->project_fd, link_host_only, link_hidden, &lc};
	_cleanup_free_ bool *again = cs->n ? xcalloc(cs->n, sizeof(bool)) : NULL;
	_cleanup_free_ char **why = cs->n ? xcalloc(cs->n, sizeof(char *)) : NULL;
	for (bool first = true, changed = true; changed; first = false) {
		/* every link of a pass is judged against the same tree: the verdict
		 * does not depend on the order of the paths */
		for (size_t i = 0; i < cs->n; i++) {
			struct change *c = &cs->v[i];
			if (c->reason || c->new_type != FT_SYMLINK || (!first && !again[i]))
				continue;
			struct strbuf t = {0};
			if (read_entry(x->upper_fd, c->path, FT_SYMLINK, 4096, &t, e) < 0) {
				for (size_t k = 0; k < cs->n; k++)
					free(why[k]);
				return -1;
			}
			lc.touched = false;
			why[i] = link_check(&v, c->path, t.s);
			sb_free(&t);
			again[i] = lc.touched;
		}
		changed = false;
		for (size_t i = 0; i < cs->n; i++)
			if (why[i]) {
				leave_out(&cs->v[i], steal_ptr(&why[i]));
				changed = true;
			}
	}
	return 0;
}

int export_filter(struct export_ctx *x, struct changeset *cs, struct jail_err *e)
{
	log_progress("exporting: checking", 0, cs->n);  /* git reads the index first */
	for (size_t i = 0; i < cs->n; i++) {
		cs->v[i].pre = cs->v[i].old_type != FT_NONE ? PRE_LOWER : PRE_NONE; /* no git: all */
		if (filter_local(x, &cs->v[i], e) < 0)
			return -1;
	}
	if (x->is_repo && filter_git(x, cs, e) < 0)
		return -1;
	unsigned long long total = 0;
	size_t keep = keep_fds_max(), kept = 0;
	for (size_t i = 0; i < cs->n; i++) {
		log_progress("exporting: checking", i, cs->n);
		int r = cs->v[i].reason ? 0 : filter_content(x, &cs->v[i], &keep, kept > 0, e);
		if (r == 1) {  /* no fd free with files kept: keep none */
			keep_none(cs, &keep);
			kept = 0;
			r = filter_content(x, &cs->v[i], &keep, false, e);
		}
		if (r < 0)
			return -1;
		kept += cs->v[i].kept_fd1 > 0;
		over_total(&cs->v[i], &total);
		if (cs->v[i].reason)
			change_drop_fd(&cs->v[i]);
		set_flags(&cs->v[i]);
	}
	return filter_links(x, cs, e);
}
