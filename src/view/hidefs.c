/* hidefs.c — the FUSE view of the project under the jail's overlay (hidefs.h).
 *
 * Node ids are the hidetree's nodes: one per path that was visible at start,
 * fixed for the run, so the kernel's lookups can only ever reach those paths.
 * Every request resolves its path again below the project fd: what the host
 * has there now (an edited file, a file replaced by rename) is what is shown.
 *
 * The tree is built in the server (its main thread) while the jail starts:
 * until it is final, requests are taken one at a time by serve_early(), the
 * one place that decides which are answered (early_ok: the mount's INIT and
 * STATFS, the root's attributes); any other waits there, and every request
 * behind it waits in the kernel, until the tree is final.  Then the usual
 * multi-threaded loop serves with the final tree.  A failed build ends the
 * server: the jail's accesses to the project fail (ENOTCONN). */
#define FUSE_USE_VERSION 314
#include "hidefs.h"
#include "hide.h"
#include "hideobj.h"
#include "hidepack.h"

#include "log.h"
#include "sync.h"
#include "workdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <limits.h>
#include <linux/fuse.h>
#include <linux/openat2.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#define HIDEFS_MAX_READ (1 << 20)
/* added to the builder thread's nice value (setpriority: per thread on Linux) */
#ifndef HIDEFS_BUILD_NICE
#define HIDEFS_BUILD_NICE 5
#endif

struct server {
	int root;               /* the project, O_DIRECTORY */
	struct hide_node *tree; /* a bare root until final (then the built tree) */
	bool final;             /* under final_lock */
	struct strv from_upper; /* paths shown from the upper dir's copy, sorted */
	int upper;              /* the session's upper dir, when from_upper has any */
	struct strv withheld;   /* objects holding hidden content (hideobj.h), sorted */
	const struct strv *live_secret_names; /* hidefs.h */
};

static pthread_mutex_t final_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t final_cond = PTHREAD_COND_INITIALIZER;

struct listing {
	size_t n;
	struct listing_ent {
		char *name;
		ino_t ino;
		unsigned char type;
	} *v;
};

/* Requests are served by several threads (git stats files from several):
 * the tree's child arrays change when a live directory gains a name, so every
 * look at them holds this lock.  Nodes are never freed while serving. */
static pthread_mutex_t tree_lock = PTHREAD_MUTEX_INITIALIZER;

static struct server *srv(fuse_req_t req) { return fuse_req_userdata(req); }

static struct hide_node *find_locked(struct hide_node *dir, const char *name)
{
	pthread_mutex_lock(&tree_lock);
	struct hide_node *n = hidetree_find(dir, name);
	pthread_mutex_unlock(&tree_lock);
	return n;
}

static struct hide_node *add_locked(struct hide_node *dir, const char *name, bool is_dir)
{
	pthread_mutex_lock(&tree_lock);
	struct hide_node *n = hidetree_add(dir, name, is_dir);
	pthread_mutex_unlock(&tree_lock);
	return n;
}

static struct hide_node *node_of(fuse_req_t req, fuse_ino_t ino)
{
	return ino == FUSE_ROOT_ID ? srv(req)->tree : (struct hide_node *)(uintptr_t)ino;
}

static fuse_ino_t ino_of(fuse_req_t req, const struct hide_node *n)
{
	return n == srv(req)->tree ? FUSE_ROOT_ID : (fuse_ino_t)(uintptr_t)n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The node's path opened below the project: no symlink anywhere (the last
 * one is opened itself with O_PATH), no escape, no other mount. */
static int node_open(fuse_req_t req, const struct hide_node *n, int flags)
{
	char path[PATH_MAX];
	if (!hidetree_path(n, path, sizeof(path))) {
		errno = ENAMETOOLONG;
		return -1;
	}
	struct open_how how = {
		.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
		           RESOLVE_NO_XDEV,
	};
	/* a redacted copy (below the agent's upper dir: the same rules hold) */
	const struct strv *up = &srv(req)->from_upper;
	bool copy = up->n && bsearch(&(const char *){path}, up->v, up->n, sizeof(char *), cmp_str);
	int fd = (int)syscall(SYS_openat2, copy ? srv(req)->upper : srv(req)->root, path, &how,
	                      sizeof(how));
	if (fd < 0 && (errno == ELOOP || errno == EXDEV || errno == ENOTDIR))
		errno = ENOENT; /* the path is not what it was: nothing there for the jail */
	return fd;
}

/* A directory's size and link count are the host's counts of its entries
 * (a block per so many names on ext4, 20 bytes a name on tmpfs, the names'
 * lengths on btrfs; 2 + its subdirectories), hidden ones included: `stat`
 * would tell how many there are, and that a hidden directory is there.  The
 * view gives every directory the same ones instead (1 link: "not counted",
 * as btrfs and the overlay's merged directories say). */
static void mask_dir(struct stat *st)
{
	if (!S_ISDIR(st->st_mode))
		return;
	st->st_nlink = 1;
	st->st_size = 4096;
	st->st_blocks = 8;
}

static int node_stat(fuse_req_t req, const struct hide_node *n, struct stat *st)
{
	int fd = node_open(req, n, O_PATH);
	if (fd < 0)
		return -1;
	int r = fstat(fd, st);
	close(fd);
	if (r == 0)
		mask_dir(st);
	return r;
}

/* A git object in a live directory that holds a hidden file's content. */
static bool withheld(fuse_req_t req, const struct hide_node *dir, const char *name)
{
	return dir->live && hideobj_withheld(&srv(req)->withheld, dir, name);
}

/* A file or directory of a secret-shaped name in a live directory
 * (hidefs.h): a credential store there may be a directory too
 * (`store --file=.git/credentials/store`).  Not a submodule's or a linked
 * worktree's git dir, named as the user named those (`modules/secrets`). */
static bool live_secret(fuse_req_t req, const struct hide_node *dir, const char *name, bool is_dir)
{
	const struct strv *names = srv(req)->live_secret_names;
	if (!dir->live || !names || !names->n)
		return false;
	if (is_dir && (!strcmp(dir->name, "modules") || !strcmp(dir->name, "worktrees")))
		return false;
	for (const struct hide_node *n = dir; n && n->live; n = n->parent)
		if (!strcmp(n->name, "refs") || !strcmp(n->name, "logs") ||
		    !strcmp(n->name, "objects")) /* (object names are ids: not matched) */
			return false;
	return hide_names_match(names, name);
}

static bool plain_name(const char *name)
{
	return name[0] && strcmp(name, ".") && strcmp(name, "..") && !strchr(name, '/');
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct hide_node *dir = node_of(req, parent);
	struct hide_node *n = plain_name(name) ? find_locked(dir, name) : NULL;
	struct fuse_entry_param ep = {0};
	struct stat st;
	if (!n && dir->live && plain_name(name) && !withheld(req, dir, name)) {
		_cleanup_free_ char *copy = xstrdup(name);
		struct hide_node probe = {.name = copy, .parent = dir};
		if (node_stat(req, &probe, &st) == 0 && !live_secret(req, dir, name, S_ISDIR(st.st_mode)))
			n = add_locked(dir, name, S_ISDIR(st.st_mode));
	} else if (n && node_stat(req, n, &st) < 0) {
		if (errno != ENOENT) {
			fuse_reply_err(req, errno);
			return;
		}
		n = NULL;
	}
	if (!n) {
		/* not there at start: never will be; gone since: may come back */
		ep.entry_timeout = dir->live || find_locked(dir, name) ? HIDEFS_ATTR_TIMEOUT
		                                                          : HIDEFS_NEG_TIMEOUT;
		fuse_reply_entry(req, &ep);
		return;
	}
	ep.ino = ino_of(req, n);
	ep.attr = st;
	ep.attr_timeout = HIDEFS_ATTR_TIMEOUT;
	ep.entry_timeout = HIDEFS_ENTRY_TIMEOUT;
	fuse_reply_entry(req, &ep);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)fi;
	struct stat st;
	if (node_stat(req, node_of(req, ino), &st) < 0)
		fuse_reply_err(req, errno);
	else
		fuse_reply_attr(req, &st, HIDEFS_ATTR_TIMEOUT);
}

static void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
	char target[PATH_MAX];
	int fd = node_open(req, node_of(req, ino), O_PATH);
	if (fd < 0) {
		fuse_reply_err(req, errno);
		return;
	}
	ssize_t n = readlinkat(fd, "", target, sizeof(target) - 1);
	int err = errno;
	close(fd);
	if (n < 0) {
		fuse_reply_err(req, err == ENOENT ? EINVAL : err);
		return;
	}
	target[n] = '\0';
	fuse_reply_readlink(req, target);
}

/* A file the jail opened: the host's fd, and for a pack that holds
 * withheld objects the bytes served as zeros (hidepack.h). */
struct open_file {
	int fd;
	size_t n_blank;
	struct hidepack_range *blank;
};

/* Only a regular file is opened: a device or fifo the host put there is
 * never opened by the server (opening one can act).  The type is checked on
 * an O_PATH fd, and that very inode is then reopened for reading. */
static int open_regular(fuse_req_t req, const struct hide_node *n)
{
	int fd = -1, path_fd = node_open(req, n, O_PATH);
	struct stat st;
	if (path_fd >= 0) {
		if (fstat(path_fd, &st) == 0 && S_ISREG(st.st_mode)) {
			char proc[64];
			snprintf(proc, sizeof(proc), "/proc/self/fd/%d", path_fd);
			fd = open(proc, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		} else {
			errno = EACCES;
		}
		int err = errno;
		close(path_fd);
		errno = err;
	}
	return fd;
}

/* The ranges found for a pack, by its node and its stamp: git opens each
 * pack once a process, and a large .idx costs a read of 4 bytes an object
 * to find where a withheld object ends (0.5 ms at 200,000 objects). */
#define PACK_CACHE_MAX 64
static struct pack_seen {
	const struct hide_node *node;
	struct stat st; /* the pack's: dev, ino, size and ctime compared */
	size_t n;
	struct hidepack_range *r;
} pack_cache[PACK_CACHE_MAX];
static size_t pack_cache_next;
static pthread_mutex_t pack_lock = PTHREAD_MUTEX_INITIALIZER;

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* A copy of what the cache holds for this pack; false when nothing. */
static bool pack_cached(const struct hide_node *n, const struct stat *st, struct open_file *f)
{
	bool hit = false;
	pthread_mutex_lock(&pack_lock);
	for (size_t i = 0; i < PACK_CACHE_MAX && !hit; i++) {
		struct pack_seen *c = &pack_cache[i];
		if (c->node != n || !same_file(&c->st, st))
			continue;
		f->n_blank = c->n;
		f->blank = c->n ? xmalloc(c->n * sizeof(*c->r)) : NULL;
		if (c->n)
			memcpy(f->blank, c->r, c->n * sizeof(*c->r));
		hit = true;
	}
	pthread_mutex_unlock(&pack_lock);
	return hit;
}

static void pack_remember(const struct hide_node *n, const struct stat *st,
                          const struct open_file *f)
{
	pthread_mutex_lock(&pack_lock);
	struct pack_seen *c = &pack_cache[pack_cache_next++ % PACK_CACHE_MAX];
	free(c->r);
	*c = (struct pack_seen){.node = n, .st = *st, .n = f->n_blank};
	c->r = f->n_blank ? xmalloc(f->n_blank * sizeof(*c->r)) : NULL;
	if (f->n_blank)
		memcpy(c->r, f->blank, f->n_blank * sizeof(*c->r));
	pthread_mutex_unlock(&pack_lock);
}

/* A file of a pack directory, while objects are withheld: a pack is
 * served with them blanked (its .idx, opened next to it, says where); a
 * file that cannot be so checked (a pack without a usable .idx, git's
 * temporary pack files) is not served.  0, or -1 with errno. */
static int check_pack(fuse_req_t req, const struct hide_node *n, struct open_file *f)
{
	const struct hide_node *dir = n->parent;
	const struct strv *ids = &srv(req)->withheld;
	if (!ids->n || !dir || !dir->live || strcmp(dir->name, "pack") || !hideobj_in_store(dir))
		return 0;
	enum hidepack_kind kind = hidepack_kind(n->name);
	if (kind == HIDEPACK_PLAIN)
		return 0;
	errno = EACCES;
	if (kind == HIDEPACK_OTHER)
		return -1;
	struct stat st;
	if (fstat(f->fd, &st) < 0)
		return -1;
	/* (a pack's name is its checksum: the .idx is checked against it once) */
	if (pack_cached(n, &st, f))
		return 0;
	_cleanup_free_ char *idx_name = hidepack_idx_name(n->name);
	struct hide_node probe = {.name = idx_name, .parent = n->parent};
	_cleanup_close_ int idx = open_regular(req, &probe);
	if (idx < 0 || hidepack_ranges(idx, f->fd, ids, &f->blank, &f->n_blank) < 0) {
		errno = EACCES;
		return -1;
	}
	pack_remember(n, &st, f);
	return 0;
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if ((fi->flags & O_ACCMODE) != O_RDONLY) {
		fuse_reply_err(req, EROFS);
		return;
	}
	struct open_file *f = calloc(1, sizeof(*f));
	const struct hide_node *n = node_of(req, ino);
	if (!f || (f->fd = open_regular(req, n)) < 0 || check_pack(req, n, f) < 0) {
		int err = f ? errno : ENOMEM;
		if (f && f->fd >= 0)
			close(f->fd);
		if (f)
			free(f->blank);
		free(f);
		fuse_reply_err(req, err);
		return;
	}
	fi->fh = (uint64_t)(uintptr_t)f;
	fi->keep_cache = 0; /* the page cache is dropped on open: host edits show */
	if (fuse_reply_open(req, fi) != 0) {
		close(f->fd);
		free(f->blank);
		free(f);
	}
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
	(void)ino;
	const struct open_file *f = (const struct open_file *)(uintptr_t)fi->fh;
	if (size > HIDEFS_MAX_READ)
		size = HIDEFS_MAX_READ;
	_cleanup_free_ char *buf = malloc(size ? size : 1);
	ssize_t n = buf ? pread(f->fd, buf, size, off) : -1;
	if (n < 0) {
		fuse_reply_err(req, buf ? errno : ENOMEM);
		return;
	}
	hidepack_blank(f->blank, f->n_blank, buf, (size_t)n, (uint64_t)off);
	fuse_reply_buf(req, buf, (size_t)n);
}

static void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	struct open_file *f = (struct open_file *)(uintptr_t)fi->fh;
	close(f->fd);
	free(f->blank);
	free(f);
	fuse_reply_err(req, 0);
}

static void listing_free(struct listing *l)
{
	for (size_t i = 0; l && i < l->n; i++)
		free(l->v[i].name);
	if (l)
		free(l->v);
	free(l);
}

/* The directory's entries now on the host that are also in the tree. */
static struct listing *list_dir(fuse_req_t req, struct hide_node *dir)
{
	int fd = node_open(req, dir, O_RDONLY | O_DIRECTORY);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	struct listing *l = calloc(1, sizeof(*l));
	size_t cap = 0;
	struct dirent *de;
	while (l && (de = readdir(d))) {
		bool dots = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
		if (!dots && ((!dir->live && !find_locked(dir, de->d_name)) ||
		              withheld(req, dir, de->d_name) ||
		              live_secret(req, dir, de->d_name, de->d_type == DT_DIR)))
			continue;
		if (l->n == cap) {
			cap = cap ? cap * 2 : 32;
			void *v = realloc(l->v, cap * sizeof(*l->v));
			if (!v)
				break;
			l->v = v;
		}
		l->v[l->n++] = (struct listing_ent){xstrdup(de->d_name), de->d_ino, de->d_type};
	}
	closedir(d);
	return l;
}

static void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct listing *l = list_dir(req, node_of(req, ino));
	if (!l) {
		fuse_reply_err(req, errno ? errno : ENOMEM);
		return;
	}
	fi->fh = (uint64_t)(uintptr_t)l;
	if (fuse_reply_open(req, fi) != 0)
		listing_free(l);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                       struct fuse_file_info *fi)
{
	(void)ino;
	struct listing *l = (struct listing *)(uintptr_t)fi->fh;
	if (size > HIDEFS_MAX_READ)
		size = HIDEFS_MAX_READ;
	_cleanup_free_ char *buf = malloc(size ? size : 1);
	size_t pos = 0;
	for (size_t i = off < 0 ? 0 : (size_t)off; buf && i < l->n; i++) {
		struct stat st = {.st_ino = l->v[i].ino, .st_mode = (mode_t)l->v[i].type << 12};
		size_t len = fuse_add_direntry(req, buf + pos, size - pos, l->v[i].name, &st,
		                               (off_t)(i + 1));
		if (len > size - pos)
			break;
		pos += len;
	}
	if (!buf)
		fuse_reply_err(req, ENOMEM);
	else
		fuse_reply_buf(req, buf, pos);
}

/* One entry of a readdirplus answer: the name with its node and attributes,
 * so that the lookups that follow a listing (git's untracked scan, ls -l)
 * need no round trip.  "." and "..", and names gone since the listing, go
 * without a node. */
static void plus_entry(fuse_req_t req, struct hide_node *dir, const struct listing_ent *le,
                       struct fuse_entry_param *ep)
{
	*ep = (struct fuse_entry_param){.attr.st_ino = le->ino, .attr.st_mode = (mode_t)le->type << 12};
	if (!strcmp(le->name, ".") || !strcmp(le->name, ".."))
		return;
	struct hide_node *n = find_locked(dir, le->name);
	struct stat st;
	if (!n && dir->live) {
		_cleanup_free_ char *copy = xstrdup(le->name);
		struct hide_node probe = {.name = copy, .parent = dir};
		if (node_stat(req, &probe, &st) == 0)
			n = add_locked(dir, le->name, S_ISDIR(st.st_mode));
	} else if (n && node_stat(req, n, &st) < 0) {
		n = NULL;
	}
	if (!n)
		return;
	ep->ino = ino_of(req, n);
	ep->attr = st;
	ep->attr_timeout = HIDEFS_ATTR_TIMEOUT;
	ep->entry_timeout = HIDEFS_ENTRY_TIMEOUT;
}

static void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                           struct fuse_file_info *fi)
{
	struct listing *l = (struct listing *)(uintptr_t)fi->fh;
	struct hide_node *dir = node_of(req, ino);
	if (size > HIDEFS_MAX_READ)
		size = HIDEFS_MAX_READ;
	_cleanup_free_ char *buf = malloc(size ? size : 1);
	size_t pos = 0;
	for (size_t i = off < 0 ? 0 : (size_t)off; buf && i < l->n; i++) {
		struct fuse_entry_param ep;
		plus_entry(req, dir, &l->v[i], &ep);
		size_t len = fuse_add_direntry_plus(req, buf + pos, size - pos, l->v[i].name, &ep,
		                                    (off_t)(i + 1));
		if (len > size - pos)
			break; /* the kernel counts a lookup only for entries it got */
		pos += len;
	}
	if (!buf)
		fuse_reply_err(req, ENOMEM);
	else
		fuse_reply_buf(req, buf, pos);
}

static void op_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	listing_free((struct listing *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	(void)ino;
	struct statvfs sv;
	if (fstatvfs(srv(req)->root, &sv) < 0)
		fuse_reply_err(req, errno);
	else
		fuse_reply_statfs(req, &sv);
}

/* No xattr, write or access operation: libfuse answers ENOSYS, the kernel
 * stops asking, and the overlay sees a lower layer without extended
 * attributes (never a host user.overlay.* or trusted.overlay.*). */
static const struct fuse_lowlevel_ops ops = {
	.lookup = op_lookup,
	.getattr = op_getattr,
	.readlink = op_readlink,
	.open = op_open,
	.read = op_read,
	.release = op_release,
	.opendir = op_opendir,
	.readdir = op_readdir,
	.readdirplus = op_readdirplus,
	.releasedir = op_releasedir,
	.statfs = op_statfs,
};

static bool is_final(struct server *s)
{
	pthread_mutex_lock(&final_lock);
	bool f = s->final;
	pthread_mutex_unlock(&final_lock);
	return f;
}

/* Until the tree is final, only these requests are answered (with the bare
 * root node, which has no children): the mount's INIT, the overlay's STATFS
 * (of the whole file system, no name in it), the root's attributes (what
 * the kernel's permission check on the mount point needs; a directory's own
 * mode, owner and times), and DESTROY.  None names an entry below the root or
 * reads content: LOOKUP, OPENDIR, READDIR(PLUS), OPEN, READ, READLINK,
 * GETATTR of another node, xattrs, ACCESS, ... all wait.  A request in a
 * pipe (splice) is not looked at: it waits too. */
static unsigned buf_opcode(const struct fuse_buf *buf)
{
	return ((const struct fuse_in_header *)buf->mem)->opcode;
}

static bool early_ok(const struct fuse_buf *buf)
{
	if ((buf->flags & FUSE_BUF_IS_FD) || buf->size < sizeof(struct fuse_in_header))
		return false;
	const struct fuse_in_header *in = buf->mem;
	switch (in->opcode) {
	case FUSE_INIT:
	case FUSE_STATFS:
	case FUSE_DESTROY:
		return true;
	case FUSE_GETATTR:
		return in->nodeid == FUSE_ROOT_ID;
	default:
		return false;
	}
}

/* One request into *buf (its memory, the size of the largest request, is
 * kept from one to the next).  1: one arrived, 0: try again, -1: the
 * connection ended (the mount is gone: ENODEV), -2: it failed otherwise. */
static int take_request(struct fuse_session *se, struct fuse_buf *buf)
{
	int n = fuse_session_receive_buf(se, buf);
	if (n < 0 && n != -EINTR && n != -EAGAIN)
		return n == -ENODEV ? -1 : -2;
	return fuse_session_exited(se) ? -1 : n > 0;
}

/* The one gate: requests in order, one at a time (INIT and the overlay's
 * first requests need no worker thread, 0.1-0.3 ms each to start), any that
 * early_ok() refuses waiting for the final tree.  0 once it is final (then
 * the multi-threaded loop takes over), -1 when the connection ended. */
static int serve_early(struct fuse_session *se, struct server *s, struct fuse_buf *buf)
{
	while (!is_final(s)) {
		int n = take_request(se, buf);
		if (n < 0)
			return -1;
		if (n == 0)
			continue;
		bool ok = early_ok(buf);
		if (!(buf->flags & FUSE_BUF_IS_FD))
			log_debug("hidefs: request %u (node %llu) %s", buf_opcode(buf),
			          (unsigned long long)((const struct fuse_in_header *)buf->mem)->nodeid,
			          ok ? "answered early" : "waits for the final tree");
		pthread_mutex_lock(&final_lock);
		while (!ok && !s->final) /* a failed build ends the process */
			pthread_cond_wait(&final_cond, &final_lock);
		/* an early answer reads s->tree and s->from_upper, which the
		 * builder publishes under this lock: never half of them */
		if (ok)
			fuse_session_process_buf(se, buf);
		pthread_mutex_unlock(&final_lock);
		if (!ok)
			fuse_session_process_buf(se, buf);
	}
	return 0;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Then, for the run's first SERVE_ALONE_MS, requests are still taken one at
 * a time by this thread: a short command (`jail -- true`, a `git status`)
 * ends within them, and the multi-threaded loop's first worker thread, whose
 * start and end are a tenth of a millisecond of such a run's CPU, is never
 * made.  A command still running then gets the worker threads.  0 when the
 * time is up, -1 when the connection ended, -2 when it failed. */
#define SERVE_ALONE_MS 50
static int serve_alone(struct fuse_session *se, struct fuse_buf *buf)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct pollfd p = {fuse_session_fd(se), POLLIN, 0};
	for (long left = SERVE_ALONE_MS; left > 0; left = SERVE_ALONE_MS - ms_since(&t0)) {
		int r = poll(&p, 1, (int)left);
		if (r < 0 && errno != EINTR)
			return 0; /* the loop below reads the fd as it always did */
		if (r <= 0)
			continue;
		int n = take_request(se, buf);
		if (n < 0)
			return n;
		if (n > 0)
			fuse_session_process_buf(se, buf);
	}
	return 0;
}

/* The serving thread's life: wait for the mounted fd from init, then serve
 * until the jail's mount goes away (or init never mounts: the socket closes). */
static int serve(struct server *s, int sock)
{
	int fuse_fd = -1;
	struct jail_err e = {0};
	if (sync_recv(sock, SYNC_HIDEFS, NULL, NULL, &fuse_fd, &e) < 0 || fuse_fd < 0)
		return 0;
	close(sock);
	char *argv[] = {(char *)"jail-hidefs", NULL};
	struct fuse_args args = FUSE_ARGS_INIT(1, argv);
	struct fuse_session *se = fuse_session_new(&args, &ops, sizeof(ops), s);
	char mnt[32];
	snprintf(mnt, sizeof(mnt), "/dev/fd/%d", fuse_fd);
	if (!se || fuse_session_mount(se, mnt) != 0) {
		log_error("hidefs: cannot start the project's file server");
		return 1;
	}
	struct fuse_loop_config *cfg = fuse_loop_cfg_create();
	if (!cfg) {
		log_error("hidefs: out of memory");
		return 1;
	}
	fuse_loop_cfg_set_max_threads(cfg, 8);
	struct fuse_buf buf = {.mem = NULL};
	/* the view was unmounted before the tree was final, or within the first
	 * moments */
	int r = serve_early(se, s, &buf);
	if (r == 0)
		r = serve_alone(se, &buf);
	free(buf.mem);
	if (r < 0)
		return r == -2;
	r = fuse_session_loop_mt(se, cfg);
	return r < 0 && r != -ENODEV ? 1 : 0;
}

struct serving {
	struct server *s;
	int sock;
	const char *work; /* hidefs.work */
	int r;
};

/* An outlived jail's server whose build is not needed (hidefs_stop) ends
 * with its connection, as it did before it built: whichever of the two
 * comes second ends the process. */
static atomic_int served, abandon;

static void *serve_thread(void *arg)
{
	struct serving *v = arg;
	v->r = serve(v->s, v->sock);
	/* the connection ends with the jail's overlay (or never began): its
	 * work dir is free */
	if (v->work && v->r == 0)
		workdir_remove_all(v->work);
	else if (v->work)
		workdir_remove_aside(v->work);
	atomic_store(&served, 1);
	/* with the build done, nothing is left but the end, which frees the
	 * session's lock the next run may wait for: it comes from here, not
	 * from the build's thread, which is niced (on a busy machine it woke
	 * milliseconds after this one ended) */
	if (atomic_load(&abandon) || is_final(v->s))
		_exit(v->r);
	return NULL;
}

/* The tree, built here while the serving thread answers the mount; then
 * the gate opens, and the supervisor hears of it on `built` ("ok N": N
 * ignored paths hidden).  A failure is said on stderr, in one line, and ends
 * the process: the view never answers with an unfiltered tree. */
static int build_and_serve(struct hidefs *h, struct server *s, int sock, int built)
{
	struct serving v = {.s = s, .sock = sock, .work = h->work};
	pthread_t th;
	if (pthread_create(&th, NULL, serve_thread, &v) != 0) {
		log_error("hidefs: cannot start the project's file server: no thread");
		return 1;
	}
	/* the build (this thread, and git and the thread it starts) yields to
	 * the jail's start on a busy machine; the serving thread does not */
	id_t self = (id_t)syscall(SYS_gettid);
	errno = 0;
	int prio = getpriority(PRIO_PROCESS, self);
	if (errno == 0 && setpriority(PRIO_PROCESS, self, prio + HIDEFS_BUILD_NICE) < 0) {
		/* a nice value is an optimisation: the build goes on without it */
	}
	struct hide_node *tree = NULL;
	size_t ignored = 0;
	struct jail_err e = {0};
	struct strv up = {0}, withheld = {0};
	int r = h->build(h->build_ctx, s->root, &tree, &ignored, &up, &withheld, &e);
	int upper = -1;
	if (r == 0 && up.n) {
		upper = open(h->upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (upper < 0)
			r = jail_err_sys(&e, "open '%s'", h->upper);
		qsort(up.v, up.n, sizeof(char *), cmp_str);
	}
	if (r < 0) {
		log_error("%s; the jail sees nothing of the project", e.msg);
		_exit(1); /* the FUSE connection ends with this process: fail closed */
	}
	/* said first: a command that read the project ends after the line */
	char line[32];
	int n = snprintf(line, sizeof(line), "ok %zu\n", ignored);
	if (write(built, line, (size_t)n) != n) {
		/* the supervisor is gone: nothing waits for the line */
	}
	close(built);
	pthread_mutex_lock(&final_lock);
	s->tree = tree;
	s->from_upper = up;
	s->upper = upper;
	s->withheld = withheld;
	s->final = true;
	pthread_cond_broadcast(&final_cond);
	pthread_mutex_unlock(&final_lock);
	log_debug("hidefs: tree final");
	/* from here on nothing is said: the jail's stderr (a pipe someone may
	 * read to its end) is not held open until the view's mount is gone */
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDERR_FILENO);
		close(null);
	}
	pthread_join(th, NULL);
	return v.r;
}

/* /dev/null, for quiet(): open before the signal can come. */
static int null_fd = -1;

/* SIGUSR1 from the supervisor: the jail has ended and this server still
 * builds (the caches): it lets go of the jail's stderr, whose reader may be
 * waiting for its end.  SIGUSR2: the same, and the build is not needed
 * (a warm start's, of a jail not waited for): end with the connection. */
static void quiet(int sig)
{
	int err = errno;
	dup2(null_fd, STDERR_FILENO);
	if (sig == SIGUSR2) {
		atomic_store(&abandon, 1);
		if (atomic_load(&served))
			_exit(0);
	}
	errno = err;
}

/* In the forked server: only the project fd, the socket and the session's
 * lock stay open, and no terminal signals reach it (its own session).  It
 * ends with the jail's mount of the view (the kernel ends the connection),
 * or, when init never mounts it, when init's end of the socket closes; init
 * dies with the supervisor. */
static int server_main(pid_t supervisor, struct hidefs *h, int built)
{
	int root = h->project_fd, sock = h->server_sock, lock = h->lock_fd;
	/* before any signal is let in (until null_fd is set it does nothing) */
	struct sigaction sa = {.sa_handler = quiet, .sa_flags = SA_RESTART};
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) < 0 || sigaction(SIGUSR2, &sa, NULL) < 0)
		return 1;
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (getppid() != supervisor)
		return 1;
	/* as the supervisor after the clone: no same-uid process reads its memory
	 * (it may be forked before the supervisor itself turns undumpable) */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return 1;
	setsid();
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
		return 1;
	null_fd = 1; /* /dev/null now, and kept by close_range below */
	/* one fd per file the jail holds open: as many as this user may have */
	struct rlimit nofile;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}
	int r = fcntl(root, F_DUPFD_CLOEXEC, 10), k = fcntl(sock, F_DUPFD_CLOEXEC, 10);
	int b = fcntl(built, F_DUPFD_CLOEXEC, 10);
	int l = lock >= 0 ? fcntl(lock, F_DUPFD_CLOEXEC, 10) : fcntl(b, F_DUPFD_CLOEXEC, 10);
	if (r < 0 || k < 0 || b < 0 || l < 0 || dup3(r, 3, O_CLOEXEC) < 0 ||
	    dup3(k, 4, O_CLOEXEC) < 0 || dup3(b, 5, O_CLOEXEC) < 0 || dup3(l, 6, O_CLOEXEC) < 0)
		return 1;
	if (syscall(SYS_close_range, 7, ~0U, 0) < 0)
		return 1;
	/* the session's lock is fd 6 (or a spare copy of `built` without one) */
	struct server s = {.root = 3, .tree = hidetree_node(NULL, "", true), .upper = -1,
	                   .live_secret_names = h->live_secret_names};
	h->project_fd = 3;
	return build_and_serve(h, &s, 4, 5);
}

int hidefs_prepare(struct hidefs *h, struct jail_err *e)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return jail_err_sys(e, "socketpair for the project's file server");
	h->server_sock = sv[0];
	h->jail_sock = sv[1];
	return 0;
}

int hidefs_fork(struct hidefs *h, struct jail_err *e)
{
	pid_t supervisor = getpid();
	int built[2];
	if (pipe2(built, O_CLOEXEC) < 0)
		return jail_err_sys(e, "pipe for the project's file server");
	pid_t pid = fork();
	if (pid < 0) {
		close(built[0]);
		close(built[1]);
		return jail_err_sys(e, "fork the project's file server");
	}
	if (pid == 0)
		_exit(server_main(supervisor, h, built[1]));
	close(built[1]);
	h->built_fd = built[0];
	close(h->server_sock);
	h->server_sock = -1;
	h->pid = pid;
	return 0;
}

int hidefs_built(struct hidefs *h, bool wait)
{
	if (h->built || h->built_fd < 0)
		return h->built ? h->built : -1;
	struct pollfd p = {.fd = h->built_fd, .events = POLLIN};
	int r;
	while ((r = poll(&p, 1, wait ? -1 : 0)) < 0 && errno == EINTR)
		;
	if (r == 0)
		return 0;
	char line[32] = "";
	ssize_t n = read(h->built_fd, line, sizeof(line) - 1);
	unsigned long long ignored;
	h->built = n > 3 && sscanf(line, "ok %llu", &ignored) == 1 ? 1 : -1;
	if (h->built == 1)
		h->ignored = (size_t)ignored;
	close(h->built_fd);
	h->built_fd = -1;
	return h->built;
}

void hidefs_stop(struct hidefs *h)
{
	if (h->jail_sock >= 0)
		close(h->jail_sock);
	if (h->server_sock >= 0)
		close(h->server_sock);
	h->jail_sock = h->server_sock = -1;
	/* a server still building finishes (the caches), then ends with its
	 * connection, as an outlived one does */
	bool building = h->pid > 0 && hidefs_built(h, false) == 0;
	if (h->pid > 0 && !h->outlived && !(building && h->finish)) {
		kill(h->pid, SIGKILL);
		waitpid(h->pid, NULL, 0);
	} else if (building) { /* (quiet() above) */
		kill(h->pid, h->finish ? SIGUSR1 : SIGUSR2);
	}
	h->pid = 0;
}

int hidefs_usable(struct jail_err *e)
{
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	int err = errno;
	return jail_err_set(e, 0, /* the reason is in the middle of the line */
	                    "/dev/fuse cannot be opened (%s), and hiding ignored files for the "
	                    "whole run needs it; as root: chmod 0666 /dev/fuse (Debian's default), "
	                    "or run with --hide-start-only",
	                    strerror(err));
}

int hidefs_mount(int sock, const char *dev_fuse, const char *at, uid_t uid, gid_t gid,
                 struct jail_err *e)
{
	_cleanup_close_ int fd = open(dev_fuse, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return jail_err_sys(e, "open /dev/fuse in the jail (see jail doctor, or run with "
		                       "--hide-start-only)");
	if (mkdir(at, 0755) < 0)
		return jail_err_sys(e, "create %s", at);
	_cleanup_free_ char *opts = xasprintf(
		"fd=%d,rootmode=40000,user_id=%u,group_id=%u,default_permissions", fd, uid, gid);
	if (mount("jail-project", at, "fuse", MS_RDONLY | MS_NOSUID | MS_NODEV, opts) < 0)
		return jail_err_sys(e, "mount the project's filtered view (FUSE, for hiding ignored "
		                       "files for the whole run; see jail doctor, or run with "
		                       "--hide-start-only)");
	return sync_send(sock, SYNC_HIDEFS, NULL, 0, fd, e);
}
