/* rmtree.c — rm_rf_at(): remove a tree the agent may have shaped as a trap.
 *
 * The upper dir can hold any depth the kernel allows (paths far beyond
 * PATH_MAX, built fd-relatively), directories without read, write or search
 * permission for the user, and overlayfs's own work/work (mode 000).  So the
 * removal is iterative, not recursive: one directory fd is open at a time, the
 * way back up is ".." checked against the device and inode remembered on the
 * way down, and the memory is one name per level of depth.  Every directory is
 * given u+rwx before it is read: the user owns all of it.  Symlinks are never
 * followed; they are unlinked like files.
 *
 * A directory of many subdirectories must not cost their number squared: an
 * empty subdirectory is removed as the scan meets it, and back from one that
 * was not, the level is read on from where it stopped (its position), in
 * reads of 4 KiB.  Read again from the start after each, with readdir's 32
 * KiB (ext4 fills all of it, reading past every entry already removed), an
 * agent's 40,000 empty directories held `jail reset` for 24 s, a million for
 * hours. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

struct rm_level {
	char *name;   /* its name in the level above (the caller's parent for level 0) */
	dev_t dev;
	ino_t ino;
	off_t pos;    /* where reading it goes on, 0: from the start */
};

/* chmod of name in parent, never through a symlink: a directory the open
 * below found without search permission may be a link by now (fchmodat2,
 * Linux 6.6; else glibc's fchmodat, which goes through /proc/self/fd). */
static int chmod_nofollow(int parent, const char *name, mode_t mode)
{
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
	if (syscall(SYS_fchmodat2, parent, name, mode, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
	return fchmodat(parent, name, mode, AT_SYMLINK_NOFOLLOW);
}

/* Open name below parent as a directory we may empty. */
static int rm_open_dir(int parent, const char *name, struct rm_level *lv)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EACCES && chmod_nofollow(parent, name, 0700) == 0)
		fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 ||
	    ((st.st_mode & 0700) != 0700 && fchmod(fd, (st.st_mode & 07777) | 0700) < 0)) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		errno = err;
		return -1;
	}
	lv->name = xstrdup(name);
	lv->dev = st.st_dev;
	lv->ino = st.st_ino;
	lv->pos = 0;
	return fd;
}

/* Remove one entry found by the scan: 0 when it is gone, 1 when it is a
 * directory that holds something, -1 on error. */
static int rm_entry(int fd, const char *n, unsigned char type, struct jail_err *e)
{
	if (type != DT_DIR && (unlinkat(fd, n, 0) == 0 || errno == ENOENT))
		return 0;
	if (type != DT_DIR && errno != EISDIR && errno != EPERM) {
		_cleanup_free_ char *esc = escape_name(n);
		return jail_err_sys(e, "remove '%s'", esc);
	}
	if (unlinkat(fd, n, AT_REMOVEDIR) == 0 || errno == ENOENT)
		return 0;
	return 1;  /* not empty, or not ours to rmdir: rm_open_dir says why */
}

/* Unlink every non-directory and empty directory in fd, reading on from
 * *pos.  1 with *sub set to the first directory left (and *pos to the entry
 * after it), 0 when fd is empty, -1 on error.  Only a pass from the start may
 * say "empty": where positions are indexes (older tmpfs), they shift as
 * entries go, and a pass that began further on may have skipped some. */
static int rm_files(int fd, off_t *pos, char **sub, struct jail_err *e)
{
	_Alignas(struct dirent64) char buf[4096];
	off_t start = *pos;
	if (lseek(fd, start, SEEK_SET) < 0)
		return jail_err_sys(e, "read a directory to remove it");
	for (;;) {
		ssize_t n = getdents64(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return jail_err_sys(e, "read a directory to remove it");
		if (n == 0 && start == 0)
			return 0;
		if (n == 0) {  /* once more from the start */
			start = 0;
			if (lseek(fd, 0, SEEK_SET) < 0)
				return jail_err_sys(e, "read a directory to remove it");
			continue;
		}
		for (ssize_t off = 0; off < n;) {
			const struct dirent64 *de = (const struct dirent64 *)(void *)(buf + off);
			off += de->d_reclen;
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			int r = rm_entry(fd, de->d_name, de->d_type, e);
			if (r == 1) {
				*sub = xstrdup(de->d_name);
				*pos = de->d_off;
			}
			if (r != 0)
				return r;
		}
	}
}

/* Leave the emptied top level: remove it, and open the level above (*fd). */
static int rm_go_up(int parent, struct rm_level *v, size_t n, int *fd, struct jail_err *e)
{
	int up = parent;
	if (n > 1) {
		up = openat(*fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		struct stat st;
		if (up < 0 || fstat(up, &st) < 0)
			return jail_err_sys(e, "go back up while removing '%s'", v[0].name);
		if (st.st_dev != v[n - 2].dev || st.st_ino != v[n - 2].ino) {
			close(up);
			return jail_err_set(e, 0, "'%s' was moved while being removed", v[0].name);
		}
	}
	close(*fd);
	*fd = n > 1 ? up : -1;
	if (unlinkat(up, v[n - 1].name, AT_REMOVEDIR) < 0 && errno != ENOENT) {
		_cleanup_free_ char *esc = escape_name(v[n - 1].name);
		return jail_err_sys(e, "remove directory '%s'", esc);
	}
	return 0;
}

int rm_rf_at(int parent, const char *name, struct jail_err *e)
{
	if (unlinkat(parent, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return jail_err_sys(e, "remove '%s'", name);
	struct rm_level *v = xmalloc(sizeof(*v));
	size_t n = 0, cap = 1;
	int fd = rm_open_dir(parent, name, &v[0]), ret = 0;
	if (fd < 0)
		ret = jail_err_sys(e, "open directory '%s'", name);
	else
		n = 1;
	while (ret == 0 && n > 0) {
		char *sub = NULL;
		int r = rm_files(fd, &v[n - 1].pos, &sub, e);
		if (r == 0) {
			ret = rm_go_up(parent, v, n, &fd, e);
			free(v[--n].name);
			continue;
		}
		if (r < 0) {
			ret = -1;
			break;
		}
		if (n == cap)
			v = xrealloc(v, (cap *= 2) * sizeof(*v));
		int child = rm_open_dir(fd, sub, &v[n]);
		if (child < 0) {
			_cleanup_free_ char *esc = escape_name(sub);
			ret = jail_err_sys(e, "open directory '%s'", esc);
		} else {
			close(fd);
			fd = child;
			n++;
		}
		free(sub);
	}
	if (fd >= 0)
		close(fd);
	while (n > 0)
		free(v[--n].name);
	free(v);
	return ret;
}
