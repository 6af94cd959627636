/* hidecache.c — the start walk, remembered between runs (hidecache.h).
 *
 * The file: MAGIC, NUL, the walk's start time, NUL, then the tree in preorder:
 * per node a type byte ('d' a directory the walk read, 'e' one it did not, 'f'
 * anything else), the name, NUL; a 'd' adds its stamp and entry count, NUL,
 * and its entries, sorted. */
#include "hidecache.h"

#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#define MAGIC "jail-tree-cache-1"
#define CACHE_MAX (512u << 20)

static void put_node(struct strbuf *b, const struct hide_node *n)
{
	char t = !n->dir ? 'f' : n->walked && n->stamp ? 'd' : 'e';
	sb_append(b, &t, 1);
	sb_append(b, n->name, strlen(n->name) + 1);
	if (t != 'd')
		return;
	const struct hide_stamp *s = n->stamp;
	char line[160];
	int len = snprintf(line, sizeof(line), "%lld %ld %lld %ld %llu %lld %zu",
	                   (long long)s->mtim.tv_sec, s->mtim.tv_nsec, (long long)s->ctim.tv_sec,
	                   s->ctim.tv_nsec, (unsigned long long)s->ino, (long long)s->size,
	                   n->n_kids);
	sb_append(b, line, (size_t)len + 1);
	for (size_t i = 0; i < n->n_kids; i++)
		put_node(b, n->kids[i]);
}

int hidecache_save(const char *path, const struct hide_node *root, time_t made,
                   struct jail_err *e)
{
	struct strbuf b = {0};
	sb_append(&b, MAGIC, sizeof(MAGIC));
	char t[32];
	int len = snprintf(t, sizeof(t), "%lld", (long long)made);
	sb_append(&b, t, (size_t)len + 1);
	put_node(&b, root);
	int r = replace_file(path, b.s, b.len, 0600, e);
	sb_free(&b);
	return r;
}

struct cursor {
	const char *p, *end;
};

/* The next NUL-terminated field, or NULL past the end. */
static const char *take(struct cursor *c)
{
	const char *z = c->p < c->end ? memchr(c->p, '\0', (size_t)(c->end - c->p)) : NULL;
	if (!z)
		return NULL;
	const char *s = c->p;
	c->p = z + 1;
	return s;
}

static bool plain_name(const char *name)
{
	return name[0] && strcmp(name, ".") && strcmp(name, "..") && !strchr(name, '/') &&
	       strlen(name) <= NAME_MAX;
}

/* The next of `n` space-separated decimal numbers of a field. */
static bool numbers(const char *f, unsigned long long *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (*f < '0' || *f > '9')
			return false;
		char *end;
		errno = 0;
		out[i] = strtoull(f, &end, 10);
		if (errno || (*end != (i + 1 < n ? ' ' : '\0')))
			return false;
		f = end + (i + 1 < n);
	}
	return true;
}

static bool get_stamp(struct cursor *c, struct hide_node *n, size_t *kids)
{
	const char *f = take(c);
	unsigned long long v[7];
	if (!f || !numbers(f, v, 7) || v[1] >= 1000000000 || v[3] >= 1000000000)
		return false;
	long long ms = (long long)v[0], cs = (long long)v[2], size = (long long)v[5];
	long mns = (long)v[1], cns = (long)v[3];
	unsigned long long ino = v[4];
	*kids = (size_t)v[6];
	/* every entry takes two bytes at least: a count past that is damage */
	if (*kids > (size_t)(c->end - c->p) / 2)
		return false;
	struct stat st = {.st_ino = (ino_t)ino, .st_size = (off_t)size};
	st.st_mtim = (struct timespec){(time_t)ms, mns};
	st.st_ctim = (struct timespec){(time_t)cs, cns};
	hidetree_set_stamp(n, &st);
	return true;
}

static struct hide_node *get_node(struct cursor *c, struct hide_node *parent, int depth)
{
	if (c->p >= c->end || depth > HIDETREE_DEPTH + 1)
		return NULL;
	char t = *c->p++;
	const char *name = take(c);
	if (!name || (t != 'd' && t != 'e' && t != 'f') || (parent ? !plain_name(name) : *name))
		return NULL;
	struct hide_node *n = hidetree_node(parent, name, t != 'f');
	size_t kids = 0;
	if (t == 'd' && !get_stamp(c, n, &kids)) {
		hidetree_free(n);
		return NULL;
	}
	n->walked = t == 'd';
	hidetree_reserve(n, kids); /* the exact size: no growing */
	for (size_t i = 0; i < kids; i++) {
		struct hide_node *kid = get_node(c, n, depth + 1);
		if (!kid || (i && strcmp(n->kids[i - 1]->name, kid->name) >= 0)) {
			hidetree_free(kid);
			hidetree_free(n);
			return NULL;
		}
		hidetree_push(n, kid);
	}
	return n;
}

struct hide_node *hidecache_load(const char *path, time_t *made)
{
	_cleanup_free_ char *data = NULL;
	size_t len = 0;
	struct jail_err e;
	if (read_file_at(AT_FDCWD, path, CACHE_MAX, &data, &len, &e) < 0)
		return NULL;
	struct cursor c = {data, data + len};
	const char *magic = take(&c), *t = take(&c);
	if (!magic || strcmp(magic, MAGIC) != 0 || !t)
		return NULL;
	*made = (time_t)atoll(t);
	struct hide_node *root = get_node(&c, NULL, 0);
	if (root && (c.p != c.end || !root->walked)) {
		hidetree_free(root);
		root = NULL;
	}
	return root;
}

struct refresh {
	int proj;
	dev_t dev;
	time_t made;
	size_t *count;
	bool *changed;
	struct strv *reread, *fresh; /* hidecache_refresh_list's, or NULL */
	char path[PATH_MAX];
};

/* Seconds a stamp must lie before the walk that took it to be trusted: a
 * change within the same timestamp tick leaves the stamp equal, and some file
 * systems tick in 2 s (FAT's mtime). */
#define STAMP_SLACK 2

static bool unchanged(const struct hide_stamp *s, const struct stat *st, time_t made)
{
	return s->mtim.tv_sec == st->st_mtim.tv_sec && s->mtim.tv_nsec == st->st_mtim.tv_nsec &&
	       s->ctim.tv_sec == st->st_ctim.tv_sec && s->ctim.tv_nsec == st->st_ctim.tv_nsec &&
	       s->ino == st->st_ino && s->size == st->st_size &&
	       s->mtim.tv_sec < made - STAMP_SLACK && s->ctim.tv_sec < made - STAMP_SLACK;
}

/* r->path (of length len; "" is the root) + "/" + name; false when too long. */
static bool path_push(struct refresh *r, size_t len, const char *name, size_t *out)
{
	size_t base = len ? len + 1 : 0, n = strlen(name);
	if (base + n + 1 > sizeof(r->path))
		return false;
	if (len)
		r->path[len] = '/';
	memcpy(r->path + base, name, n + 1);
	*out = base + n;
	return true;
}

static const char *path_of(const struct refresh *r) { return r->path[0] ? r->path : "."; }

static void refresh_dir(struct refresh *r, struct hide_node *n, size_t len, int depth);

/* Move a cached directory's entries to the node that now stands for it. */
static void adopt(struct hide_node *to, struct hide_node *from)
{
	to->kids = from->kids;
	to->n_kids = from->n_kids;
	to->cap_kids = from->cap_kids;
	to->walked = true;
	for (size_t i = 0; i < to->n_kids; i++)
		to->kids[i]->parent = to;
	to->stamp = from->stamp;
	from->stamp = NULL;
	from->kids = NULL;
	from->n_kids = from->cap_kids = 0;
}

/* A directory that changed: its entries now, then each subdirectory from the
 * cache where it has one (checked in turn), else walked. */
static void reread(struct refresh *r, struct hide_node *n, size_t len, int depth)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct hide_node old = {.kids = n->kids, .n_kids = n->n_kids, .cap_kids = n->cap_kids};
	n->kids = NULL;
	n->n_kids = n->cap_kids = 0;
	n->walked = false;
	_cleanup_close_ int fd = (int)syscall(SYS_openat2, r->proj, path_of(r), &how, sizeof(how));
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0) {
		hidetree_set_stamp(n, &st); /* before the read, as the walk does */
		if (st.st_dev == r->dev) {
			*r->changed = true;
			hidetree_read(fd, n, r->count);
			if (r->reread)
				strv_push(r->reread, r->path);
		}
	}
	for (size_t i = 0; i < n->n_kids; i++) {
		struct hide_node *kid = n->kids[i];
		if (!kid->dir || kid->live || depth >= HIDETREE_DEPTH)
			continue;
		struct hide_node *was = hidetree_find(&old, kid->name);
		size_t klen;
		if (was && was->dir && was->walked && path_push(r, len, kid->name, &klen)) {
			adopt(kid, was);
			refresh_dir(r, kid, klen, depth + 1);
			r->path[len] = '\0';
			continue;
		}
		_cleanup_close_ int sub =
			openat(fd, kid->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0 && fstat(sub, &st) == 0) {
			hidetree_set_stamp(kid, &st);
			if (st.st_dev == r->dev)
				hidetree_walk(sub, kid, r->dev, depth + 1, r->count);
			if (st.st_dev == r->dev && r->fresh && path_push(r, len, kid->name, &klen)) {
				strv_push(r->fresh, r->path);
				r->path[len] = '\0';
			}
		}
	}
	hidetree_free_kids(&old);
}

/* r->path (length len) is n's path: the cached entries when its stamp holds,
 * else read again; then the same below. */
static void refresh_dir(struct refresh *r, struct hide_node *n, size_t len, int depth)
{
	struct stat st;
	if (!n->walked || !n->stamp || fstatat(r->proj, path_of(r), &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISDIR(st.st_mode) || st.st_dev != r->dev || !unchanged(n->stamp, &st, r->made)) {
		reread(r, n, len, depth);
		return;
	}
	hidetree_set_stamp(n, &st);
	*r->count += n->n_kids;
	for (size_t i = 0; i < n->n_kids; i++) {
		struct hide_node *kid = n->kids[i];
		bool gitignore = !strcmp(kid->name, ".gitignore");
		bool sub = kid->dir && !kid->live && depth < HIDETREE_DEPTH;
		size_t klen;
		if ((!gitignore && !sub) || !path_push(r, len, kid->name, &klen))
			continue;
		if (gitignore) { /* its stamp for the ignore cache, as the walk takes it */
			if (fstatat(r->proj, r->path, &st, AT_SYMLINK_NOFOLLOW) == 0)
				hidetree_set_stamp(kid, &st);
			else
				kid->stamp = NULL;
		}
		if (sub)
			refresh_dir(r, kid, klen, depth + 1);
		r->path[len] = '\0';
	}
}

void hidecache_refresh_list(int project_fd, struct hide_node *root, time_t made, size_t *count,
                            bool *changed, struct strv *reread, struct strv *fresh)
{
	struct refresh *r = xcalloc(1, sizeof(*r));
	struct stat st;
	*r = (struct refresh){.proj = project_fd, .made = made, .count = count, .changed = changed,
	                      .reread = reread, .fresh = fresh};
	r->dev = fstat(project_fd, &st) == 0 ? st.st_dev : 0;
	refresh_dir(r, root, 0, 0);
	free(r);
}

void hidecache_refresh(int project_fd, struct hide_node *root, time_t made, size_t *count,
                       bool *changed)
{
	hidecache_refresh_list(project_fd, root, made, count, changed, NULL, NULL);
}

int hidecache_build(int project_fd, const char *path, struct hide_node **root, size_t *count,
                    struct jail_err *e)
{
	time_t now = time(NULL), made = 0;
	struct hide_node *t = hidecache_load(path, &made);
	bool changed = true;
	*count = 0;
	if (t) {
		changed = false;
		hidecache_refresh(project_fd, t, made, count, &changed);
		log_debug("project walk: cached, %s", changed ? "some directories read" : "unchanged");
	} else if (hidetree_build(project_fd, &t, count, e) < 0) {
		return -1;
	}
	*root = t;
	struct jail_err se;
	if (changed && hidecache_save(path, t, now, &se) < 0)
		log_warn("cannot write the project's walk cache: %s", se.msg);
	return 0;
}
