/* hidetree.c — the names the jail may see, recorded at start (hidetree.h). */
#include "hidetree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Deeper trees are cut here: the view shows the directory, empty. */
#define HIDETREE_DEPTH 256

static struct hide_node *node_new(struct hide_node *parent, const char *name, bool dir)
{
	struct hide_node *n = calloc(1, sizeof(*n));
	if (!n)
		abort();
	n->name = xstrdup(name);
	n->parent = parent;
	n->dir = dir;
	n->live = parent && (parent->live || (dir && !strcmp(name, ".git")));
	return n;
}

static void kids_push(struct hide_node *dir, struct hide_node *kid)
{
	if (dir->n_kids == dir->cap_kids) {
		dir->cap_kids = dir->cap_kids ? dir->cap_kids * 2 : 8;
		dir->kids = realloc(dir->kids, dir->cap_kids * sizeof(*dir->kids));
		if (!dir->kids)
			abort();
	}
	dir->kids[dir->n_kids++] = kid;
}

static int kid_cmp(const void *a, const void *b)
{
	const struct hide_node *x = *(struct hide_node *const *)a;
	const struct hide_node *y = *(struct hide_node *const *)b;
	return strcmp(x->name, y->name);
}

static bool is_dir_entry(int dirfd, const struct dirent *de)
{
	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	struct stat st;
	return fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* Record the entries of `dirfd` under `dir`, and below, on the device `dev`. */
static void walk(int dirfd, struct hide_node *dir, dev_t dev, int depth, size_t *count)
{
	int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		struct hide_node *kid = node_new(dir, de->d_name, is_dir_entry(dirfd, de));
		kids_push(dir, kid);
		(*count)++;
		if (!kid->dir || kid->live || depth >= HIDETREE_DEPTH)
			continue;
		_cleanup_close_ int sub =
			openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (sub >= 0 && fstat(sub, &st) == 0 && st.st_dev == dev)
			walk(sub, kid, dev, depth + 1, count);
	}
	closedir(d);
	if (dir->n_kids > 1)
		qsort(dir->kids, dir->n_kids, sizeof(*dir->kids), kid_cmp);
}

int hidetree_build(int project_fd, struct hide_node **root, size_t *count, struct jail_err *e)
{
	struct stat st;
	if (fstat(project_fd, &st) < 0)
		return jail_err_sys(e, "stat the project");
	*root = node_new(NULL, "", true);
	*count = 0;
	walk(project_fd, *root, st.st_dev, 0, count);
	return 0;
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
	struct hide_node *kid = node_new(dir, name, is_dir);
	kids_push(dir, kid);
	size_t i = dir->n_kids - 1;
	for (; i > 0 && strcmp(dir->kids[i - 1]->name, name) > 0; i--)
		dir->kids[i] = dir->kids[i - 1];
	dir->kids[i] = kid;
	return kid;
}

void hidetree_free(struct hide_node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n_kids; i++)
		hidetree_free(n->kids[i]);
	free(n->kids);
	free(n->name);
	free(n);
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
