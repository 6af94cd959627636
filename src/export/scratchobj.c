/* scratchobj.c — blobs, trees and commits of an export, without fast-import
 * (why: scratchobj.h). */
#include "scratchobj.h"

#include "log.h"
#include "packw.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OLD_READ_MAX (1ULL << 30)
#define MODE_DIR 040000u

/* ---- the blobs ---- */

/* A side's file, opened to be read whole: still a regular file (it may have
 * changed type since the walk) of at most max bytes. */
static int open_side(int dirfd, const char *path, int kept, unsigned long long max,
                     struct stat *st, struct jail_err *e)
{
	int fd = kept >= 0 ? kept : open_beneath(dirfd, path, O_RDONLY);
	int r = fd < 0 || fstat(fd, st) < 0 ? -1 : 0;
	if (r == 0 && !S_ISREG(st->st_mode)) {
		errno = EINVAL;  /* it changed type since the walk */
		r = -1;
	}
	if (r == 0 && (unsigned long long)st->st_size > max) {
		errno = EFBIG;
		r = -1;
	}
	if (r < 0) {
		_cleanup_free_ char *esc = escape_name(path);
		jail_err_sys(e, "read '%s'", esc);
		closep(&fd);
		return -1;
	}
	return fd;
}

/* One file into the pack, read in pieces (never held whole), noting a '\r';
 * from kept when the filter left it open (export.h), at its start still.
 * A file that shrinks while it is read is an error (its size went out first);
 * one that grows is cut at that size. */
static int pack_file(struct packw *pw, int dirfd, const char *path, int kept,
                     unsigned long long max, bool *has_cr, char hex[41], struct jail_err *e)
{
	struct stat st;
	_cleanup_close_ int fd = open_side(dirfd, path, kept, max, &st, e);
	if (fd < 0 || packw_blob_start(pw, (uint64_t)st.st_size, e) < 0)
		return -1;
	char chunk[65536];
	for (unsigned long long done = 0, size = (unsigned long long)st.st_size; done < size;) {
		size_t want = size - done < sizeof(chunk) ? (size_t)(size - done) : sizeof(chunk);
		ssize_t n = read(fd, chunk, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			_cleanup_free_ char *esc = escape_name(path);
			if (n == 0)
				errno = EAGAIN;
			return jail_err_sys(e, "read '%s' (did it change while jail read it?)", esc);
		}
		if (memchr(chunk, '\r', (size_t)n))
			*has_cr = true;
		if (packw_blob_data(pw, chunk, (size_t)n, e) < 0)
			return -1;
		done += (unsigned long long)n;
	}
	return packw_blob_end(pw, hex, e);
}

/* A file or a symlink (its target is the blob) into the pack. */
static int pack_entry(struct packw *pw, int dirfd, const char *path, int kept, enum ftype t,
                      unsigned long long max, bool *has_cr, unsigned char oid[20],
                      struct jail_err *e)
{
	char hex[41];
	if (t == FT_SYMLINK) {
		closep(&kept);
		struct strbuf target = {0};
		int r = read_entry(dirfd, path, FT_SYMLINK, 4096, &target, e);
		if (r == 0)
			r = packw_object(pw, PACKW_BLOB, target.s, target.len, oid, e);
		sb_free(&target);
		return r;
	}
	if (pack_file(pw, dirfd, path, kept, max, has_cr, hex, e) < 0)
		return -1;
	packw_oid_from_hex(hex, oid);
	return 0;
}

static unsigned git_mode(enum ftype t, bool exec)
{
	return t == FT_SYMLINK ? 0120000u : exec ? 0100755u : 0100644u;
}

/* ---- the trees: a node per path component ---- */

struct tnode {
	char *name;
	size_t len;                  /* of name */
	struct tnode *parent;        /* NULL once cut from its tree (tnode_put) */
	unsigned mode;               /* MODE_DIR for a directory */
	const unsigned char *oid;    /* a leaf's id (the caller's storage) */
	struct tnode **kids;
	size_t nk, cap;
	unsigned char tree[20];      /* a directory's id, once written */
};

/* Every node of both trees by (parent, name): looking a name up among a
 * directory's entries one by one made an export of 90,000 new files in one
 * directory spend 20 s comparing names.  Nodes cut from a tree stay
 * allocated (dead) until the end, so no address is reused while the table
 * may still hold it. */
struct tindex {
	struct tnode **slot;
	size_t cap, n;
	struct tnode **dead;         /* cut subtrees, freed with the index */
	size_t ndead, capdead;
};

static void tnode_free(struct tnode *t)
{
	for (size_t i = 0; i < t->nk; i++)
		tnode_free(t->kids[i]);
	free(t->kids);
	free(t->name);
	free(t);
}

static size_t tindex_hash(const struct tnode *parent, const char *name, size_t len)
{
	uint64_t h = 14695981039346656037ULL ^ (uint64_t)(uintptr_t)parent * 0x9E3779B97F4A7C15ULL;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 1099511628211ULL;
	return (size_t)(h ^ h >> 29);
}

static void tindex_add(struct tindex *ix, struct tnode *k)
{
	if (2 * (ix->n + 1) > ix->cap) {  /* grow, leaving the dead behind */
		struct tnode **old = ix->slot;
		size_t oldcap = ix->cap;
		ix->cap = ix->cap ? 2 * ix->cap : 64;
		ix->slot = xcalloc(ix->cap, sizeof(*ix->slot));
		ix->n = 0;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i] && old[i]->parent)
				tindex_add(ix, old[i]);
		free(old);
	}
	size_t mask = ix->cap - 1;
	size_t i = tindex_hash(k->parent, k->name, k->len) & mask;
	while (ix->slot[i])
		i = (i + 1) & mask;
	ix->slot[i] = k;
	ix->n++;
}

static void tindex_free(struct tindex *ix)
{
	for (size_t i = 0; i < ix->ndead; i++)
		tnode_free(ix->dead[i]);
	free(ix->dead);
	free(ix->slot);
	memset(ix, 0, sizeof(*ix));
}

static struct tnode *tnode_kid(struct tindex *ix, struct tnode *t, const char *name, size_t len)
{
	size_t mask = ix->cap - 1;
	for (size_t i = ix->cap ? tindex_hash(t, name, len) & mask : 0; ix->cap && ix->slot[i];
	     i = (i + 1) & mask) {
		struct tnode *k = ix->slot[i];
		if (k->parent == t && k->len == len && memcmp(k->name, name, len) == 0)
			return k;
	}
	if (t->nk == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 4;
		t->kids = xrealloc(t->kids, t->cap * sizeof(*t->kids));
	}
	struct tnode *k = xcalloc(1, sizeof(*k));
	k->name = xasprintf("%.*s", (int)len, name);
	k->len = len;
	k->parent = t;
	k->mode = MODE_DIR;
	t->kids[t->nk++] = k;
	tindex_add(ix, k);
	return k;
}

/* Put path (the project's prefix before it) in the tree.  As in fast-import's
 * stream, the later one wins where a file and a directory share a name. */
static void tnode_put(struct tindex *ix, struct tnode *root, const char *prefix, const char *path,
                      unsigned mode, const unsigned char *oid)
{
	_cleanup_free_ char *full = xasprintf("%s%s", prefix, path);
	struct tnode *t = root;
	for (char *c = full;;) {
		char *slash = strchr(c, '/');
		struct tnode *k = tnode_kid(ix, t, c, slash ? (size_t)(slash - c) : strlen(c));
		if (slash) {
			if (k->mode != MODE_DIR)  /* a file where a directory goes: it becomes one */
				k->mode = MODE_DIR, k->oid = NULL;
			t = k;
			c = slash + 1;
			continue;
		}
		for (size_t i = 0; i < k->nk; i++) {  /* a directory where the file goes */
			if (ix->ndead == ix->capdead) {
				ix->capdead = ix->capdead ? 2 * ix->capdead : 4;
				ix->dead = xrealloc(ix->dead, ix->capdead * sizeof(*ix->dead));
			}
			k->kids[i]->parent = NULL;
			ix->dead[ix->ndead++] = k->kids[i];
		}
		k->nk = 0;
		k->mode = mode, k->oid = oid;
		return;
	}
}

static size_t tnode_dirs(const struct tnode *t)
{
	size_t n = t->mode == MODE_DIR;
	for (size_t i = 0; i < t->nk; i++)
		n += tnode_dirs(t->kids[i]);
	return n;
}

/* git's order of a tree's entries: by name, a directory's as if it ended
 * in '/'. */
static int tnode_cmp(const void *a, const void *b)
{
	const struct tnode *x = *(struct tnode *const *)a, *y = *(struct tnode *const *)b;
	size_t lx = x->len, ly = y->len, l = lx < ly ? lx : ly;
	int c = memcmp(x->name, y->name, l);
	if (c)
		return c;
	unsigned cx = lx > l ? (unsigned char)x->name[l] : x->mode == MODE_DIR ? '/' : 0;
	unsigned cy = ly > l ? (unsigned char)y->name[l] : y->mode == MODE_DIR ? '/' : 0;
	return (int)cx - (int)cy;
}

/* The directory t and those below it into the pack; t->tree gets its id. */
static int tnode_write(struct packw *pw, struct tnode *t, struct jail_err *e)
{
	if (t->nk)
		qsort(t->kids, t->nk, sizeof(*t->kids), tnode_cmp);
	struct strbuf b = {0};
	int r = 0;
	for (size_t i = 0; r == 0 && i < t->nk; i++) {
		struct tnode *k = t->kids[i];
		if (k->mode == MODE_DIR)
			r = tnode_write(pw, k, e);
		sb_printf(&b, "%o %s", k->mode, k->name);
		sb_append(&b, "", 1);  /* the NUL after the name */
		sb_append(&b, (const char *)(k->mode == MODE_DIR ? k->tree : k->oid), 20);
	}
	if (r == 0)
		r = packw_object(pw, PACKW_TREE, b.s ? b.s : "", b.len, t->tree, e);
	sb_free(&b);
	return r;
}

/* ---- the whole ---- */

/* A commit as fast-import wrote it: tree, parent, author, committer, a blank
 * line, the message as given. */
static int write_commit(struct packw *pw, const unsigned char tree[20],
                        const unsigned char *parent, const char *who, long long when,
                        const char *msg, unsigned char oid[20], struct jail_err *e)
{
	char th[41], ph[41];
	packw_hex(tree, th);
	if (parent)
		packw_hex(parent, ph);
	struct strbuf b = {0};
	sb_printf(&b, "tree %s\n", th);
	if (parent)
		sb_printf(&b, "parent %s\n", ph);
	sb_printf(&b, "author %s %lld +0000\ncommitter %s %lld +0000\n\n%s", who, when, who, when,
	          msg);
	int r = packw_object(pw, PACKW_COMMIT, b.s, b.len, oid, e);
	sb_free(&b);
	return r;
}

static int write_ref(const char *git_dir, const char *ref, const unsigned char oid[20],
                     struct jail_err *e)
{
	char hex[42];
	packw_hex(oid, hex);
	hex[40] = '\n', hex[41] = '\0';
	_cleanup_free_ char *path = xasprintf("%s/%s", git_dir, ref);
	return write_file_at(AT_FDCWD, path, hex, 41, 0600, e);
}

/* Every included change's blobs, in path order: the old side that the base
 * commit does not hold (the project's file), then the agent's. */
static int pack_blobs(struct packw *pw, const struct export_ctx *x, struct changeset *cs,
                      unsigned char (*pre)[20], unsigned char (*post)[20],
                      struct git_proc *beside, struct jail_err *e)
{
	size_t n = changeset_included(cs), done = 0;
	int r = 0;
	for (size_t i = 0; r == 0 && i < cs->n; i++) {
		struct change *c = &cs->v[i];
		if (c->reason)
			continue;
		log_progress("exporting", done++, n);
		if (c->pre == PRE_LOWER)
			r = pack_entry(pw, x->project_fd, c->path, -1, c->old_type, OLD_READ_MAX,
			               &c->has_cr, pre[i], e);
		if (r == 0 && c->new_type != FT_NONE)
			r = pack_entry(pw, x->upper_fd, c->path, change_take_fd(c), c->new_type,
			               (unsigned long long)x->rules.max_size + 1, &c->has_cr, post[i], e);
		if (r == 0 && beside)  /* the scan of the base blobs goes on meanwhile */
			r = git_drain(beside, e);
	}
	log_progress("exporting: git builds the patch of", n, n);
	return r;
}

int scratchobj_write(const char *git_dir, const struct export_ctx *x, struct changeset *cs,
                     const char *author, const char *message, long long when,
                     struct git_proc *beside, struct jail_err *e)
{
	unsigned char (*pre)[20] = xcalloc(cs->n ? cs->n : 1, sizeof(*pre));
	unsigned char (*post)[20] = xcalloc(cs->n ? cs->n : 1, sizeof(*post));
	struct tnode *tp = xcalloc(1, sizeof(*tp)), *tq = xcalloc(1, sizeof(*tq));
	tp->mode = tq->mode = MODE_DIR;
	tp->name = xstrdup(""), tq->name = xstrdup("");
	struct tindex ix = {0};
	size_t blobs = 0;
	for (size_t i = 0; i < cs->n; i++) {
		struct change *c = &cs->v[i];
		if (c->reason)
			continue;
		if (c->pre == PRE_BASE) {
			packw_oid_from_hex(c->base_oid, pre[i]);
			tnode_put(&ix, tp, x->prefix, c->path, c->base_mode, pre[i]);
		} else if (c->pre == PRE_LOWER) {
			tnode_put(&ix, tp, x->prefix, c->path, git_mode(c->old_type, c->old_exec), pre[i]);
			blobs++;
		}
		if (c->new_type != FT_NONE) {
			tnode_put(&ix, tq, x->prefix, c->path, git_mode(c->new_type, c->new_exec), post[i]);
			blobs++;
		}
	}
	size_t count = blobs + tnode_dirs(tp) + tnode_dirs(tq) + 2;
	struct packw pw = {.fd = -1};
	unsigned char cp[20], cq[20];
	const char *who = author ? author : "jail <jail@localhost>";
	int r = count > UINT32_MAX ? jail_err_set(e, 0, "too many objects for one pack")
	                           : packw_open(&pw, git_dir, (uint32_t)count, e);
	if (r == 0)
		r = pack_blobs(&pw, x, cs, pre, post, beside, e);
	if (r == 0)
		r = tnode_write(&pw, tp, e);
	if (r == 0)
		r = tnode_write(&pw, tq, e);
	if (r == 0)
		r = write_commit(&pw, tp->tree, NULL, who, when, "base", cp, e);
	if (r == 0)
		r = write_commit(&pw, tq->tree, cp, who, when, message, cq, e);
	if (r == 0)
		r = packw_finish(&pw, e);
	packw_free(&pw);  /* after a failed open too: it frees what it made */
	if (r == 0)
		r = write_ref(git_dir, "refs/heads/pre", cp, e);
	if (r == 0)
		r = write_ref(git_dir, "refs/heads/post", cq, e);
	tnode_free(tp);
	tnode_free(tq);
	tindex_free(&ix);
	free(pre);
	free(post);
	return r;
}
