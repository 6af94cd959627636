/* hidetree.c — the names the jail may see, recorded at start (hidetree.h). */
#include "hidetree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* Node memory.  A 70,000-name tree is 77,000 small blocks: from malloc they
 * cost a page fault per page as they are made (6 ms of a start on the
 * development machine), and every process forked afterwards (init, the
 * command, the network helpers) would share them, copy what it touches and
 * unmap them all at its exit.  So trees live in mappings made whole at once
 * (MAP_POPULATE) that no child inherits (MADV_DONTFORK) but the view's
 * server (hidetree_inherit).  Nothing is freed one by one: a tree lasts as
 * long as the process, which is one run. */
#define ARENA_FIRST (64u * 1024)
#define ARENA_CHUNK_MAX (8u << 20)

static struct arena {
	char *base;
	size_t used, size;
} chunks[64];
static size_t n_chunks;

static struct arena *arena_grow(size_t need)
{
	size_t size = n_chunks ? chunks[n_chunks - 1].size * 2 : ARENA_FIRST;
	if (size > ARENA_CHUNK_MAX)
		size = ARENA_CHUNK_MAX;
	while (size < need)
		size *= 2;
	if (n_chunks == ARRAY_SIZE(chunks))
		return NULL;
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, size, MADV_DONTFORK);
	chunks[n_chunks] = (struct arena){p, 0, size};
	return &chunks[n_chunks++];
}

/* Zeroed memory for the tree. */
static void *arena_alloc(size_t n)
{
	n = (n + 15) & ~(size_t)15;
	struct arena *a = n_chunks ? &chunks[n_chunks - 1] : NULL;
	if (!a || a->used + n > a->size)
		a = arena_grow(n);
	if (!a)
		return xcalloc(1, n); /* out of mappings: malloc's, kept as long */
	void *p = a->base + a->used;
	a->used += n;
	return p;
}

void hidetree_inherit(bool yes)
{
	for (size_t i = 0; i < n_chunks; i++)
		madvise(chunks[i].base, chunks[i].size, yes ? MADV_DOFORK : MADV_DONTFORK);
}

void hidetree_reserve(struct hide_node *dir, size_t n)
{
	if (n <= dir->cap_kids)
		return;
	struct hide_node **kids = arena_alloc(n * sizeof(*kids));
	if (dir->n_kids)
		memcpy(kids, dir->kids, dir->n_kids * sizeof(*kids));
	dir->kids = kids;
	dir->cap_kids = n;
}

struct hide_node *hidetree_node(struct hide_node *parent, const char *name, bool dir)
{
	size_t len = strlen(name) + 1;
	struct hide_node *n = arena_alloc(sizeof(*n) + len);
	n->name = (char *)(n + 1);
	memcpy(n->name, name, len);
	n->parent = parent;
	n->dir = dir;
	n->live = parent && (parent->live || (dir && !strcmp(name, ".git")));
	return n;
}

void hidetree_set_stamp(struct hide_node *n, const struct stat *st)
{
	if (!n->stamp)
		n->stamp = arena_alloc(sizeof(*n->stamp));
	*n->stamp = (struct hide_stamp){st->st_mtim, st->st_ctim, st->st_ino, st->st_size};
}

void hidetree_push(struct hide_node *dir, struct hide_node *kid)
{
	if (dir->n_kids == dir->cap_kids)
		hidetree_reserve(dir, dir->cap_kids ? dir->cap_kids * 2 : 8);
	dir->kids[dir->n_kids++] = kid;
}

static int kid_cmp(const void *a, const void *b)
{
	const struct hide_node *x = *(struct hide_node *const *)a;
	const struct hide_node *y = *(struct hide_node *const *)b;
	return strcmp(x->name, y->name);
}

/* getdents64 straight into nodes: one read of the directory, no DIR and no
 * copy of the fd (a start-up walks thousands of directories). */
#define WALK_BUF (32 * 1024)

struct dent64 {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

static void read_entries(int fd, struct hide_node *dir, char *buf, size_t *count)
{
	ssize_t n;
	while ((n = getdents64(fd, buf, WALK_BUF)) > 0) {
		for (ssize_t pos = 0; pos < n;) {
			const struct dent64 *de = (const struct dent64 *)(buf + pos);
			pos += de->reclen;
			const char *name = de->name;
			if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
				continue;
			struct stat st;
			bool known = de->type != DT_UNKNOWN;
			bool stamp = !strcmp(name, ".gitignore");
			bool got = (!known || stamp) && fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
			bool is_dir = known ? de->type == DT_DIR : got && S_ISDIR(st.st_mode);
			struct hide_node *kid = hidetree_node(dir, name, is_dir);
			if (stamp && got)
				hidetree_set_stamp(kid, &st);
			hidetree_push(dir, kid);
			(*count)++;
		}
	}
}

void hidetree_sort(struct hide_node *dir)
{
	if (dir->n_kids > 1)
		qsort(dir->kids, dir->n_kids, sizeof(*dir->kids), kid_cmp);
}

/* Record the entries of `fd` under `dir`, and below, on the device `dev`.  A
 * directory is stamped before it is read: a change after the stamp is seen
 * by the next run's compare. */
static void walk(int fd, struct hide_node *dir, dev_t dev, int depth, char *buf, size_t *count)
{
	read_entries(fd, dir, buf, count);
	dir->walked = true;
	hidetree_sort(dir);
	for (size_t i = 0; i < dir->n_kids; i++) {
		struct hide_node *kid = dir->kids[i];
		if (!kid->dir || kid->live || depth >= HIDETREE_DEPTH)
			continue;
		_cleanup_close_ int sub =
			openat(fd, kid->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (sub < 0 || fstat(sub, &st) < 0)
			continue;
		hidetree_set_stamp(kid, &st);
		if (st.st_dev == dev)
			walk(sub, kid, dev, depth + 1, buf, count);
	}
}

int hidetree_build(int project_fd, struct hide_node **root, size_t *count, struct jail_err *e)
{
	/* an fd of our own: getdents moves the offset of the one it reads */
	_cleanup_close_ int fd = openat(project_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		return jail_err_sys(e, "read the project");
	_cleanup_free_ char *buf = xmalloc(WALK_BUF);
	*root = hidetree_node(NULL, "", true);
	hidetree_set_stamp(*root, &st);
	*count = 0;
	walk(fd, *root, st.st_dev, 0, buf, count);
	return 0;
}

void hidetree_read(int fd, struct hide_node *dir, size_t *count)
{
	_cleanup_free_ char *buf = xmalloc(WALK_BUF);
	read_entries(fd, dir, buf, count);
	dir->walked = true;
	hidetree_sort(dir);
}

void hidetree_walk(int fd, struct hide_node *dir, dev_t dev, int depth, size_t *count)
{
	_cleanup_free_ char *buf = xmalloc(WALK_BUF);
	walk(fd, dir, dev, depth, buf, count);
}

struct hide_node *hidetree_lookup(struct hide_node *root, const char *path)
{
	struct hide_node *n = root;
	for (const char *c = path; n && *c;) {
		size_t len = strcspn(c, "/");
		char name[256];
		if (len >= sizeof(name))
			return NULL;
		memcpy(name, c, len);
		name[len] = '\0';
		if (strcmp(name, ".") != 0)
			n = hidetree_find(n, name);
		c += len + (c[len] == '/');
	}
	return n;
}

struct hide_node *hidetree_find(const struct hide_node *dir, const char *name)
{
	size_t lo = 0, hi = dir->n_kids;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, dir->kids[mid]->name);
		if (c == 0)
			return dir->kids[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

struct hide_node *hidetree_add(struct hide_node *dir, const char *name, bool is_dir)
{
	struct hide_node *have = hidetree_find(dir, name);
	if (have)
		return have;
	struct hide_node *kid = hidetree_node(dir, name, is_dir);
	hidetree_push(dir, kid);
	size_t i = dir->n_kids - 1;
	for (; i > 0 && strcmp(dir->kids[i - 1]->name, name) > 0; i--)
		dir->kids[i] = dir->kids[i - 1];
	dir->kids[i] = kid;
	return kid;
}

void hidetree_free_kids(struct hide_node *dir)
{
	dir->kids = NULL;
	dir->n_kids = dir->cap_kids = 0;
}

void hidetree_free(struct hide_node *n)
{
	(void)n; /* the memory is the arena's, for the run */
}

void hidetree_drop(struct hide_node *root, const char *path)
{
	_cleanup_free_ char *dup = xstrdup(path);
	struct hide_node *n = root;
	char *save = NULL;
	for (char *c = strtok_r(dup, "/", &save); c && n; c = strtok_r(NULL, "/", &save))
		n = hidetree_find(n, c);
	if (!n || n == root)
		return;
	struct hide_node *p = n->parent;
	size_t i = 0;
	while (i < p->n_kids && p->kids[i] != n)
		i++;
	memmove(&p->kids[i], &p->kids[i + 1], (p->n_kids - i - 1) * sizeof(*p->kids));
	p->n_kids--;
	hidetree_free(n);
}

static size_t path_len(const struct hide_node *n)
{
	return n->parent ? path_len(n->parent) + strlen(n->name) + (n->parent->parent ? 1 : 0) : 0;
}

bool hidetree_path(const struct hide_node *n, char *buf, size_t size)
{
	if (!n->parent)
		return size >= 2 && (strcpy(buf, "."), true);
	size_t len = path_len(n);
	if (len + 1 > size)
		return false;
	buf[len] = '\0';
	for (; n->parent; n = n->parent) {
		size_t l = strlen(n->name);
		len -= l;
		memcpy(buf + len, n->name, l);
		if (n->parent->parent)
			buf[--len] = '/';
	}
	return true;
}
