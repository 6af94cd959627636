/* linkcheck.c — resolve an exported symlink in the tree after the patch lands
 * (linkcheck.h says what the tree is and which links stay behind).
 *
 * The walk keeps a stack of directories, each open in the upper dir and in the
 * project where it exists there, so every lookup is one fstatat on an fd and
 * '..' is a pop: the path is never handed to the kernel to resolve, and no
 * symlink is ever followed by anyone but this code.
 */
#include "linkcheck.h"

#include "export.h"
#include "pathrules.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#define REST_MAX 4096

enum node { N_MISSING, N_DIR, N_FILE, N_LINK };

struct level {
	int ufd, lfd;  /* this directory in the upper dir / the project, or -1 */
	bool opaque;   /* the upper dir hides the project's entries from here down */
	bool missing;  /* it does not exist: what follows is read as text */
	bool host;     /* host only from here down */
	size_t plen;   /* strlen of the path of this directory */
};

struct res {
	const struct link_view *v;
	struct level lv[LINK_MAX_DEPTH + 1];
	int depth;
	char path[PATH_MAX];      /* the current directory, "" for the project root */
	char rest[REST_MAX + 1];  /* what is left to resolve */
	int links, steps;
	bool final_file;          /* the walk ended on a non-directory */
	char via[PATH_MAX];       /* the last link followed, and its target */
	char via_target[PATH_MAX];
};

/* One entry found: its kind and the directory fd that holds it. */
struct found {
	enum node t;
	int fd;
	bool host;
};

static char *unsafe(const char *why)
{
	return xasprintf("symlink that cannot be resolved safely (%s)", why);
}

static char *outside(const struct res *r, const char *how)
{
	if (r->via[0])
		return xasprintf("symlink pointing outside the project (through '%s' -> '%s')", r->via,
		                 r->via_target);
	return xasprintf("symlink pointing outside the project (%s)", how);
}

static char *cannot_read(const struct res *r)
{
	_cleanup_free_ char *what = xasprintf("cannot read '%s': %s", r->path, strerror(errno));
	return unsafe(what);
}

static enum node node_of(const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return N_DIR;
	return S_ISLNK(st->st_mode) ? N_LINK : N_FILE;
}

/* 1 found, 0 not there, -1 cannot tell. */
static int stat_at(int fd, const char *name, struct stat *st)
{
	if (fd < 0)
		return 0;
	if (fstatat(fd, name, st, AT_SYMLINK_NOFOLLOW) == 0)
		return 1;
	return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
}

/* name in the current directory (r->path already ends with it). */
static int find(struct res *r, const char *name, struct found *f)
{
	struct level *l = &r->lv[r->depth];
	f->host = l->host || (r->v->host_only && r->v->host_only(r->v->ctx, r->path));
	struct stat st;
	int u = f->host ? 0 : stat_at(l->ufd, name, &st);
	if (u < 0)
		return -1;
	if (u == 1) {
		f->t = overlay_is_whiteout(&st) ? N_MISSING : node_of(&st);
		f->fd = l->ufd;
		return 0;
	}
	int lo = f->host || !l->opaque ? stat_at(l->lfd, name, &st) : 0;
	if (lo < 0)
		return -1;
	f->t = lo ? node_of(&st) : N_MISSING;
	f->fd = l->lfd;
	return 0;
}

/* The directory name below fd, or -1 with errno 0 when it is not one there. */
static int open_dir(int fd, const char *name)
{
	errno = 0;
	int d = fd < 0 ? -1 : openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d < 0 && (errno == ENOENT || errno == ENOTDIR || errno == ELOOP))
		errno = 0;
	return d;
}

static void pop(struct res *r)
{
	struct level *l = &r->lv[r->depth--];
	closep(&l->ufd);
	closep(&l->lfd);
	r->path[r->lv[r->depth].plen] = '\0';
}

static void pop_all(struct res *r)
{
	while (r->depth > 0)
		pop(r);
}

/* Enter the directory (or the missing one) just found. */
static char *push(struct res *r, const char *name, const struct found *f)
{
	if (r->depth >= LINK_MAX_DEPTH)
		return xasprintf("symlink that cannot be resolved safely (deeper than %d directories)",
		                 LINK_MAX_DEPTH);
	const struct level *l = &r->lv[r->depth];
	struct level c = {-1, -1, l->opaque, f->t == N_MISSING, f->host, strlen(r->path)};
	if (f->t == N_DIR) {
		if (!f->host && f->fd == l->ufd) {
			c.ufd = open_dir(l->ufd, name);
			if (c.ufd < 0) {
				errno = errno ? errno : ENOTDIR;  /* it changed under us */
				return cannot_read(r);
			}
			c.opaque = c.opaque || overlay_is_opaque(c.ufd);
		}
		c.lfd = open_dir(l->lfd, name);
		if (c.lfd < 0 && errno) {
			closep(&c.ufd);
			return cannot_read(r);
		}
	}
	r->lv[++r->depth] = c;
	return NULL;
}

/* Go on with the target of the link just found, in place of its name (more:
 * a '/' followed it, so what it leads to must be a directory). */
static char *follow(struct res *r, const struct found *f, const char *name, size_t plen,
                    bool more)
{
	char t[PATH_MAX];
	ssize_t n = readlinkat(f->fd, name, t, sizeof(t));
	if (n < 0)
		return cannot_read(r);
	if ((size_t)n >= sizeof(t))
		return unsafe("a link on the way is too long");
	t[n] = '\0';
	snprintf(r->via, sizeof(r->via), "%s", r->path);
	snprintf(r->via_target, sizeof(r->via_target), "%s", t);
	r->path[plen] = '\0';
	if (++r->links > LINK_MAX_FOLLOW)
		return xasprintf("symlink that cannot be resolved safely (a loop, or more than %d "
		                 "links)", LINK_MAX_FOLLOW);
	if (t[0] == '/')
		return outside(r, "an absolute target");
	if (t[0] == '\0')
		return unsafe("an empty link on the way");
	size_t rl = strlen(r->rest);
	if ((size_t)n + 1 + rl > REST_MAX)
		return unsafe("the path grows longer than 4096 bytes");
	memmove(r->rest + n + (more ? 1 : 0), r->rest, rl + 1);
	memcpy(r->rest, t, (size_t)n);
	if (more)
		r->rest[n] = '/';
	return NULL;
}

/* One name of the path: look it up, then enter, end on, or follow it. */
static char *component(struct res *r, const char *name, bool more)
{
	size_t plen = strlen(r->path);
	if (plen + 1 + strlen(name) >= sizeof(r->path))
		return unsafe("longer than PATH_MAX");
	/* a tool writing through it writes hooks, config; .GIT, ".git." and git~1
	 * are .git where the patch lands on macOS or Windows */
	if (path_git_refuses(name, false))
		return xstrdup("symlink leading into .git (git's own files never leave the jail)");
	if (plen)
		r->path[plen++] = '/';
	strcpy(r->path + plen, name);
	struct found f;
	if (find(r, name, &f) < 0)
		return cannot_read(r);
	/* the jail kept it from the agent (.env, a key git ignores): on the host
	 * a tracked link would give it a name that no ignore rule covers, for
	 * every tool that publishes or indexes the project's files (a hidden
	 * link is judged by where it leads) */
	if ((f.t == N_FILE || f.t == N_DIR) && r->v->hidden && r->v->hidden(r->v->ctx, r->path)) {
		_cleanup_free_ char *esc = escape_name(r->path);
		return xasprintf("symlink to '%s', which the jail hides (git ignores it on the "
		                 "host)", esc);
	}
	switch (f.t) {
	case N_DIR:
	case N_MISSING:
		return push(r, name, &f);
	case N_LINK:
		return follow(r, &f, name, plen ? plen - 1 : 0, more);
	case N_FILE:
	default:
		if (more) {
			_cleanup_free_ char *what = xasprintf("'%s' is not a directory", r->path);
			return unsafe(what);
		}
		r->final_file = true;
		return NULL;
	}
}

/* Resolve r->rest from the current directory. */
static char *walk(struct res *r)
{
	r->final_file = false;
	while (r->rest[0]) {
		if (++r->steps > LINK_MAX_STEPS)
			return unsafe("too many path components");
		size_t n = strcspn(r->rest, "/");
		bool more = r->rest[n] == '/';
		char name[NAME_MAX + 1];
		if (n > NAME_MAX)
			return unsafe("a name longer than NAME_MAX");
		memcpy(name, r->rest, n);
		name[n] = '\0';
		memmove(r->rest, r->rest + n + more, strlen(r->rest + n + more) + 1);
		if (n == 0 || strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			if (r->depth == 0)
				return outside(r, "'..' above the project root");
			pop(r);
			continue;
		}
		char *why = component(r, name, more);
		if (why)
			return why;
	}
	return NULL;
}

/* The walk ended on a directory that holds the link (the project root is one):
 * the tree would contain itself, and a '..' more leaves the project. */
static bool holds_link(const struct res *r, const char *link)
{
	if (r->final_file || r->lv[r->depth].missing)
		return false;
	size_t n = strlen(r->path);
	return n == 0 || (strncmp(link, r->path, n) == 0 && link[n] == '/');
}

static char *check(struct res *r, const char *linkpath, const char *target)
{
	/* first the directory that holds the link, as the tree has it */
	const char *slash = strrchr(linkpath, '/');
	size_t dl = slash ? (size_t)(slash - linkpath) + 1 : 0;
	if (dl > REST_MAX || strlen(target) > REST_MAX)
		return unsafe("longer than 4096 bytes");
	memcpy(r->rest, linkpath, dl);
	r->rest[dl] = '\0';
	char *why = walk(r);
	if (why)
		return why;
	_cleanup_free_ char *link = xasprintf("%s%s%s", r->path, r->path[0] ? "/" : "",
	                                      slash ? slash + 1 : linkpath);
	r->via[0] = '\0';
	snprintf(r->rest, sizeof(r->rest), "%s", target);
	if (target[0] == '/')
		return outside(r, "an absolute target");
	if (target[0] == '\0')
		return unsafe("an empty target");
	why = walk(r);
	if (!why && holds_link(r, link))
		why = xstrdup("symlink to a directory that holds it (the tree would contain itself)");
	return why;
}

char *link_check(const struct link_view *v, const char *linkpath, const char *target)
{
	/* on the stack (about 20 KiB): one malloc each would cost a brk each */
	struct res r = {.v = v};
	r.lv[0] = (struct level){v->upper_fd, v->lower_fd, false, false, false, 0};
	r.lv[0].opaque = v->upper_fd >= 0 && overlay_is_opaque(v->upper_fd);
	char *why = check(&r, linkpath, target);
	pop_all(&r);
	return why;
}
