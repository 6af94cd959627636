/* doctor.c — `jail doctor`: can this host run jail, and if not, what to do. */
#include "commands.h"

#include "log.h"
#include "resources.h"
#include "session.h"
#include "h2lib.h"
#include "nftload.h"
#include "tlslib.h"
#include "userns.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <sys/wait.h>

struct check {
	int failed, warned;
};

static void report(struct check *c, int level, const char *what, const char *fix)
{
	static const char *const tag[] = {"ok  ", "warn", "FAIL"};
	printf("[%s] %s\n", tag[level], what);
	if (fix && level)
		printf("       fix: %s\n", fix);
	if (level == 1)
		c->warned++;
	if (level == 2)
		c->failed++;
}

static void check_kernel(struct check *c)
{
	struct utsname u;
	uname(&u);
	int major = 0, minor = 0;
	sscanf(u.release, "%d.%d", &major, &minor);
	_cleanup_free_ char *msg = xasprintf("kernel %s", u.release);
	bool ok = major > 5 || (major == 5 && minor >= 11);
	report(c, ok ? 0 : 2, msg,
	       "overlayfs in a user namespace needs Linux >= 5.11; upgrade the kernel");
}

static void check_sysctls(struct check *c)
{
	long clone = sysctl_long("/proc/sys/kernel/unprivileged_userns_clone");
	if (clone == 0)
		report(c, 2, "kernel.unprivileged_userns_clone = 0",
		       "sysctl -w kernel.unprivileged_userns_clone=1 (and in /etc/sysctl.d/)");
	long max = sysctl_long("/proc/sys/user/max_user_namespaces");
	if (max == 0)
		report(c, 2, "user.max_user_namespaces = 0",
		       "sysctl -w user.max_user_namespaces=15000 (and in /etc/sysctl.d/)");
	long aa = sysctl_long("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
	_cleanup_free_ char *label = apparmor_label();
	bool profiled = label && strncmp(label, "jail ", 5) == 0;
	if (aa == 1 && !profiled)
		report(c, 2, "AppArmor restricts unprivileged user namespaces (Ubuntu >= 23.10) "
		             "and jail's profile is not loaded",
		       "cp /usr/share/jail/apparmor/jail /etc/apparmor.d/ && "
		       "apparmor_parser -r /etc/apparmor.d/jail (as root; the package and make "
		       "install do it), or sysctl -w kernel.apparmor_restrict_unprivileged_userns=0");
	else if (profiled)
		report(c, 0, "AppArmor: jail's profile is loaded (it grants userns)", NULL);
	else if (label)
		report(c, 0, "AppArmor is active and does not restrict user namespaces", NULL);
}

/* What hiding for the whole run needs (hidefs.h): /dev/fuse opened and mounted
 * in the user namespace.  No server answers: the kernel only queues its INIT. */
static int try_fuse(const char *base, uid_t uid, gid_t gid)
{
	_cleanup_close_ int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 3;
	_cleanup_free_ char *opts = xasprintf(
		"fd=%d,rootmode=40000,user_id=%u,group_id=%u,default_permissions", fd, uid, gid);
	_cleanup_free_ char *f = xasprintf("%s/f", base);
	if (mount("jail-doctor", f, "fuse", MS_RDONLY | MS_NOSUID | MS_NODEV, opts) < 0)
		return 4;
	return 0;
}

/* In the new user namespace: a new pid namespace whose first process mounts a
 * procfs, as jail's init does.  0 when it could. */
static int try_proc(const char *dir)
{
	if (unshare(CLONE_NEWPID) < 0)
		return 1;
	pid_t pid = fork();
	if (pid == 0)
		_exit(mount("proc", dir, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0 ? 1 : 0);
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* Try what jail does: a user+mount namespace with an overlay using userxattr. */
static int try_overlay(const char *base)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		return errno < 100 ? 100 + errno : 1; /* the errno says which layer refused */
	char map[64];
	struct jail_err e;
	snprintf(map, sizeof(map), "%u %u 1", uid, uid);
	if (write_file_at(AT_FDCWD, "/proc/self/setgroups", "deny", 4, 0, &e) < 0 ||
	    write_file_at(AT_FDCWD, "/proc/self/uid_map", map, strlen(map), 0, &e) < 0)
		return 1;
	snprintf(map, sizeof(map), "%u %u 1", gid, gid);
	if (write_file_at(AT_FDCWD, "/proc/self/gid_map", map, strlen(map), 0, &e) < 0)
		return 1;
	_cleanup_free_ char *opts = xasprintf(
		"lowerdir=%s/l,upperdir=%s/u,workdir=%s/w,userxattr", base, base, base);
	_cleanup_free_ char *m = xasprintf("%s/m", base);
	if (mount("overlay", m, "overlay", 0, opts) < 0)
		return 2;
	_cleanup_free_ char *proc = xasprintf("%s/p", base);
	if (try_proc(proc) != 0)
		return 5;
	return try_fuse(base, uid, gid);
}

/* A new /proc refused: where the host's has masked paths (a container's),
 * say which and how to unmask them. */
static void report_proc(struct check *c)
{
	_cleanup_free_ char *masked = proc_masked_paths("/proc");
	if (!masked) {
		report(c, 2, "a new /proc cannot be mounted in a new pid namespace", NULL);
		return;
	}
	_cleanup_free_ char *what = xasprintf("this /proc has paths masked (%s), as containers do: "
	                                      "the kernel refuses jail a new /proc", masked);
	report(c, 2, what, PROC_MASKED_FIX);
}

static void check_namespaces(struct check *c)
{
	_cleanup_free_ char *root = state_root();
	struct jail_err e;
	if (mkdir_p(root, 0700, &e) < 0) {
		report(c, 2, e.msg, "make the state directory writable or set XDG_STATE_HOME");
		return;
	}
	_cleanup_free_ char *tmpl = xasprintf("%s/.doctor.XXXXXX", root);
	if (!mkdtemp(tmpl)) {
		report(c, 2, "cannot create a test directory in the state dir", NULL);
		return;
	}
	const char *sub[] = {"l", "u", "w", "m", "f", "p"};
	for (size_t i = 0; i < ARRAY_SIZE(sub); i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", tmpl, sub[i]);
		mkdir(p, 0700);
	}
	pid_t pid = fork();
	if (pid == 0)
		_exit(try_overlay(tmpl));
	int status = 0;
	waitpid(pid, &status, 0);
	int r = WIFEXITED(status) ? WEXITSTATUS(status) : 3;
	if (r == 1 || r >= 100) {
		_cleanup_free_ char *msg = xasprintf("cannot create an unprivileged user namespace: %s",
		                                     userns_blocker(r >= 100 ? r - 100 : EPERM));
		report(c, 2, msg, NULL);
	} else if (r == 2)
		report(c, 2, "overlayfs cannot be mounted in a user namespace on the state dir",
		       "put XDG_STATE_HOME on a local filesystem (ext4, xfs, btrfs, tmpfs)");
	else
		report(c, 0, "user namespace and overlayfs (userxattr) work", NULL);
	if (r == 5)
		report_proc(c);
	if (r == 3 || r == 4)
		report(c, 2, r == 3 ? "/dev/fuse cannot be opened: jail refuses to run, since ignored "
		                      "files could not be hidden for the whole run"
		                    : "FUSE cannot be mounted in a user namespace (Linux >= 4.18 "
		                      "and the fuse module are needed): jail refuses to run",
		       r == 3 ? "chmod 0666 /dev/fuse as root (Debian's udev default; scripts/setup "
		                "does it), or run jail with --hide-start-only"
		              : "load the fuse module (modprobe fuse), or run jail with "
		                "--hide-start-only");
	else if (r == 0)
		report(c, 0, "/dev/fuse mounts in a user namespace: ignored files stay hidden for "
		             "the whole run", NULL);
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		if (rm_rf_at(fd, strrchr(tmpl, '/') + 1, &e) < 0)
			report(c, 1, e.msg, "remove it by hand");
		close(fd);
	}
}

static void check_tools(struct check *c)
{
	static const char *const dirs[] = {"/usr/bin", "/bin", "/usr/local/bin"};
	static const char *const tools[][2] = {
		{"git", "install git: jail hides ignored files and exports patches with it"},
		{"pasta", "install passt (or slirp4netns) for --net allow/open"},
	};
	for (size_t t = 0; t < ARRAY_SIZE(tools); t++) {
		bool found = false;
		for (size_t d = 0; d < ARRAY_SIZE(dirs) && !found; d++) {
			_cleanup_free_ char *p = xasprintf("%s/%s", dirs[d], tools[t][0]);
			found = access(p, X_OK) == 0;
		}
		_cleanup_free_ char *msg = xasprintf("%s %s", tools[t][0], found ? "found" : "not found");
		report(c, found ? 0 : 1, msg, tools[t][1]);
	}
}

static void check_tun(struct check *c)
{
	if (access("/dev/net/tun", R_OK | W_OK) == 0)
		report(c, 0, "/dev/net/tun is usable (for --net allow/open)", NULL);
	else
		report(c, 1, "/dev/net/tun is not readable and writable by you: --net allow/open "
		             "cannot start pasta or slirp4netns",
		       "chmod 0666 /dev/net/tun (as root; scripts/setup does it)");
}

/* OpenSSL and nghttp2 are opened only when a secret is brokered (tlslib.h), libnftnl and
 * libmnl only with --net allow (nftlib.h): say now whether they would load, not at the
 * first run that needs them. */
static void check_tls(struct check *c)
{
	struct jail_err e = {0};
	if (tlslib_load(&e) == 0)
		report(c, 0, "OpenSSL loads (for brokered secrets)", NULL);
	else
		report(c, 1, e.msg, NULL);
	if (h2lib_load(&e) == 0)
		report(c, 0, "nghttp2 loads (for brokered hosts over HTTP/2)", NULL);
	else
		report(c, 1, e.msg, "without it brokered hosts are spoken to over HTTP/1.1 only");
	/* the same for the network filter's libraries (nftlib.h) */
	if (nftlib_load(&e) == 0)
		report(c, 0, "libnftnl and libmnl load (for --net allow)", NULL);
	else
		report(c, 1, e.msg, NULL);
}

static void check_cgroup(struct check *c)
{
	struct jail_err e = {0};
	if (limits_cgroup_delegated(&e) == 0) {
		report(c, 0, "cgroup v2 controllers delegated to you: for --memory/--pids/--cpus "
		             "run systemd-run --user --scope -p Delegate=yes jail ...", NULL);
		return;
	}
	_cleanup_free_ char *msg = xasprintf("no cgroup v2 delegation (%s): --memory and --pids "
	                                     "fall back to rlimits, --cpus is not enforced", e.msg);
	report(c, 1, msg, "a systemd host with cgroup v2 (systemd.unified_cgroup_hierarchy=1) "
	                  "delegates memory, pids and cpu to user@.service");
}

int cmd_doctor(struct cli *cl)
{
	struct check c = {0};
	check_kernel(&c);
	check_sysctls(&c);
	check_namespaces(&c);
	check_tools(&c);
	check_tun(&c);
	check_tls(&c);
	check_cgroup(&c);
	if (c.failed)
		printf("%d problem(s): jail cannot run here until they are fixed\n", c.failed);
	else
		printf("jail can run here%s\n", c.warned ? " (see the warnings)" : "");
	return c.failed ? EXIT_JAIL_FAIL : 0;
}
