/* home.c — the fake home: nothing of the host's but what the policy names. */
#include "home.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>

static const char bashrc[] =
	"# jail: a fake home; nothing of your real home is here unless a policy copies it\n"
	"PS1='(jail) \\u@\\h:\\w\\$ '\n"
	"alias ls='ls --color=auto'\n";
static const char profile[] =
	"[ -n \"$BASH_VERSION\" ] && [ -f \"$HOME/.bashrc\" ] && . \"$HOME/.bashrc\"\n";

static int write_if_absent(int dir, const char *name, const char *data, struct jail_err *e)
{
	if (faccessat(dir, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	return write_file_at(dir, name, data, strlen(data), 0644, e);
}

/* The directory that will hold rel, created as needed, never through a symlink:
 * a persistent home holds what the agent left there in an earlier run. */
static int open_parent(int dir, const char *rel, const char **base, struct jail_err *e)
{
	_cleanup_free_ char *p = xstrdup(rel);
	int fd = fcntl(dir, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return jail_err_sys(e, "dup the fake home's fd");
	char *part = p;
	for (char *s = strchr(part, '/'); s; part = s + 1, s = strchr(part, '/')) {
		*s = '\0';
		if (mkdirat(fd, part, 0700) < 0 && errno != EEXIST) {
			close(fd);
			return jail_err_sys(e, "create '%s' in the fake home", p);
		}
		int next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next < 0)
			return jail_err_sys(e, "open '%s' in the fake home (not through a symlink)", p);
		fd = next;
	}
	*base = rel + (part - p);
	return fd;
}

/* The host directory that holds path, opened as the host resolves it: from
 * its root (host_root), an absolute symlink on the way (a home behind
 * /home -> /usr/home) taken relative to it, not to the jail's scratch root. */
static int open_host_parent(int host_root, const char *path, const char **base)
{
	_cleanup_free_ char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	*base = path + (slash - dir) + 1;
	slash[1] = '\0';
	return open_in_root(host_root, dir, O_PATH | O_DIRECTORY);
}

#define HOME_COPY_MAX (64 << 20)

/* Copy one host file (under the host's home) into the fake home. */
static int copy_in(const struct jail_plan *p, int dir, int host_root, const char *path,
                   struct jail_err *e)
{
	size_t hl = strlen(p->home);
	if (strncmp(path, p->home, hl) != 0 || path[hl] != '/')
		return jail_err_set(e, 0, "home copy '%s': only files under %s can be copied in",
		                    path, p->home);
	const char *rel = path + hl + 1;
	const char *name = NULL;
	_cleanup_close_ int from = open_host_parent(host_root, path, &name);
	if (from < 0)
		return errno == ENOENT ? 0 : jail_err_sys(e, "home copy '%s'", path);
	/* Only a regular file, and not through a last link (with a --rw bind
	 * above it, the agent could have put the link there): a fifo or a
	 * device would hold the start, unkillable, in the open or the read. */
	struct stat st;
	if (fstatat(from, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : jail_err_sys(e, "home copy '%s'", path);
	if (S_ISLNK(st.st_mode))
		return jail_err_set(e, 0, "home copy '%s': a symbolic link; jail copies only a "
		                          "file, not what a link leads to: drop it from copy",
		                    path);
	if (!S_ISREG(st.st_mode))
		return jail_err_set(e, 0, "home copy '%s': not a regular file (a fifo, socket "
		                          "or device); drop it from copy", path);
	if (st.st_size > HOME_COPY_MAX)
		return jail_err_set(e, 0, "home copy '%s': larger than %d MiB; drop it from copy "
		                          "or bind it with --ro", path, HOME_COPY_MAX >> 20);
	_cleanup_free_ char *data = NULL;
	size_t n;
	if (read_file_at(from, name, HOME_COPY_MAX, &data, &n, e) < 0) {
		if (e->errnum == ENOENT)
			return 0; /* nothing to copy: the agent starts without it */
		return jail_err_wrap(e, "home copy");
	}
	const char *base = NULL;
	_cleanup_close_ int parent = open_parent(dir, rel, &base, e);
	if (parent < 0)
		return -1;
	if (unlinkat(parent, base, 0) < 0 && errno != ENOENT && rm_rf_at(parent, base, e) < 0)
		return -1;
	return write_file_at(parent, base, data, n, 0600, e);
}

/* A secret file.  A persistent home is the session's directory on disk, where a
 * secret must never land: there the content goes to a file of the scratch root
 * (a tmpfs, detached with the host's root later), bind-mounted over an empty
 * file. */
static int put_secret(const struct jail_plan *p, int home, size_t i, struct jail_err *e)
{
	const struct secret_file *f = &p->secret_files[i];
	const char *base = NULL;
	_cleanup_close_ int dir = open_parent(home, f->path, &base, e);
	if (dir < 0)
		return -1;
	if (unlinkat(dir, base, 0) < 0 && errno != ENOENT && rm_rf_at(dir, base, e) < 0)
		return -1;
	if (p->cfg->home != HOME_PERSISTENT)
		return write_file_at(dir, base, f->content, f->len, 0600, e);
	_cleanup_free_ char *mem = xasprintf("/.jail-secret-%zu", i);
	if (write_file_at(AT_FDCWD, mem, f->content, f->len, 0600, e) < 0 ||
	    write_file_at(dir, base, "", 0, 0600, e) < 0)
		return -1;
	_cleanup_close_ int target = openat(dir, base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_close_ int tree = open_tree(AT_FDCWD, mem, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (target < 0 || tree < 0 ||
	    move_mount(tree, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return jail_err_sys(e, "mount the secret file ~/%s", f->path);
	return 0;
}

int home_populate(const struct jail_plan *p, const char *dir, int host_root,
                  struct jail_err *e)
{
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return jail_err_sys(e, "open the fake home");
	if (write_if_absent(fd, ".bashrc", bashrc, e) < 0 ||
	    write_if_absent(fd, ".profile", profile, e) < 0)
		return -1;
	for (size_t i = 0; i < p->cfg->home_copy.n; i++)
		if (copy_in(p, fd, host_root, p->cfg->home_copy.v[i], e) < 0)
			return -1;
	for (size_t i = 0; i < p->n_secret_files; i++)
		if (put_secret(p, fd, i, e) < 0)
			return -1;
	return 0;
}
