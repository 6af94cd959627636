/* mounts.c — the jail's root, built inside the new mount namespace by init.
 *
 * Like bubblewrap: a tmpfs becomes the root first, with the host's old root
 * reachable at /oldroot while the new tree is assembled at /newroot; a second
 * pivot makes /newroot the root and the old root is detached.  Every host path is
 * read through /oldroot, so a project under /tmp or $HOME is still reachable after
 * the jail's own /tmp and $HOME are mounted. */
#include "mounts.h"
#include "broker.h"

#include "bindcover.h"
#include "livesock.h"
#include "cover.h"
#include "cowdirs.h"
#include "etcsnap.h"
#include "home.h"
#include "hidefs.h"
#include "log.h"
#include "net.h"
#include "netns.h"
#include "resources.h"
#include "userns.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <pthread.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <linux/magic.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#define OLD "/oldroot"
#define NEW "/newroot"

enum { B_RO = 1, B_DEV = 2, B_OPTIONAL = 4, B_RW = 8 };

/* The system directories bound read-only when the host has them. */
static const char *const sys_dirs[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
                                       "/libx32", "/opt"};

static int xmount(const char *src, const char *dst, const char *type, unsigned long flags,
                  const char *data, struct jail_err *e)
{
	if (mount(src, dst, type, flags, data) < 0)
		return jail_err_sys(e, "mount %s on '%s'", type ? type : src ? src : "(remount)", dst);
	return 0;
}

/* Make a mount and everything below it read-only, nosuid (and nodev unless
 * devices are wanted).  mount_setattr does it recursively; older kernels get a
 * remount that keeps the flags the kernel locked. */
static int make_readonly(const char *path, unsigned how, struct jail_err *e)
{
	struct mount_attr attr = {.attr_set = MOUNT_ATTR_NOSUID};
	if (how & B_RO)
		attr.attr_set |= MOUNT_ATTR_RDONLY;
	if (!(how & B_DEV))
		attr.attr_set |= MOUNT_ATTR_NODEV;
	if (syscall(SYS_mount_setattr, AT_FDCWD, path, AT_RECURSIVE | AT_SYMLINK_NOFOLLOW, &attr,
	            sizeof(attr)) == 0)
		return 0;
	if (errno != ENOSYS)
		return jail_err_sys(e, "make '%s' read-only", path);
	/* A remount in a user namespace must keep the flags the kernel locked. */
	struct statvfs sv;
	if (statvfs(path, &sv) < 0)
		return jail_err_sys(e, "statvfs '%s'", path);
	unsigned long fl = MS_REMOUNT | MS_BIND | MS_NOSUID | (how & B_RO ? MS_RDONLY : 0) |
	                   (how & B_DEV ? 0 : MS_NODEV);
	if (sv.f_flag & ST_NODEV)
		fl |= MS_NODEV;
	if (sv.f_flag & ST_NOEXEC)
		fl |= MS_NOEXEC;
	if (sv.f_flag & ST_NOATIME)
		fl |= MS_NOATIME;
	if (sv.f_flag & ST_NODIRATIME)
		fl |= MS_NODIRATIME;
	if (sv.f_flag & ST_RELATIME)
		fl |= MS_RELATIME;
	if (mount(NULL, path, NULL, fl, NULL) < 0)
		return jail_err_sys(e, "remount '%s' read-only", path);
	return 0;
}

/* Push the names of path onto l, "." dropped and ".." taken back (never
 * above the root): lexically, which is exact where no link stands. */
static void push_names(struct strv *l, const char *path)
{
	_cleanup_free_ char *copy = xstrdup(path);
	char *save = NULL;
	for (char *name = strtok_r(copy, "/", &save); name; name = strtok_r(NULL, "/", &save)) {
		if (strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") != 0) {
			strv_push(l, name);
		} else if (l->n > 0) {
			free(l->v[--l->n]);
			l->v[l->n] = NULL;
		}
	}
}

/* The path (below NEW, as names) with names[i], a link of the jail's own
 * root, replaced by where it leads: target from NEW or from names[0..i). */
static void splice_link(struct strv *names, size_t i, const char *target)
{
	struct strv out = {0};
	for (size_t j = 0; target[0] != '/' && j < i; j++)
		strv_push(&out, names->v[j]);
	push_names(&out, target);
	for (size_t j = i + 1; j < names->n; j++)
		push_names(&out, names->v[j]);
	strv_free(names);
	*names = out;
}

static char *join_names(const struct strv *names)
{
	struct strbuf b = {0};
	sb_puts(&b, NEW);
	for (size_t i = 0; i < names->n; i++)
		sb_printf(&b, "/%s", names->v[i]);
	return sb_steal(&b);
}

/* Open (making it) names[i] below dir: a directory, or the empty file of a
 * file bind when it is the last name and !dir.  -1 with errno: ELOOP or
 * ENOTDIR for a symlink or a file in the way. */
static int make_name(int dir, const char *name, bool file, mode_t mode)
{
	if (file) {
		int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		struct stat st;
		if (fd >= 0 || errno != EEXIST)
			return fd;
		/* O_PATH opens a symlink itself: look first */
		if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
			errno = ELOOP;
			return -1;
		}
		return openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	}
	/* most names on the way exist (/etc's pieces, the dirs of the home and
	 * the project): opened first, made only when missing */
	int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 || errno != ENOENT)
		return fd;
	if (mkdirat(dir, name, mode) < 0 && errno != EEXIST)
		return -1;
	return openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* A link of the jail's own root (root_dev: the tmpfs init fills this start,
 * which the agent never wrote) that stands at names[i] below dir: its target
 * in buf, or NULL when the thing in the way is anything else. */
static const char *own_link(int dir, const char *name, dev_t root_dev, char *buf, size_t size)
{
	struct stat st;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode) ||
	    st.st_dev != root_dev)
		return NULL;
	ssize_t n = readlinkat(dir, name, buf, size - 1);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

/* The new root's tmpfs, opened once when it is mounted (enter_scratch_root)
 * and closed before the pivot: every mount point is made from it, and its
 * device tells the jail's own links from the agent's (own_link). */
static int new_fd = -1;
static dev_t new_dev;
/* What the covers of binds in the project looked at so far (bindcover.h). */
static struct bindcover_count bindcover_seen;

/* Walk names from NEW, making each; 1 with names changed when a link of the
 * jail's own root stands in the way (follow it: start again), 0 when made. */
static int walk_target(struct strv *names, bool dir, mode_t mode, dev_t root_dev,
                       int *last, struct jail_err *e)
{
	int fd = new_fd;
	if (fd < 0)
		return jail_err_set(e, EBADF, "open " NEW);
	for (size_t i = 0; i < names->n; i++) {
		int next = make_name(fd, names->v[i], !dir && i + 1 == names->n, mode);
		int err = errno;
		char target[PATH_MAX];
		const char *link = next < 0 && (err == ELOOP || err == ENOTDIR)
		                   ? own_link(fd, names->v[i], root_dev, target, sizeof(target)) : NULL;
		if (fd != new_fd)
			close(fd);
		if (link) {
			splice_link(names, i, link);
			return 1;
		}
		if (next < 0) {
			_cleanup_free_ char *path = join_names(names);
			_cleanup_free_ char *esc = escape_name(path + strlen(NEW));
			if (err == ELOOP || err == ENOTDIR)
				return jail_err_set(e, 0, "mount point %s: '%s' on its way is a symlink or "
				                          "a file (left in a persistent home, the project or "
				                          "a --rw dir?); remove it, or jail reset",
				                    esc, names->v[i]);
			errno = err;
			return jail_err_sys(e, "create mount point '%s'", esc);
		}
		fd = next;
	}
	*last = fd;
	return 0;
}

/* Create the mount point *dst (below NEW: a directory, or an empty file to
 * bind a file over) one name at a time from the new root, never through a
 * symlink in what the agent can write.  Below the fake home and the project
 * lie its files (a persistent home, the project's upper layer); a link it
 * left there would be resolved here, where the host's root is still
 * reachable at OLD, so following it could make a directory or file on the
 * host, and would move the mount where the jail does not look.  The links of
 * the jail's own root are followed, within it: init copied them from the
 * host's / (/bin -> usr/bin), so a path through one leads where it does on
 * the host; *dst becomes the path they lead to, for names.  *fd is the mount
 * point opened: mounted on through it, the mount lands on what was made here
 * even if a name on the way is swapped for a link since (by a running jail's
 * agent writing the same --rw dir), which the path would follow. */
static int make_target(char **dst, bool dir, mode_t mode, int *fd, struct jail_err *e)
{
	size_t nl = strlen(NEW);
	if (strncmp(*dst, NEW "/", nl + 1) != 0)
		return jail_err_set(e, EINVAL, "mount point '%s' outside the new root", *dst);
	struct strv names = {0};
	push_names(&names, *dst + nl);
	int r = 1;
	for (int hops = 0; r == 1 && hops < 8 && names.n > 0; hops++)
		r = walk_target(&names, dir, mode, new_dev, fd, e);
	if (r == 1 || names.n == 0) {
		_cleanup_free_ char *esc = escape_name(*dst + nl);
		r = jail_err_set(e, ELOOP, "mount point %s: the jail's links on its way lead "
		                           "nowhere to mount on", esc);
	} else if (r == 0) {
		free(*dst);
		*dst = join_names(&names);
	}
	strv_free(&names);
	return r;
}

static int cover_shown(const struct jail_plan *p, int fd, const char *dst, const char *what,
                       struct jail_err *e);
static int open_in_new(const char *path);
static int scratch_bind(const char *on, mode_t mode, const char *what, struct jail_err *e);

/* A path that names what fd is (the magic link), for mount(2). */
static char *fd_path(int fd)
{
	return xasprintf(OLD "/proc/self/fd/%d", fd);
}

/* Bind src (opened as from, O_PATH) at the mount point opened as `at`,
 * read-only as `how` asks: the tree is cloned from the fd, made read-only
 * while detached, then attached on `at` itself, so no name is looked up
 * again.  Kernels before 5.12 (no mount_setattr) bind by the paths src and
 * dst and remount it. */
static int bind_tree(int from, const char *src, int at, const char *dst, unsigned how,
                     struct jail_err *e)
{
	struct mount_attr attr = {.attr_set = MOUNT_ATTR_NOSUID};
	if (how & B_RO)
		attr.attr_set |= MOUNT_ATTR_RDONLY;
	if (!(how & B_DEV))
		attr.attr_set |= MOUNT_ATTR_NODEV;
	_cleanup_close_ int tree = (int)syscall(SYS_open_tree, from, "",
	                                        OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	                                        AT_RECURSIVE | AT_EMPTY_PATH);
	if (tree < 0 && errno != ENOSYS)
		return jail_err_sys(e, "clone the tree of '%s'", dst + strlen(NEW));
	if (tree >= 0 && syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE,
	                         &attr, sizeof(attr)) == 0) {
		if (syscall(SYS_move_mount, tree, "", at, "",
		            MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
			return jail_err_sys(e, "mount on '%s'", dst + strlen(NEW));
		return 0;
	}
	if (tree >= 0 && errno != ENOSYS)
		return jail_err_sys(e, "make '%s' read-only", dst + strlen(NEW));
	if (xmount(src, dst, NULL, MS_BIND | MS_REC, NULL, e) < 0)
		return -1;
	return make_readonly(dst, how, e);
}

/* Bind what fd (O_PATH, not following a last link) names at `at` inside
 * the new root; src is a path to it in the scratch root, host its name for
 * messages.  A symlink is copied, not followed.  With a plan, what the bind
 * shows of the real home and the state dir is covered (cover.h). */
static int bind_fd(int fd, const char *src, const char *host, const char *at, unsigned how,
                   const struct jail_plan *cover, struct jail_err *e)
{
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (how & B_OPTIONAL)
			return 0;
		return jail_err_sys(e, "bind '%s'", host);
	}
	_cleanup_free_ char *dst = xasprintf(NEW "%s", at);
	if (S_ISLNK(st.st_mode)) {
		char target[4096];
		ssize_t n = readlinkat(fd, "", target, sizeof(target) - 1);
		if (n < 0)
			return jail_err_sys(e, "read link '%s'", host);
		target[n] = '\0';
		_cleanup_free_ char *parent = xstrdup(dst);
		char *slash = strrchr(parent, '/');
		*slash = '\0';
		_cleanup_free_ char *base = xstrdup(slash + 1);
		_cleanup_close_ int pfd = -1;
		if (strcmp(parent, NEW) == 0)
			pfd = fcntl(new_fd, F_DUPFD_CLOEXEC, 3);
		else if (make_target(&parent, true, 0755, &pfd, e) < 0)
			return -1;
		if (pfd < 0 || (symlinkat(target, pfd, base) < 0 && errno != EEXIST))
			return jail_err_sys(e, "copy link '%s'", host);
		return 0;
	}
	_cleanup_close_ int point = -1;
	if (make_target(&dst, S_ISDIR(st.st_mode), 0755, &point, e) < 0 ||
	    bind_tree(fd, src, point, dst, how, e) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode))
		return 0;
	_cleanup_free_ char *what = xasprintf("%s %s", how & B_RW ? "--rw" : "--ro", host);
	return cover_shown(cover, fd, dst, what, e);
}

/* Bind a system path of the host (/usr, /etc's parts, /dev's nodes: no
 * symlink above them) at `at` inside the new root. */
static int bind_host(const char *host, const char *at, unsigned how,
                     const struct jail_plan *cover, struct jail_err *e)
{
	_cleanup_free_ char *src = xasprintf(OLD "%s", host);
	_cleanup_close_ int fd = open(src, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	return bind_fd(fd, src, host, at, how, cover, e);
}

/* A path the user named, opened as the host resolves it: from the old root,
 * an absolute symlink on the way taken relative to it.  Spelled through
 * /oldroot, such a link (~/src -> /data/src, /home -> /usr/home) would be
 * resolved in the scratch root, where it names nothing.  A last link is not
 * followed (it is copied). */
static int open_host_path(const char *host)
{
	_cleanup_close_ int root = open(OLD, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return root < 0 ? -1 : open_in_root(root, host, O_PATH | O_NOFOLLOW);
}

/* Bind a path the user named (--ro, --rw) at the same path inside. */
static int bind_user(const struct jail_plan *p, const char *host, unsigned how,
                     struct jail_err *e)
{
	_cleanup_close_ int fd = open_host_path(host);
	if (fd < 0) {
		int err = errno;
		if (how & B_OPTIONAL)
			return 0;
		_cleanup_free_ char *esc = escape_name(host);
		return jail_err_set(e, err, "bind '%s'", esc);
	}
	_cleanup_free_ char *src = xasprintf(OLD "/proc/self/fd/%d", fd);
	_cleanup_free_ char *esc = escape_name(host);
	return bind_fd(fd, src, esc, host, how, p, e);
}

static int write_new(const char *path, const char *content, struct jail_err *e)
{
	_cleanup_free_ char *p = xasprintf(NEW "%s", path);
	return write_file_at(AT_FDCWD, p, content, strlen(content), 0644, e);
}

static int write_etc_files(const struct jail_plan *p, struct jail_err *e)
{
	struct strv gen = {0};
	etc_generated(p, &gen);
	int r = 0;
	for (size_t i = 0; r == 0 && i + 1 < gen.n; i += 2) {
		_cleanup_free_ char *path = xasprintf("/etc/%s", gen.v[i]);
		r = write_new(path, gen.v[i + 1], e);
	}
	strv_free(&gen);
	if (r < 0)
		return -1;
	/* the session CA of brokered secrets: trusted here and nowhere else */
	if (p->broker && (write_new(BROKER_CA_FILE, broker_ca_pem(p->broker), e) < 0 ||
	                  write_new(BROKER_BUNDLE_FILE, broker_bundle_pem(p->broker), e) < 0))
		return -1;
	return 0;
}

/* With brokered secrets, the system's CA bundle (for clients that read no
 * variable) is the jail's bundle with the session CA.  Only a regular file is
 * covered: a link would be followed from the scratch root. */
static int broker_trust_store(const struct jail_plan *p, struct jail_err *e)
{
	static const char *const bundles[] = {"/etc/ssl/certs/ca-certificates.crt",
	                                      "/etc/pki/tls/certs/ca-bundle.crt"};
	if (!p->broker)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(bundles); i++) {
		_cleanup_free_ char *dst = xasprintf(NEW "%s", bundles[i]);
		struct stat st;
		if (lstat(dst, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (xmount(NEW BROKER_BUNDLE_FILE, dst, NULL, MS_BIND, NULL, e) < 0 ||
		    make_readonly(dst, B_RO, e) < 0)
			return -1;
	}
	return 0;
}

/* The snapshot of /etc (etcsnap.h) at /etc, read-only before anything is
 * bound over it (a mount point the snapshot lacks then fails, it is never made
 * in the host's copy).  Its path is opened as the host resolves it, and must
 * lead to the directory the supervisor checked and holds (whose fd, from the
 * host's mount namespace, cannot be bound here itself). */
static int bind_snapshot(const struct etc_offer *snap, struct jail_err *e)
{
	_cleanup_close_ int fd = open_host_path(snap->snapshot);
	struct stat here, held;
	if (fd < 0 || fstat(fd, &here) < 0 || fstat(snap->held, &held) < 0 ||
	    here.st_dev != held.st_dev || here.st_ino != held.st_ino || !S_ISDIR(here.st_mode)) {
		int err = fd < 0 ? errno : 0;
		_cleanup_free_ char *esc = escape_name(snap->snapshot);
		return jail_err_set(e, err, "open the /etc snapshot %s: it is not the one checked; "
		                            "run again", esc);
	}
	_cleanup_free_ char *src = xasprintf(OLD "/proc/self/fd/%d", fd);
	if (xmount(src, NEW "/etc", NULL, MS_BIND, NULL, e) < 0 ||
	    make_readonly(NEW "/etc", B_RO, e) < 0)
		return -1;
	return 0;
}

/* The host's TLS private keys live inside the /etc pieces programs need (the
 * CA store /etc/ssl/certs beside /etc/ssl/private): a service's keys, which a
 * user in its group (ssl-cert) may read on the host, and no program in the
 * jail needs.  Each such directory gets an empty read-only tmpfs over it. */
static int cover_private_dir(const char *dir, struct jail_err *e)
{
	_cleanup_close_ int fd = open_in_new(dir);
	if (fd < 0)
		return 0;
	_cleanup_free_ char *dst = xasprintf(OLD "/proc/self/fd/%d", fd);
	if (mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY,
	          "mode=0555,size=4k") < 0)
		return jail_err_sys(e, "cover %s (the host's private keys)", dir);
	return 0;
}

/* /etc/ssl/private, and every /etc/pki/NAME/private: tls and CA, and the
 * services' own (nginx, dovecot, libvirt, ...), whatever their names. */
static int cover_etc_private(struct jail_err *e)
{
	if (cover_private_dir("/etc/ssl/private", e) < 0)
		return -1;
	_cleanup_close_ int pki = open_in_new("/etc/pki");
	int dfd = pki < 0 ? -1 : openat(pki, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	int r = 0;
	for (struct dirent *de; r == 0 && (de = readdir(d));) {
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		_cleanup_free_ char *dir = xasprintf("/etc/pki/%s/private", de->d_name);
		r = cover_private_dir(dir, e);
	}
	closedir(d);
	return r;
}

/* /etc: the host's snapshot of its pieces bound read-only (etcsnap.h), or
 * the pieces copied into the root's tmpfs; then the large pieces bound over. */
static int build_etc(const struct jail_plan *p, const struct etc_offer *snap,
                     struct jail_err *e)
{
	if (mkdir(NEW "/etc", 0755) < 0)
		return jail_err_sys(e, "create /etc");
	struct strv copied = {0};
	const struct strv *binds = &snap->binds;
	if (snap->snapshot) {
		if (bind_snapshot(snap, e) < 0)
			return -1;
	} else {
		_cleanup_close_ int from = open(OLD "/etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		_cleanup_close_ int to =
			open(NEW "/etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (from < 0 || to < 0)
			return jail_err_sys(e, "open %s", from < 0 ? "host /etc" : "the jail's /etc");
		int r = etc_copy(from, to, &copied, NULL, e);
		if (r == 0)
			r = write_etc_files(p, e);
		binds = &copied;
		if (r < 0) {
			strv_free(&copied);
			return -1;
		}
	}
	int r = 0;
	for (size_t i = 0; r == 0 && i < binds->n; i++) {
		_cleanup_free_ char *path = xasprintf("/etc/%s", binds->v[i]);
		r = bind_host(path, path, B_RO | B_OPTIONAL, p, e);
	}
	strv_free(&copied);
	return r < 0 || cover_etc_private(e) < 0 ? -1 : broker_trust_store(p, e);
}

/* The host's device nodes, each bound nosuid on an empty file made in the
 * jail's /dev (its own tmpfs, mounted just now: nothing of the agent's on the
 * way).  Both /dev are opened once: 6 system calls a node, where bind_host
 * makes 11.  Without the mount API (before 5.12), bind_host binds them. */
static int bind_dev_nodes(struct jail_err *e)
{
	static const char *const nodes[] = {"null", "zero", "full", "random", "urandom", "tty"};
	struct mount_attr nosuid = {.attr_set = MOUNT_ATTR_NOSUID};
	_cleanup_close_ int dev =
		openat(new_fd, "dev", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_close_ int host = open(OLD "/dev", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dev < 0 || host < 0)
		return jail_err_sys(e, "open %s", dev < 0 ? "the jail's /dev" : "the host's /dev");
	for (size_t i = 0; i < ARRAY_SIZE(nodes); i++) {
		_cleanup_close_ int tree =
			(int)syscall(SYS_open_tree, host, nodes[i],
			             OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_SYMLINK_NOFOLLOW);
		if (tree >= 0 && syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &nosuid,
		                         sizeof(nosuid)) < 0) {
			int err = errno;
			close(tree);
			tree = -1;
			errno = err;
		}
		if (tree < 0 && errno == ENOSYS) {
			_cleanup_free_ char *p = xasprintf("/dev/%s", nodes[i]);
			if (bind_host(p, p, B_DEV, NULL, e) < 0)
				return -1;
			continue;
		}
		_cleanup_close_ int point =
			tree < 0 ? -1
			         : openat(dev, nodes[i], O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			                  O_CLOEXEC, 0644);
		if (point < 0 || syscall(SYS_move_mount, tree, "", point, "",
		                         MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
			return jail_err_sys(e, "bind /dev/%s", nodes[i]);
	}
	return 0;
}

/* /dev is a small tmpfs of its own, writable by the jail's user like the
 * others (SCRATCH): its size bounds its bytes, and nr_inodes its files, whose
 * inodes that size does not count (the kernel's default, one per two pages
 * of RAM, let empty files in /dev hold gigabytes of kernel memory).  It holds
 * some twenty nodes, links and directories. */
static int build_dev(struct jail_err *e)
{
	if (mkdir(NEW "/dev", 0755) < 0 ||
	    xmount("tmpfs", NEW "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC,
	           "mode=0755,size=64k,nr_inodes=128", e) < 0)
		return e->msg[0] ? -1 : jail_err_sys(e, "create /dev");
	if (bind_dev_nodes(e) < 0)
		return -1;
	if (mkdir(NEW "/dev/pts", 0755) < 0 || mkdir(NEW "/dev/shm", 01777) < 0)
		return jail_err_sys(e, "create /dev/pts, /dev/shm");
	if (xmount("devpts", NEW "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
	           "newinstance,ptmxmode=0666,mode=0620,max=256", e) < 0 ||
	    scratch_bind(NEW "/dev/shm", 01777, "/dev/shm", e) < 0)
		return -1;
	static const char *const links[][2] = {
		{"pts/ptmx", "/dev/ptmx"}, {"/proc/self/fd", "/dev/fd"},
		{"/proc/self/fd/0", "/dev/stdin"}, {"/proc/self/fd/1", "/dev/stdout"},
		{"/proc/self/fd/2", "/dev/stderr"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(links); i++) {
		_cleanup_free_ char *p = xasprintf(NEW "%s", links[i][1]);
		if (symlink(links[i][0], p) < 0)
			return jail_err_sys(e, "create %s", links[i][1]);
	}
	return 0;
}

/* The files of a new procfs that show more than the jail's own: keys and
 * key-users list every kernel key the user may view, by description and size,
 * wherever it was added (the login's session keyring, the user keyring, a
 * Kerberos or fscrypt key: a key's owner may always view it, whatever user
 * namespace asks).  Each gets an empty read-only file over it, as container
 * runtimes mask /proc/keys. */
static int mask_proc_files(struct jail_err *e)
{
	static const char *const masked[] = {"keys", "key-users"};
	static const char empty[] = "/proc-masked";
	_cleanup_close_ int fd = open(empty, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
	if (fd < 0)
		return jail_err_sys(e, "create the empty file that masks /proc files");
	for (size_t i = 0; i < ARRAY_SIZE(masked); i++) {
		_cleanup_free_ char *p = xasprintf(NEW "/proc/%s", masked[i]);
		if (access(p, F_OK) < 0)
			continue;
		if (xmount(empty, p, NULL, MS_BIND, NULL, e) < 0 || make_readonly(p, B_RO, e) < 0)
			return jail_err_wrap(e, "mask /proc/%s", masked[i]);
	}
	return 0;
}

/* A new procfs; the parts that can change the kernel are bound read-only over
 * themselves (the user namespace refuses most writes already), and the parts
 * that show the host's are masked (mask_proc_files).  Its sys/user
 * is opened first, for the namespace counts set after GO: a directory of this
 * new procfs, not the host's, whose dentry cache holds the sysctl entries of
 * every user namespace the host ever made (each lookup there compares names
 * along a hash chain that long: 0.1-0.3 ms for ten files on a host that has
 * run jail a few thousand times). */
static int build_proc(int *sysuser, struct jail_err *e)
{
	/* the rest of /proc refuses writes to the jail's unmapped "root" anyway */
	static const char *const ro[] = {"sys", "sysrq-trigger"};
	if (mkdir(NEW "/proc", 0555) < 0)
		return jail_err_sys(e, "create /proc");
	if (xmount("proc", NEW "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL, e) < 0) {
		_cleanup_free_ char *masked =
			e->errnum == EPERM ? proc_masked_paths(OLD "/proc") : NULL;
		if (masked)
			return jail_err_set(e, 0, "a new /proc is refused: the /proc jail runs under "
			                              "has paths masked (%s), as containers do; "
			                              PROC_MASKED_FIX, masked);
		return jail_err_wrap(e, "a new /proc needs a new pid namespace");
	}
	*sysuser = open(NEW "/proc/sys/user", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (*sysuser < 0)
		return jail_err_sys(e, "open /proc/sys/user");
	for (size_t i = 0; i < ARRAY_SIZE(ro); i++) {
		_cleanup_free_ char *p = xasprintf(NEW "/proc/%s", ro[i]);
		if (access(p, F_OK) < 0)
			continue;
		if (xmount(p, p, NULL, MS_BIND | MS_REC, NULL, e) < 0 ||
		    make_readonly(p, B_RO, e) < 0)
			return -1;
	}
	return mask_proc_files(e);
}

/* Every writable tmpfs of the jail (/tmp, /run, /dev/shm, a tmpfs home,
 * /var/tmp of its own, --tmpfs) is a directory of one tmpfs, SCRATCH, bound
 * in place: their pages are memory no process owns, so the OOM killer cannot
 * free them by killing the agent, and one tmpfs each (half the RAM apiece by
 * the kernel's default) would let the agent fill more than the host has and
 * make the kernel kill host processes instead.  One tmpfs holds at most the
 * kernel's default for one, or --memory's bytes when that is smaller.
 *
 * Its files count too: an inode and its dentry are about 1 KiB of kernel
 * memory that its size does not bound, and the kernel's default allows one
 * per two pages of RAM (3 million on 24 GiB: a --memory 64M jail held
 * 1.3 GiB of slab in a million empty files).  With --memory, one file per
 * SCRATCH_FILE_BYTES of it (at least SCRATCH_FILES_MIN, for what the
 * jail's start puts there): their memory is then about a quarter of
 * --memory's. */
#define SCRATCH "/scratch"
#define SCRATCH_FILE_BYTES 4096LL
#define SCRATCH_FILES_MIN 4096LL

static int mount_scratch(const struct jail_plan *p, struct jail_err *e)
{
	if (mkdir(SCRATCH, 0700) < 0)
		return jail_err_sys(e, "create " SCRATCH);
	long long files = p->cfg->memory / SCRATCH_FILE_BYTES;
	if (files < SCRATCH_FILES_MIN)
		files = SCRATCH_FILES_MIN;
	_cleanup_free_ char *opts =
		p->cfg->memory > 0
			? xasprintf("mode=0700,size=%lld,nr_inodes=%lld", p->cfg->memory, files)
			: xasprintf("mode=0700");
	return xmount("tmpfs", SCRATCH, "tmpfs", MS_NOSUID | MS_NODEV, opts, e);
}

/* A new directory of SCRATCH, mode MODE, bound at ON (a path or an fd's). */
static int scratch_bind(const char *on, mode_t mode, const char *what, struct jail_err *e)
{
	static unsigned next; /* init's main thread and its overlay thread both call */
	unsigned n = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);
	_cleanup_free_ char *dir = xasprintf(SCRATCH "/%u", n);
	if (mkdir(dir, 0700) < 0 || chmod(dir, mode) < 0)
		return jail_err_sys(e, "create %s for %s", dir, what);
	if (mount(dir, on, NULL, MS_BIND, NULL) < 0)
		return jail_err_sys(e, "mount tmpfs on '%s'", what);
	return 0;
}

static int tmpfs_at(const char *at, mode_t mode, struct jail_err *e)
{
	_cleanup_free_ char *p = xasprintf(NEW "%s", at);
	_cleanup_close_ int fd = -1;
	if (make_target(&p, true, 0755, &fd, e) < 0)
		return -1;
	_cleanup_free_ char *on = fd_path(fd);
	return scratch_bind(on, mode, at, e);
}

char *overlay_escape(const char *path)
{
	struct strbuf b = {0};
	sb_append(&b, "", 0);
	for (const char *s = path; *s; s++) {
		if (*s == ',' || *s == ':' || *s == '\\')
			sb_append(&b, "\\", 1);
		sb_append(&b, s, 1);
	}
	return sb_steal(&b);
}

/* The overlay is mounted first, at a staging point in the scratch root, and
 * moved into place once /tmp and $HOME exist: an overlay mounted after the other
 * mounts of the jail costs several times as long (measured: 5 ms against 1). */
#define STAGE "/project"

/* Where init mounts the project's filtered view (hidefs.h): in the scratch
 * root, which is detached with the host's root, so the jail never sees it. */
#define HIDEFS_AT "/lower"

/* An overlay at `at` over host paths (all read through the old root), or over
 * `lower` as given when `lower_raw`; with no syncs when `nosync` (plan.h). */
static int overlay_at(const char *at, const char *lower, const char *upper, const char *work,
                      bool lower_raw, bool nosync)
{
	_cleanup_free_ char *lo_esc = overlay_escape(lower);
	_cleanup_free_ char *lo = lower_raw ? xstrdup(lo_esc) : xasprintf(OLD "%s", lo_esc);
	_cleanup_free_ char *up = overlay_escape(upper);
	_cleanup_free_ char *wk = overlay_escape(work);
	_cleanup_free_ char *opts =
		xasprintf("lowerdir=%s,upperdir=" OLD "%s,workdir=" OLD "%s,userxattr%s", lo,
		          up, wk, nosync ? ",volatile" : "");
	return mount("overlay", at, "overlay", MS_NOSUID | MS_NODEV, opts);
}

static int mount_project_staged(const struct jail_plan *p, struct jail_err *e)
{
	const struct session *s = p->session;
	if (mkdir(STAGE, 0755) < 0)
		return jail_err_sys(e, "create " STAGE);
	struct hidefs *h = p->hidefs;
	if (h) {
		close(h->server_sock);
		close(h->project_fd);
		int r = hidefs_mount(h->jail_sock, OLD "/dev/fuse", HIDEFS_AT, p->uid, p->gid, e);
		close(h->jail_sock);
		if (r < 0)
			return -1;
	}
	const char *lower = h ? HIDEFS_AT : s->project;
	int r = overlay_at(STAGE, lower, s->upper, s->work, h != NULL, p->overlay_volatile);
	/* a kernel that has unprivileged overlays but not "volatile" (5.10) by
	 * a distribution's backport: syncs, then */
	if (r < 0 && errno == EINVAL && p->overlay_volatile)
		r = overlay_at(STAGE, lower, s->upper, s->work, h != NULL, false);
	if (r < 0) {
		int err = errno;
		return jail_err_set(e, err,
		                    "mount overlay on %s (upper %s): is the state dir on a local "
		                    "filesystem, and the kernel >= 5.11? see jail doctor",
		                    s->project, s->upper);
	}
	return 0;
}

/* A linked worktree's repository git dir, overlaid at its own path (plan.h). */
static int mount_gitdir(const struct jail_plan *p, struct jail_err *e)
{
	if (!p->gitdir_lower)
		return 0;
	_cleanup_free_ char *dst = xasprintf(NEW "%s", p->gitdir_lower);
	_cleanup_close_ int fd = -1;
	if (make_target(&dst, true, 0755, &fd, e) < 0)
		return -1;
	_cleanup_free_ char *on = fd_path(fd);
	if (overlay_at(on, p->gitdir_lower, p->gitdir_upper, p->gitdir_work, false, false) < 0)
		return jail_err_sys(e, "mount overlay on the worktree's repository %s",
		                    p->gitdir_lower);
	return 0;
}

static int move_project(const struct jail_plan *p, struct jail_err *e)
{
	_cleanup_free_ char *dst = xasprintf(NEW "%s", p->session->project);
	_cleanup_close_ int fd = -1;
	if (make_target(&dst, true, 0755, &fd, e) < 0)
		return -1;
	_cleanup_free_ char *on = fd_path(fd);
	if (mount(STAGE, on, NULL, MS_MOVE, NULL) < 0)
		return jail_err_sys(e, "move the project's overlay to '%s'", p->session->project);
	return 0;
}

/* The fake home is made and filled in the scratch root first, then bound at
 * $HOME and wherever a bind would show the real one (cover_shown), with the
 * mounts below it: a persistent home's secret files are mounts of their own. */
#define HOME_STAGE "/fakehome"

static int stage_home(const struct jail_plan *p, struct jail_err *e)
{
	if (mkdir(HOME_STAGE, 0700) < 0)
		return jail_err_sys(e, "create " HOME_STAGE);
	if (p->cfg->home == HOME_PERSISTENT) {
		_cleanup_free_ char *src = xasprintf(OLD "%s", p->session->home);
		if (xmount(src, HOME_STAGE, NULL, MS_BIND, NULL, e) < 0 ||
		    make_readonly(HOME_STAGE, 0, e) < 0)
			return -1;
	} else if (scratch_bind(HOME_STAGE, 0700, "the home", e) < 0) {
		return -1;
	}
	_cleanup_close_ int host_root = open(OLD, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (host_root < 0)
		return jail_err_sys(e, "open " OLD);
	return home_populate(p, HOME_STAGE, host_root, e);
}

/* $HOME already leads to the fake home: a cover put it over the real one
 * there (--ro /home), or $HOME is spelled through a host link that a bind
 * shows (HOME=/data/h, h -> home/u, --ro /data) and leads to such a cover. */
static bool home_shown(const struct jail_plan *p)
{
	_cleanup_close_ int root = open(NEW, O_PATH | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int fd = root < 0 ? -1 : open_in_root(root, p->home, O_PATH);
	struct stat at, home;
	return fd >= 0 && fstat(fd, &at) == 0 && stat(HOME_STAGE, &home) == 0 &&
	       at.st_dev == home.st_dev && at.st_ino == home.st_ino;
}

static int build_home(const struct jail_plan *p, struct jail_err *e)
{
	if (home_shown(p))
		return 0;
	_cleanup_free_ char *dst = xasprintf(NEW "%s", p->home);
	_cleanup_close_ int fd = -1;
	if (make_target(&dst, true, 0700, &fd, e) < 0)
		return -1;
	_cleanup_free_ char *on = fd_path(fd);
	if (mount(HOME_STAGE, on, NULL, MS_BIND | MS_REC, NULL) < 0)
		return jail_err_sys(e, "bind the fake home at '%s'", p->home);
	return 0;
}

/* Open path (in the jail, below NEW) without following a link (one the agent
 * left is not the place meant): an O_PATH fd of the directory, or -1 when
 * nothing of that name is in the jail's tree. */
static int open_in_new(const char *path)
{
	int fd = open(NEW, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_free_ char *rel = xstrdup(path);
	char *save = NULL;
	for (char *name = strtok_r(rel, "/", &save); name && fd >= 0;
	     name = strtok_r(NULL, "/", &save)) {
		int next = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
	}
	return fd;
}

/* Cover the directory at `at` in the jail, when the tree has it: with the
 * fake home, or (home false) an empty read-only tmpfs.  Mounted on the
 * directory opened, so a link swapped in since does not move the mount. */
static int cover_at(const char *at, bool home, struct jail_err *e)
{
	_cleanup_close_ int fd = open_in_new(at);
	if (fd < 0)
		return 0;
	_cleanup_free_ char *dst = xasprintf(OLD "/proc/self/fd/%d", fd);
	_cleanup_free_ char *esc = escape_name(at);
	int r = home ? mount(HOME_STAGE, dst, NULL, MS_BIND | MS_REC, NULL)
	             : mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY,
	                     "mode=0555,size=4k");
	if (r < 0)
		return jail_err_sys(e, "cover %s (%s)", esc, home ? "the real home" : "jail's own dir");
	return 0;
}

/* The host path a bind of fd shows (what was bound, not the name given):
 * in src, the returned pointer into it. */
static const char *bound_host_path(int fd, const char *at, char src[PATH_MAX],
                                   struct jail_err *e)
{
	_cleanup_free_ char *link = xasprintf(OLD "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, src, PATH_MAX - 1);
	_cleanup_free_ char *esc = escape_name(at);
	if (n < 0) {
		jail_err_sys(e, "what %s shows of the host", esc);
		return NULL;
	}
	src[n] = '\0';
	size_t ol = strlen(OLD);
	if (strncmp(src, OLD, ol) != 0 || (src[ol] != '\0' && src[ol] != '/')) {
		jail_err_set(e, 0, "%s shows no path of the host's tree", esc);
		return NULL;
	}
	return src[ol] ? src + ol : "/";
}

/* Show the project's own overlay at `at` (a bind shows the project's host
 * directory there, at another path than the project's: --ro /d/link/src
 * with link -> . and the project /d/src/p), so it hides there what it
 * hides; an empty read-only tmpfs if the overlay is not in place. */
static int show_view_at(const struct jail_plan *p, const char *at, struct jail_err *e)
{
	_cleanup_close_ int to = open_in_new(at);
	_cleanup_close_ int from = open_in_new(p->session->project);
	struct statfs sf;
	if (to < 0)
		return 0;
	_cleanup_free_ char *esc = escape_name(at);
	if (from < 0 || fstatfs(from, &sf) < 0 || sf.f_type != OVERLAYFS_SUPER_MAGIC)
		return cover_at(at, false, e);
	_cleanup_free_ char *src = fd_path(from);
	_cleanup_free_ char *dst = fd_path(to);
	if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) < 0)
		return jail_err_sys(e, "show the project's view at %s", esc);
	return 0;
}

/* A bind of host directory `host` in the project (--rw node_modules) shows
 * it as it is, at `at`: its hidden secrets are covered (bindcover.h).  One
 * that holds the project and shows it elsewhere than at its path gets the
 * project's view there. */
static int cover_project_shown(const struct jail_plan *p, int fd, const char *at,
                               const char *host, const char *what, struct jail_err *e)
{
	const char *project = p->session->project;
	if (path_at_or_below(host, project)) {
		struct stat bound, here;
		_cleanup_close_ int top = open_in_new(at);
		if (top < 0 || fstat(top, &here) < 0 || fstat(fd, &bound) < 0 ||
		    here.st_dev != bound.st_dev || here.st_ino != bound.st_ino)
			return jail_err_set(e, 0, "%s: the bind is not at its place to cover "
			                          "its secret-shaped names; run again", what);
		const char *rel = host + strlen(project);
		/* (what: "--rw PATH", "--ro PATH" or "--cow PATH", whose moves
		 * stay in its own upper dir) */
		return bindcover_walk(p->cfg, top, *rel ? rel + 1 : rel,
		                      strncmp(what, "--rw ", 5) == 0, what, &bindcover_seen, e);
	}
	_cleanup_free_ char *view = cover_point(at, host, project);
	return view && strcmp(view, project) != 0 ? show_view_at(p, view, e) : 0;
}

/* What a bind of host directory fd, mounted at dst, shows of the real home,
 * jail's state and config dirs and the project (cover.h): the home gets the
 * fake one over it, the state and config dirs (every session's work,
 * persistent homes, exec sockets; the next start's policy) an empty tmpfs,
 * the project's hidden secrets covers (cover_project_shown).  The host path
 * is the fd's, what was bound, not the name given.  `what`: the flag and
 * path, for messages. */
static int cover_shown(const struct jail_plan *p, int fd, const char *dst, const char *what,
                       struct jail_err *e)
{
	if (!p)
		return 0;
	char src[PATH_MAX];
	const char *at = dst + strlen(NEW);
	const char *host = bound_host_path(fd, at, src, e);
	if (!host)
		return -1;
	_cleanup_free_ char *home = cover_point(at, host, p->home_real);
	_cleanup_free_ char *state = cover_point(at, host, p->state_root);
	_cleanup_free_ char *conf = cover_point(at, host, p->config_root);
	if ((home && cover_at(home, true, e) < 0) || (state && cover_at(state, false, e) < 0) ||
	    (conf && cover_at(conf, false, e) < 0))
		return -1;
	return cover_project_shown(p, fd, at, host, what, e);
}

/* A system bind (/usr) never brings homes in: with the real home below it
 * (/home -> /usr/home), the directory that holds it (/usr/home: other users'
 * homes too) is covered with an empty tmpfs, the fake home in it at the real
 * one's name.  The tmpfs stays writable while the root is built (mount points
 * of the project, or of $HOME spelled there, are made in it); seal_covers
 * makes it read-only. */
static int cover_homes(const struct jail_plan *p, const char *sys_dir, struct strv *seal,
                       struct jail_err *e)
{
	_cleanup_free_ char *dir = cover_homes_dir(sys_dir, p->home_real);
	_cleanup_close_ int fd = dir ? open_in_new(dir) : -1;
	if (fd < 0)
		return 0;  /* no homes here, or the host has none at that name */
	_cleanup_free_ char *dst = xasprintf(OLD "/proc/self/fd/%d", fd);
	if (mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755") < 0)
		return jail_err_sys(e, "cover %s (it holds the real home)", dir);
	strv_push(seal, xasprintf(NEW "%s", dir));
	_cleanup_free_ char *home = xasprintf(NEW "%s", p->home_real);
	if (mkdir(home, 0700) < 0)
		return jail_err_sys(e, "create %s in the cover of %s", p->home_real, dir);
	return cover_at(p->home_real, true, e);
}

/* The covers of cover_homes turn read-only, themselves alone: what is
 * mounted in them keeps its flags. */
static int seal_covers(const struct strv *seal, struct jail_err *e)
{
	for (size_t i = 0; i < seal->n; i++)
		if (mount(NULL, seal->v[i], NULL,
		          MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		          NULL) < 0)
			return jail_err_sys(e, "make the cover %s read-only", seal->v[i]);
	return 0;
}

/* A bind that holds the project, its worktree's git dir or the home (--ro
 * /data with them below it) is made before them: made after, it would hide
 * them (and show the host's tree, ignored files and git credentials too). */
static bool holds_home_or_project(const struct jail_plan *p, const char *path)
{
	const char *held[] = {p->session->project, p->gitdir_lower, p->home, p->home_real};
	for (size_t i = 0; i < ARRAY_SIZE(held); i++)
		if (held[i] && strcmp(held[i], path) != 0 && path_at_or_below(held[i], path))
			return true;
	return false;
}

/* A project that holds the real home (HOME=/srv/work/me, -D /srv/work)
 * shows it through its overlay's lower layer, over the fake home bound at
 * $HOME before it: the fake home goes over it again there, as over a bind
 * that shows it. */
static int cover_home_in_project(const struct jail_plan *p, struct jail_err *e)
{
	const char *project = p->session->project;
	_cleanup_free_ char *at = cover_point(project, project, p->home_real);
	return at ? cover_at(at, true, e) : 0;
}

/* A copy-on-write dir's lower, opened through the old root without following
 * a symlink: cow_prepare resolved its links on the host and checked what they
 * lead to, and a path swapped for a link since (by anything that can write
 * there, such as another session's --rw bind) must not bring another host
 * directory in. */
static int open_cow_lower(const char *path, struct jail_err *e)
{
	_cleanup_close_ int root = open(OLD, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = root < 0 ? -1 : (int)syscall(SYS_openat2, root, path + 1, &how, sizeof(how));
	if (fd < 0) {
		_cleanup_free_ char *esc = escape_name(path);
		return jail_err_sys(e, "cow %s: open it without following a symlink", esc);
	}
	return fd;
}

/* A host directory seen copy-on-write (cowdirs.h): an overlay over the host
 * directory read through the old root (the fd opened just now, so the
 * overlay reads what was checked), its layers in the session. */
static int cow_mount(const struct jail_plan *p, size_t i, struct jail_err *e)
{
	const struct strv *l = &p->cfg->cow_binds;
	_cleanup_free_ char *dst = xasprintf(NEW "%s", l->v[i]);
	_cleanup_free_ char *dir = cow_layer_dir(p->session, l->v[i]);
	_cleanup_free_ char *upper = xasprintf("%s/upper", dir);
	_cleanup_free_ char *work = xasprintf("%s/work", dir);
	_cleanup_close_ int at = -1;
	if (make_target(&dst, true, 0755, &at, e) < 0)
		return -1;
	_cleanup_free_ char *on = fd_path(at);
	const struct strv *lowers = &p->cfg->cow_lowers;
	_cleanup_close_ int lower_fd = open_cow_lower(i < lowers->n ? lowers->v[i] : l->v[i], e);
	if (lower_fd < 0)
		return -1;
	_cleanup_free_ char *lower = xasprintf(OLD "/proc/self/fd/%d", lower_fd);
	if (overlay_at(on, lower, upper, work, true, false) < 0)
		return jail_err_sys(e, "mount overlay (copy-on-write) on %s", l->v[i]);
	_cleanup_free_ char *esc = escape_name(l->v[i]);
	_cleanup_free_ char *what = xasprintf("--cow %s", esc);
	return cover_shown(p, lower_fd, dst, what, e);
}

/* One path the user named: its list (fs.ro, fs.rw, fs.cow) and place there. */
struct named {
	const char *path;
	size_t depth;  /* its components */
	int kind;      /* 0 ro, 1 rw, 2 cow */
	size_t i;
};

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* A --ro or --cow path below a --rw dir: the agent could rename a directory
 * between the two (`mv ~/w/a ~/w/z` for --ro ~/w/a/b), and the next start,
 * finding no ~/w/a/b, would bind nothing there (a policy's ro path is
 * optional) while ~/w/z/b stayed writable under --rw ~/w; the agent then
 * wrote it and moved it back.  A mount point cannot be renamed or removed
 * (EBUSY), so each of those directories is bound onto itself (with what is
 * mounted below it: nothing changes but that). */
static int pin_parents(const struct jail_plan *p, const char *path, struct strv *pinned,
                       struct jail_err *e)
{
	const struct strv *rw = &p->cfg->rw_binds;
	size_t root = 0;
	for (size_t i = 0; i < rw->n; i++)
		if (path_at_or_below(path, rw->v[i]) && strcmp(path, rw->v[i]) != 0 &&
		    strlen(rw->v[i]) > root)
			root = strlen(rw->v[i]);
	if (!root)
		return 0;
	_cleanup_free_ char *dir = xstrdup(path);
	for (char *slash = dir + root + 1; (slash = strchr(slash, '/')); *slash++ = '/') {
		*slash = '\0';
		/* the project's and the home's own mounts: a rename there stays in
		 * the session */
		if (strv_contains(pinned, dir) || path_at_or_below(dir, p->session->project) ||
		    path_at_or_below(dir, p->home) || path_at_or_below(dir, p->gitdir_lower))
			continue;
		struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
		                       .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS};
		_cleanup_close_ int fd = (int)syscall(SYS_openat2, new_fd, dir + 1, &how, sizeof(how));
		/* not there: nothing to bind below it; a link on the way: the bind's
		 * own mount point refuses it (make_target) */
		if (fd < 0)
			return 0;
		_cleanup_free_ char *at = fd_path(fd);
		if (mount(at, at, NULL, MS_BIND | MS_REC, NULL) < 0) {
			_cleanup_free_ char *esc = escape_name(dir);
			return jail_err_sys(e, "bind '%s' onto itself, so that it cannot be moved", esc);
		}
		strv_push(pinned, dir);
	}
	return 0;
}

/* The --ro, --rw and --cow paths of one phase (early: those that hold the
 * home or the project), a directory before what lies in it: a bind made
 * later hides what lies below it, so `--rw ~/w --ro ~/w/keep` made keep
 * first and bound ~/w over it, and keep was writable (each list took its
 * turn, ro first). */
static int named_binds(const struct jail_plan *p, bool early, struct jail_err *e)
{
	const struct strv *lists[] = {&p->cfg->ro_binds, &p->cfg->rw_binds, &p->cfg->cow_binds};
	size_t n = 0;
	for (size_t k = 0; k < ARRAY_SIZE(lists); k++)
		n += lists[k]->n;
	_cleanup_free_ struct named *v = xcalloc(n ? n : 1, sizeof(*v));
	n = 0;
	for (int k = 0; k < (int)ARRAY_SIZE(lists); k++)
		for (size_t i = 0; i < lists[k]->n; i++) {
			const char *path = lists[k]->v[i];
			if (holds_home_or_project(p, path) != early)
				continue;
			size_t depth = 0;
			for (const char *c = path; *c; c++)
				depth += *c == '/' && c[1] && c[1] != '/';
			v[n++] = (struct named){path, depth, k, i};
		}
	qsort(v, n, sizeof(*v), cmp_named);
	struct strv pinned = {0};
	for (size_t j = 0; j < n; j++) {
		if (v[j].kind != 1 && pin_parents(p, v[j].path, &pinned, e) < 0) {
			strv_free(&pinned);
			return -1;
		}
		int r = v[j].kind == 2   ? cow_mount(p, v[j].i, e)
		        : v[j].kind == 1 ? bind_user(p, v[j].path, B_RW, e)
		                         : bind_user(p, v[j].path, B_RO | B_OPTIONAL, e);
		if (r < 0) {
			strv_free(&pinned);
			return -1;
		}
	}
	strv_free(&pinned);
	return 0;
}

/* First pivot: a private tmpfs becomes / and the host's root moves to /oldroot. */
static int enter_scratch_root(struct jail_err *e)
{
	if (xmount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL, e) < 0)
		return -1;
	if (xmount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700", e) < 0)
		return -1;
	if (mkdir("/tmp" OLD, 0700) < 0 || mkdir("/tmp" NEW, 0755) < 0)
		return jail_err_sys(e, "create the scratch root");
	if (syscall(SYS_pivot_root, "/tmp", "/tmp" OLD) < 0)
		return jail_err_sys(e, "pivot_root to the scratch root");
	if (chdir("/") < 0)
		return jail_err_sys(e, "chdir /");
	if (xmount("tmpfs", NEW, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755", e) < 0)
		return -1;
	struct stat st;
	new_fd = open(NEW, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (new_fd < 0 || fstat(new_fd, &st) < 0)
		return jail_err_sys(e, "open " NEW);
	new_dev = st.st_dev;
	return 0;
}

/* Second pivot: /newroot becomes /, the scratch root with the host under it is
 * detached, and the root tmpfs turns read-only. */
static int enter_new_root(struct jail_err *e)
{
	close(new_fd);
	new_fd = -1;
	if (chdir(NEW) < 0)
		return jail_err_sys(e, "chdir " NEW);
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		return jail_err_sys(e, "pivot_root to the new root");
	if (umount2(".", MNT_DETACH) < 0)
		return jail_err_sys(e, "detach the host's root");
	if (chdir("/") < 0)
		return jail_err_sys(e, "chdir /");
	if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV,
	          NULL) < 0)
		return jail_err_sys(e, "make the jail's root read-only");
	return 0;
}

/* jail's state and config directories, if a bind or copy-on-write dir shows
 * them (--ro ~/.local holds ~/.local/state/jail, --rw ~/.config holds
 * ~/.config/jail): an empty read-only tmpfs over each.  The state dir holds
 * every session's work, persistent homes and running jails' exec sockets; the
 * config dir what the next start reads as policy (a `cmd:` secret there runs
 * on the host) and the trust records; none of it is this agent's to see or
 * write.  The path is walked from the new root without following links (one
 * the agent left is not the dir), and only what exists is covered: nothing is
 * made (plan.c makes the config dir first when a --rw bind holds it). */
static int mask_own_dir(const char *dir, struct jail_err *e)
{
	return cover_at(dir, false, e);
}

static bool any_at_or_under(const struct strv *paths, const char *dir)
{
	for (size_t i = 0; i < paths->n; i++)
		if (path_at_or_below(paths->v[i], dir))
			return true;
	return false;
}

/* /var/tmp is a link to /tmp, one writable place for both, unless something
 * the user named lives there on the host (the project, the home, a bind, a
 * copy-on-write dir, a tmpfs): it keeps its own path in the jail, so
 * /var/tmp is a tmpfs of its own then.  Through the link its mount point
 * would be made in the jail's /tmp, or (made without following links) not
 * at all. */
static int build_var_tmp(const struct jail_plan *p, struct jail_err *e)
{
	static const char dir[] = "/var/tmp";
	const struct jail_config *c = p->cfg;
	if (mkdir(NEW "/var", 0755) < 0)
		return jail_err_sys(e, "create /var");
	if (path_at_or_below(p->session->project, dir) || path_at_or_below(p->home, dir) ||
	    path_at_or_below(p->gitdir_lower, dir) || any_at_or_under(&c->ro_binds, dir) ||
	    any_at_or_under(&c->rw_binds, dir) || any_at_or_under(&c->cow_binds, dir) ||
	    any_at_or_under(&c->tmpfs, dir))
		return tmpfs_at(dir, 01777, e);
	if (symlink("/tmp", NEW "/var/tmp") < 0)
		return jail_err_sys(e, "create /var/tmp");
	return 0;
}

/* The package manager's database of what is installed, read-only: build
 * scripts ask it (dpkg-buildpackage's build-dependency check, `dpkg-query -W`,
 * `rpm -q` in a configure script) and fail inside without it.  It holds the
 * names and files of the system's packages, what /usr already shows. */
static int bind_package_dbs(const struct jail_plan *p, struct jail_err *e)
{
	static const char *const dbs[] = {"/var/lib/dpkg", "/var/lib/rpm"};
	for (size_t i = 0; i < ARRAY_SIZE(dbs); i++)
		if (bind_host(dbs[i], dbs[i], B_RO | B_OPTIONAL, p, e) < 0)
			return -1;
	return 0;
}

/* The host's system directories, read-only, with no home showing in them. */
static int bind_sys_dirs(const struct jail_plan *p, struct strv *seal, struct jail_err *e)
{
	for (size_t i = 0; i < ARRAY_SIZE(sys_dirs); i++) {
		bool opt = strcmp(sys_dirs[i], "/opt") == 0;
		if (opt && !strv_contains(&p->cfg->ro_binds, "/opt"))
			continue;
		if (bind_host(sys_dirs[i], sys_dirs[i], B_RO | B_OPTIONAL, p, e) < 0 ||
		    cover_homes(p, sys_dirs[i], seal, e) < 0)
			return -1;
	}
	return 0;
}

/* $HOME, the project and what the user named: a bind made later hides what
 * lies below it, so the binds that hold the home or the project come first,
 * then those two, then the binds in them and elsewhere. */
static int build_named(const struct jail_plan *p, struct jail_err *e)
{
	const struct jail_config *c = p->cfg;
	for (int early = 1; early >= 0; early--) {
		if (named_binds(p, early, e) < 0)
			return -1;
		if (early && (build_home(p, e) < 0 || move_project(p, e) < 0 ||
		              mount_gitdir(p, e) < 0 || cover_home_in_project(p, e) < 0))
			return -1;
	}
	for (size_t i = 0; i < c->tmpfs.n; i++)
		if (tmpfs_at(c->tmpfs.v[i], 0755, e) < 0)
			return -1;
	/* last: at a socket's path the deepest bind that shows it is on top */
	return livesock_cover(&p->sock_covers, &p->sock_hosts, &p->sock_pins, new_fd, e);
}

/* The project's overlay is mounted by a thread of init while init builds the
 * rest of the root: most of an overlay mount is the kernel probing the upper
 * filesystem (it recreates the work directory and tries a tmpfile, a whiteout
 * rename and an xattr there: 0.5-0.9 ms of journal work on ext4) and waiting
 * for the view's server to answer, none of which holds the mount namespace's
 * lock.  The thread shares the mount namespace; its work is always done
 * before the overlay is moved into place or an error is returned.  It says
 * so as its last act, and is not joined: its own end (glibc gives its stack
 * back, the kernel ends the task) took 0.1 ms more of the start's path on a
 * busy machine.  One per init, so static: nothing of it is on a stack that
 * goes away while the thread ends. */
static struct stager {
	pthread_t thread;
	const struct jail_plan *p;
	struct jail_err e;
	int r;
	pthread_mutex_t lock;
	pthread_cond_t done_cond;
	bool done;
} stager = {.lock = PTHREAD_MUTEX_INITIALIZER, .done_cond = PTHREAD_COND_INITIALIZER};

static void *stager_main(void *arg)
{
	struct stager *st = arg;
	st->r = mount_project_staged(st->p, &st->e);
	pthread_mutex_lock(&st->lock);
	st->done = true;
	pthread_cond_signal(&st->done_cond);
	pthread_mutex_unlock(&st->lock);
	return NULL;
}

static int stager_start(struct stager *st, const struct jail_plan *p, struct jail_err *e)
{
	st->p = p;
	int err = pthread_create(&st->thread, NULL, stager_main, st);
	if (err != 0)
		return jail_err_set(e, err, "start a thread for the project's overlay");
	pthread_detach(st->thread);
	return 0;
}

/* Wait for the thread's work; its error, when it had one, wins over the
 * caller's. */
static int stager_join(struct stager *st, int r, struct jail_err *e)
{
	pthread_mutex_lock(&st->lock);
	while (!st->done)
		pthread_cond_wait(&st->done_cond, &st->lock);
	pthread_mutex_unlock(&st->lock);
	if (st->r < 0) {
		*e = st->e;
		return -1;
	}
	return r;
}

/* Everything of the new root but the project and what the user named: the
 * fake home staged, system directories, /etc, /proc, /dev, /tmp, /run and
 * /var/tmp. */
static int build_system(const struct jail_plan *p, int sock, struct launcher *l,
                        struct strv *seal, int *sysuser, struct jail_err *e)
{
	if (stage_home(p, e) < 0 || bind_sys_dirs(p, seal, e) < 0)
		return -1;
	struct etc_offer snap;
	if (etcsnap_take(sock, &snap, e) < 0)
		return -1;
	int r = build_etc(p, &snap, e);
	etcsnap_offer_free(&snap);
	if (r < 0)
		return -1;
	if (build_proc(sysuser, e) < 0)
		return -1;
	/* the next message, GO, is the launcher's thread's to read, and the
	 * namespace counts its to set (launcher.h) */
	launcher_hand_over(l, *sysuser);
	if (build_dev(e) < 0)
		return -1;
	if (tmpfs_at("/tmp", 01777, e) < 0 || tmpfs_at("/run", 0755, e) < 0 ||
	    build_var_tmp(p, e) < 0 || bind_package_dbs(p, e) < 0)
		return -1;
	return 0;
}

static int build_tree(const struct jail_plan *p, int sock, struct launcher *l,
                      struct strv *seal, int *sysuser, struct jail_err *e)
{
	if (enter_scratch_root(e) < 0 || mount_scratch(p, e) < 0 || stager_start(&stager, p, e) < 0)
		return -1;
	int r = build_system(p, sock, l, seal, sysuser, e);
	/* made by the launcher's thread meanwhile (launcher.h, netns.h) */
	if (r == 0)
		r = launcher_enter_netns(l, e);
	if (stager_join(&stager, r, e) < 0 || build_named(p, e) < 0)
		return -1;
	const char *own[] = {p->state_root, p->state_root_named, p->config_root,
	                     p->config_root_named};
	for (size_t i = 0; i < ARRAY_SIZE(own); i++)
		if (own[i] && mask_own_dir(own[i], e) < 0)
			return -1;
	return seal_covers(seal, e);
}

int mounts_build_root(const struct jail_plan *p, int sock, struct launcher *l, int *sysuser,
                      struct jail_err *e)
{
	struct strv seal = {0};
	int r = build_tree(p, sock, l, &seal, sysuser, e);
	strv_free(&seal);
	return r < 0 ? -1 : enter_new_root(e);
}
