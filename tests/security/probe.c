/* probe.c — the escape suite's attacker: run inside the jail, it tries one
 * thing and reports what happened.  Static, so it needs nothing from the
 * jail's root.
 *
 *   probe CASE [ARGS...]
 *
 * Exit status: 0 when the attempt succeeded, else the errno of the failing
 * syscall (a killed probe shows as 128+signal through jail).  Cases that read
 * something print it on stdout.  Usage errors exit 200.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define USAGE 200

static int err_or_ok(long r) { return r < 0 ? (errno ? errno : 255) : 0; }

/* One attack syscall by name.  Arguments are chosen so that, when the filter
 * lets the call through (--allow-syscall NAME), the kernel gives its own
 * answer, usually a different errno than the filter's EPERM. */
static long attack(const char *n)
{
	char buf[256] = {0};
	if (!strcmp(n, "keyctl")) return syscall(SYS_keyctl, 9999, 0, 0, 0, 0);
	if (!strcmp(n, "add_key")) return syscall(SYS_add_key, "user", "k", "v", 1, -4);
	if (!strcmp(n, "request_key")) return syscall(SYS_request_key, "user", "nokey", NULL, -4);
	if (!strcmp(n, "bpf")) return syscall(SYS_bpf, 9999, NULL, 0);
	if (!strcmp(n, "perf_event_open")) return syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0);
	if (!strcmp(n, "userfaultfd")) return syscall(SYS_userfaultfd, 1 | O_CLOEXEC);
	if (!strcmp(n, "io_uring_setup")) return syscall(SYS_io_uring_setup, 1, NULL);
	if (!strcmp(n, "io_uring_enter")) return syscall(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0);
	if (!strcmp(n, "io_uring_register")) return syscall(SYS_io_uring_register, -1, 0, NULL, 0);
	if (!strcmp(n, "kexec_load")) return syscall(SYS_kexec_load, 0, 0, NULL, 0);
	if (!strcmp(n, "kexec_file_load")) return syscall(SYS_kexec_file_load, -1, -1, 0, NULL, 0);
	if (!strcmp(n, "init_module")) return syscall(SYS_init_module, NULL, 0, "");
	if (!strcmp(n, "finit_module")) return syscall(SYS_finit_module, -1, "", 0);
	if (!strcmp(n, "delete_module")) return syscall(SYS_delete_module, "nosuchmod", 0);
	if (!strcmp(n, "mount")) return syscall(SYS_mount, "none", "/tmp", "tmpfs", 0, NULL);
	if (!strcmp(n, "mount_cgroup2")) return syscall(SYS_mount, "none", "/tmp", "cgroup2", 0, NULL);
	if (!strcmp(n, "umount2")) return syscall(SYS_umount2, "/proc", MNT_DETACH);
	if (!strcmp(n, "fsopen")) return syscall(SYS_fsopen, "tmpfs", 0);
	if (!strcmp(n, "fsconfig")) return syscall(SYS_fsconfig, -1, 0, NULL, NULL, 0);
	if (!strcmp(n, "fsmount")) return syscall(SYS_fsmount, -1, 0, 0);
	if (!strcmp(n, "fspick")) return syscall(SYS_fspick, AT_FDCWD, "/", 0);
	if (!strcmp(n, "move_mount")) return syscall(SYS_move_mount, -1, "", -1, "", 0);
	if (!strcmp(n, "open_tree")) return syscall(SYS_open_tree, AT_FDCWD, "/", 1 /* OPEN_TREE_CLONE */);
	if (!strcmp(n, "statfs")) return syscall(SYS_statfs, "/", buf);
	if (!strcmp(n, "open_tree_plain")) return syscall(SYS_open_tree, AT_FDCWD, "/", 0);
	if (!strcmp(n, "mount_setattr")) return syscall(SYS_mount_setattr, -1, "", 0, NULL, 0);
	if (!strcmp(n, "pivot_root")) return syscall(SYS_pivot_root, "/tmp", "/tmp");
	if (!strcmp(n, "chroot")) return syscall(SYS_chroot, "/tmp");
	if (!strcmp(n, "setns")) return syscall(SYS_setns, -1, 0);
	if (!strcmp(n, "open_by_handle_at")) return syscall(SYS_open_by_handle_at, -1, NULL, 0);
	if (!strcmp(n, "acct")) return syscall(SYS_acct, "/nonexistent");
	if (!strcmp(n, "swapon")) return syscall(SYS_swapon, "/nonexistent", 0);
	if (!strcmp(n, "swapoff")) return syscall(SYS_swapoff, "/nonexistent");
	if (!strcmp(n, "reboot")) return syscall(SYS_reboot, 0, 0, 0, NULL);
	if (!strcmp(n, "quotactl")) return syscall(SYS_quotactl, 0, NULL, 0, NULL);
	if (!strcmp(n, "syslog")) return syscall(SYS_syslog, 3 /* READ_ALL */, buf, sizeof(buf));
	if (!strcmp(n, "unshare_user")) return unshare(CLONE_NEWUSER);
	if (!strcmp(n, "unshare_net")) return unshare(CLONE_NEWNET);
	if (!strcmp(n, "unshare_ns")) return unshare(CLONE_NEWNS);
	if (!strcmp(n, "unshare_files")) return unshare(CLONE_FILES);
	if (!strcmp(n, "clone3")) return syscall(SYS_clone3, NULL, 0);
	if (!strcmp(n, "personality_norand")) return syscall(SYS_personality, ADDR_NO_RANDOMIZE);
	if (!strcmp(n, "personality_exec")) return syscall(SYS_personality, (1UL << 32) | READ_IMPLIES_EXEC);
	if (!strcmp(n, "personality_default")) return syscall(SYS_personality, 0);
	if (!strcmp(n, "personality_query")) return syscall(SYS_personality, 0xffffffffUL);
	if (!strcmp(n, "getpid")) return syscall(SYS_getpid);
	if (!strcmp(n, "io_setup")) {
		unsigned long ctx = 0;
		return syscall(SYS_io_setup, 1, &ctx);
	}
	errno = 0;
	exit(USAGE);
}

/* clone(2) with flags; the child exits at once. */
static int do_clone(unsigned long flags)
{
	long pid = syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return errno;
	waitpid((pid_t)pid, NULL, 0);
	return 0;
}

static int do_unshare(unsigned long flags)
{
	return syscall(SYS_unshare, flags) < 0 ? errno : 0;
}

static int do_personality(unsigned long value)
{
	return syscall(SYS_personality, value) < 0 ? errno : 0;
}

static int do_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));
	if (n < 0)
		return errno;
	fwrite(buf, 1, (size_t)n, stdout);
	return 0;
}

static int do_write(const char *path, const char *data, int flags)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags, 0644);
	if (fd < 0)
		return errno;
	if (write(fd, data, strlen(data)) < 0)
		return errno;
	return close(fd) < 0 ? errno : 0;
}

static int do_ls(const char *path, bool numeric_only)
{
	DIR *d = opendir(path);
	if (!d)
		return errno;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' && (!de->d_name[1] || !strcmp(de->d_name, "..")))
			continue;
		if (numeric_only && !strspn(de->d_name, "0123456789"))
			continue;
		if (!numeric_only || !de->d_name[strspn(de->d_name, "0123456789")])
			printf("%s\n", de->d_name);
	}
	closedir(d);
	return 0;
}

static int do_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return errno;
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && atoi(de->d_name) != dirfd(d))
			printf("%s\n", de->d_name);
	closedir(d);
	return 0;
}

static int do_status(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	if (!f)
		return errno;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Cap", 3) || !strncmp(line, "NoNewPrivs", 10) ||
		    !strncmp(line, "Seccomp:", 8))
			fputs(line, stdout);
	fclose(f);
	return 0;
}

/* TIOCSTI into fd 0 (a terminal), optionally with high bits in the request. */
static int do_tiocsti(bool high, const char *text)
{
	unsigned long req = TIOCSTI | (high ? 1UL << 32 : 0);
	for (const char *p = text; *p; p++)
		if (syscall(SYS_ioctl, 0, req, p) < 0)
			return errno;
	return 0;
}

static int do_tioclinux(void)
{
	char sub = 6; /* TIOCL_GETSHIFTSTATE: harmless if it ran */
	return err_or_ok(syscall(SYS_ioctl, 0, TIOCLINUX, &sub));
}

/* TIOCSETD on a pty pair of its own: line disciplines (n_hdlc, n_gsm, slip)
 * are kernel code a coding agent never needs, loaded on demand. */
static int do_tiocsetd(int disc)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0 || unlockpt(m) < 0)
		return 200;
	int s = open(ptsname(m), O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0)
		return 201;
	int r = err_or_ok(syscall(SYS_ioctl, s, TIOCSETD, &disc));
	close(s);
	close(m);
	return r;
}

static int do_fionread(void)
{
	int n;
	return err_or_ok(ioctl(0, FIONREAD, &n));
}

static int do_socket(long fam, long type, long proto)
{
	return err_or_ok(syscall(SYS_socket, fam, type | SOCK_CLOEXEC, proto));
}

static int do_socketpair(long fam, long type, long proto)
{
	int sv[2];
	return err_or_ok(syscall(SYS_socketpair, fam, type | SOCK_CLOEXEC, proto, sv));
}

/* sigqueue-many [SECONDS]: queue a blocked real-time signal to ourselves
 * until the kernel refuses; print how many (the user's pending-signal
 * count), then hold them SECONDS. */
static int do_sigqueue_many(int hold)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &set, NULL);
	union sigval v = {0};
	int n = 0, err = 0;
	for (; n < 10000000; n++)
		if (sigqueue(getpid(), SIGRTMIN, v) < 0) {
			err = errno;
			break;
		}
	printf("%d\n", n);
	fflush(stdout);
	if (hold > 0)
		sleep((unsigned)hold);
	return err;
}

/* key-exec NAME VALUE KEYRING CMD...: on the host, a fresh session keyring
 * (not the caller's) with the user keyring linked in, as a login's
 * (pam_keyinit), the user key NAME=VALUE in it (KEYRING s) or in the user
 * keyring (u), expiring in a minute either way, then exec CMD in it. */
static int do_key_exec(int argc, char **argv)
{
	if (argc < 6)
		return USAGE;
	if (syscall(SYS_keyctl, 1 /* KEYCTL_JOIN_SESSION_KEYRING */, NULL) < 0 ||
	    syscall(SYS_keyctl, 8 /* KEYCTL_LINK */, -4 /* @u */, -3 /* @s */) < 0)
		return errno;
	long ring = !strcmp(argv[4], "u") ? -4 /* @u */ : -3 /* @s */;
	long key = syscall(SYS_add_key, "user", argv[2], argv[3], strlen(argv[3]), ring);
	if (key < 0 || syscall(SYS_keyctl, 15 /* KEYCTL_SET_TIMEOUT */, key, 60) < 0)
		return errno;
	execvp(argv[5], argv + 5);
	return errno;
}

/* key-read NAME [request]: the user key NAME as the agent's keyrings find it
 * (keyctl search from the session keyring, or request_key), printed. */
static int do_key_read(const char *name, bool request)
{
	long key = request ? syscall(SYS_request_key, "user", name, NULL, 0)
	                   : syscall(SYS_keyctl, 10 /* KEYCTL_SEARCH */, -3, "user", name, 0);
	if (key < 0)
		return errno;
	char buf[256] = {0};
	long n = syscall(SYS_keyctl, 11 /* KEYCTL_READ */, key, buf, sizeof(buf) - 1);
	if (n < 0)
		return errno;
	printf("%s\n", buf);
	return 0;
}

static socklen_t abstract_addr(struct sockaddr_un *a, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	size_t n = strlen(name);
	if (n > sizeof(a->sun_path) - 2)
		n = sizeof(a->sun_path) - 2;
	memcpy(a->sun_path + 1, name, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static int do_connect_unix(const char *name, bool abstract)
{
	struct sockaddr_un a;
	socklen_t len = abstract_addr(&a, name);
	if (!abstract) {
		memset(a.sun_path, 0, sizeof(a.sun_path));
		snprintf(a.sun_path, sizeof(a.sun_path), "%s", name);
		len = sizeof(a);
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, len) < 0)
		return errno;
	if (write(fd, "escaped\n", 8) < 0)
		return errno;
	return 0;
}

/* The positive control for abstract sockets: one of our own is reachable. */
static int do_abstract_self(const char *name)
{
	struct sockaddr_un a;
	socklen_t len = abstract_addr(&a, name);
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, len) < 0 || listen(l, 1) < 0)
		return errno;
	return do_connect_unix(name, true);
}

/* Host side canary: listen on a unix socket (abstract when the name starts
 * with '@') for SECONDS and print one line per connection that came. */
static int do_listen(const char *name, int seconds)
{
	struct sockaddr_un a;
	socklen_t len;
	if (name[0] == '@') {
		len = abstract_addr(&a, name + 1);
	} else {
		memset(&a, 0, sizeof(a));
		a.sun_family = AF_UNIX;
		snprintf(a.sun_path, sizeof(a.sun_path), "%s", name);
		len = sizeof(a);
	}
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, len) < 0 || listen(l, 8) < 0)
		return errno;
	printf("listening\n");
	fflush(stdout);
	for (int i = 0; i < seconds * 10; i++) {
		int c = accept(l, NULL, NULL);
		if (c >= 0) {
			printf("connection\n");
			fflush(stdout);
			close(c);
		}
		usleep(100000);
	}
	return 0;
}

static socklen_t path_addr(struct sockaddr_un *a, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	snprintf(a->sun_path, sizeof(a->sun_path), "%s", name);
	return sizeof(*a);
}

/* Host side canary: a datagram socket bound at PATH (a journald- or
 * syslog-style server) for SECONDS; one line per datagram that came. */
static int do_dgram_bind(const char *name, int seconds)
{
	struct sockaddr_un a;
	socklen_t len = path_addr(&a, name);
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&a, len) < 0)
		return errno;
	printf("bound\n");
	fflush(stdout);
	char buf[64];
	for (int i = 0; i < seconds * 10; i++) {
		if (recv(s, buf, sizeof(buf), 0) >= 0) {
			printf("datagram\n");
			fflush(stdout);
		}
		usleep(100000);
	}
	return 0;
}

/* sendto-unix PATH: one datagram to a socket by its path. */
static int do_sendto_unix(const char *name)
{
	struct sockaddr_un a;
	socklen_t len = path_addr(&a, name);
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || sendto(s, "escaped\n", 8, 0, (struct sockaddr *)&a, len) < 0)
		return errno;
	return 0;
}

/* write-fifo PATH: open a named FIFO for writing without waiting (ENXIO
 * when no one reads it) and write a line to the reader. */
static int do_write_fifo(const char *path)
{
	int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || write(fd, "escaped\n", 8) < 0)
		return errno;
	return 0;
}

/* forkbomb [MAX]: fork until refused (or MAX children); print how many. */
static int do_forkbomb(int max)
{
	int n = 0, err = 0;
	for (; n < max; n++) {
		pid_t pid = fork();
		if (pid == 0) {
			pause();
			_exit(0);
		}
		if (pid < 0) {
			err = errno;
			break;
		}
	}
	printf("%d\n", n);
	fflush(stdout);
	return err;
}

static int do_memhog(long mb)
{
	long got = 0;
	for (; got < mb; got++) {
		char *p = malloc(1 << 20);
		if (!p)
			break;
		memset(p, 1, 1 << 20);
	}
	printf("%ld\n", got);
	return got < mb ? ENOMEM : 0;
}

/* getpid through the i386 entry point: survives only if the filter allows it. */
static int do_int80(void)
{
	long r;
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
	return r < 0 ? (int)-r : 0;
}

static int do_ptrace_child(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	int r = err_or_ok(ptrace(PTRACE_SEIZE, pid, NULL, NULL));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return r;
}

static int do_ptrace(pid_t pid)
{
	return err_or_ok(ptrace(PTRACE_SEIZE, pid, NULL, NULL));
}

/* A well-formed v2 file capability with every capability permitted and
 * effective: the kernel accepts the value, so only the privilege check can
 * refuse it. */
static int do_setcap(const char *path)
{
	struct {
		unsigned magic_etc;
		struct { unsigned permitted, inheritable; } data[2];
	} cap = {0x02000000 | 1, {{~0u, 0}, {~0u, 0}}};
	return err_or_ok(setxattr(path, "security.capability", &cap, sizeof(cap), 0));
}

/* Open inotify instances (or ptys) until the kernel refuses: print how many,
 * exit with the refusal's errno. */
static int do_many(bool ptys)
{
	int n = 0, err = 0;
	for (; n < 100000; n++) {
		int fd = ptys ? open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
		              : (int)syscall(SYS_inotify_init1, O_CLOEXEC);
		if (fd < 0) {
			err = errno;
			break;
		}
	}
	printf("%d\n", n);
	return err;
}


/* Is `path`'s content `want` (a host edit of a file visible since start)? */
static bool file_says(const char *path, const char *want)
{
	char buf[64] = {0};
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 && !strncmp(buf, want, strlen(want));
}

/* Report a name of `names` that a listing of `path`'s parent shows. */
static int hunt_list(const char *path)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	const char *base = slash ? slash + 1 : path;
	if (slash)
		*slash = '\0';
	DIR *d = opendir(slash ? dir : ".");
	if (!d)
		return 0;
	int found = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (!strcmp(de->d_name, base))
			found = 1;
	closedir(d);
	if (found)
		printf("LISTED %s\n", path);
	return found;
}

/* hunt GOFILE PATH...: print "ready", then open and list each PATH in a tight
 * loop until GOFILE says "go" (one more round after that).  Every open that
 * succeeds is a leak: "LEAK PATH: content".  Exit 0 when nothing leaked. */
static int do_hunt(int argc, char **argv)
{
	int leaks = 0, last = 0;
	time_t start = time(NULL);
	printf("ready\n");
	fflush(stdout);
	for (unsigned long round = 0; !last; round++) {
		last = file_says(argv[2], "go");
		for (int i = 3; i < argc; i++) {
			int fd = open(argv[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
			if (fd >= 0) {
				char buf[256] = {0};
				ssize_t n = read(fd, buf, sizeof(buf) - 1);
				close(fd);
				printf("LEAK %s: %s\n", argv[i], n > 0 ? buf : "");
				leaks++;
			}
			if ((round % 16 == 0 || last) && hunt_list(argv[i]))
				leaks++;
		}
		fflush(stdout);
		if (round % 1024 == 0 && time(NULL) - start > 120)
			return ETIMEDOUT;
	}
	return leaks ? 1 : 0;
}

/* pdeath MS: ask for SIGUSR1 at the parent's death (PR_SET_PDEATHSIG), first
 * thing, then wait MS milliseconds: "fired" if it came (the parent, the
 * thread that started us, went away meanwhile), else "quiet". */
static volatile sig_atomic_t pdeath_fired;
static void on_pdeath(int sig) { (void)sig; pdeath_fired = 1; }
static int do_pdeath(long ms)
{
	signal(SIGUSR1, on_pdeath);
	if (prctl(PR_SET_PDEATHSIG, SIGUSR1, 0, 0, 0) < 0)
		return errno;
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
	printf("%s\n", pdeath_fired ? "fired" : "quiet");
	return 0;
}

/* seccomp-fill ROOM CMD...: on the host, set no_new_privs and load allow-all
 * filters, the largest that still fit, until one of ROOM instructions does
 * not (the kernel's bound on a task's filters, 32768 instructions as it
 * counts them), then exec CMD: any filter of ROOM instructions or more
 * loaded in CMD or its children fails (ENOMEM). */
static int do_seccomp_fill(int argc, char **argv)
{
	enum { FILTER_MAX = 4096 };
	long room = argc > 3 ? atol(argv[2]) : 0;
	if (room < 1 || room > FILTER_MAX)
		return USAGE;
	static struct sock_filter insns[FILTER_MAX];
	for (size_t i = 0; i < FILTER_MAX; i++)
		insns[i] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return errno;
	for (long n = FILTER_MAX;;) {
		insns[n - 1] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		struct sock_fprog prog = {.len = (unsigned short)n, .filter = insns};
		long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
		insns[n - 1] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0);
		if (r == 0)
			continue;
		if (errno != ENOMEM)
			return errno;
		if (n == room)
			break;
		n = n / 2 > room ? n / 2 : room;
	}
	execvp(argv[3], argv + 3);
	return errno;
}

static int more(int argc, char **argv)
{
	const char *c = argv[1], *a = argc > 2 ? argv[2] : "", *b = argc > 3 ? argv[3] : "";
	if (!strcmp(c, "kill")) return err_or_ok(kill(atoi(a), argc > 3 ? atoi(b) : 0));
	if (!strcmp(c, "ptrace")) return do_ptrace(atoi(a));
	if (!strcmp(c, "ptrace-child")) return do_ptrace_child();
	if (!strcmp(c, "pdeath")) return do_pdeath(atol(a));
	if (!strcmp(c, "seccomp-fill")) return do_seccomp_fill(argc, argv);
	if (!strcmp(c, "ifflags")) { /* ifflags NAME: the interface's flags (IFF_UP is 0x1) */
		struct ifreq ifr = {0};
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", a);
		int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
			return errno;
		return printf("%#x\n", (unsigned)(unsigned short)ifr.ifr_flags), 0;
	}
	if (!strcmp(c, "securebits")) {
		int bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
		return bits < 0 ? errno : (printf("%#x\n", bits), 0);
	}
	if (!strcmp(c, "tiocsti")) return do_tiocsti(false, a);
	if (!strcmp(c, "tiocsti-high")) return do_tiocsti(true, a);
	if (!strcmp(c, "tioclinux")) return do_tioclinux();
	if (!strcmp(c, "fionread")) return do_fionread();
	if (!strcmp(c, "tiocsetd")) return do_tiocsetd(atoi(a));
	if (!strcmp(c, "socket")) return do_socket(strtol(a, NULL, 0), strtol(b, NULL, 0),
	                                            argc > 4 ? strtol(argv[4], NULL, 0) : 0);
	if (!strcmp(c, "socketpair")) return do_socketpair(strtol(a, NULL, 0), strtol(b, NULL, 0),
	                                                    argc > 4 ? strtol(argv[4], NULL, 0) : 0);
	if (!strcmp(c, "key-exec")) return do_key_exec(argc, argv);
	if (!strcmp(c, "sigqueue-many")) return do_sigqueue_many(atoi(a));
	if (!strcmp(c, "key-read")) return do_key_read(a, !strcmp(b, "request"));
	if (!strcmp(c, "connect-abstract")) return do_connect_unix(a, true);
	if (!strcmp(c, "connect-unix")) return do_connect_unix(a, false);
	if (!strcmp(c, "abstract-self")) return do_abstract_self(a);
	if (!strcmp(c, "shmget")) return err_or_ok(shmget((key_t)strtol(a, NULL, 0), 0, 0));
	if (!strcmp(c, "shm-make")) return err_or_ok(shmget((key_t)strtol(a, NULL, 0), 4096, IPC_CREAT | 0666));
	if (!strcmp(c, "listen")) return do_listen(a, atoi(b));
	if (!strcmp(c, "dgram-bind")) return do_dgram_bind(a, atoi(b));
	if (!strcmp(c, "sendto-unix")) return do_sendto_unix(a);
	if (!strcmp(c, "write-fifo")) return do_write_fifo(a);
	if (!strcmp(c, "shm-self")) return err_or_ok(shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600));
	if (!strcmp(c, "forkbomb")) return do_forkbomb(argc > 2 ? atoi(a) : 100000);
	if (!strcmp(c, "memhog")) return do_memhog(atol(a));
	if (!strcmp(c, "int80")) return do_int80();
	if (!strcmp(c, "x32")) return err_or_ok(syscall(0x40000000L | 39));
	if (!strcmp(c, "inotify-many")) return do_many(false);
	if (!strcmp(c, "ptmx-many")) return do_many(true);
	if (!strcmp(c, "setcap")) return do_setcap(a);
	if (!strcmp(c, "setxattr")) return err_or_ok(setxattr(a, b, "y", 1, 0));
	if (!strcmp(c, "chmod")) return err_or_ok(chmod(a, (mode_t)strtol(b, NULL, 8)));
	if (!strcmp(c, "sleep")) return sleep((unsigned)atoi(a)), 0;
	if (!strcmp(c, "chdir")) return err_or_ok(chdir(a)) ?: do_ls(".", false);
	if (!strcmp(c, "remount")) return err_or_ok(mount(NULL, a, NULL, MS_REMOUNT | MS_BIND, NULL));
	if (!strcmp(c, "hunt") && argc > 3) return do_hunt(argc, argv);
	if (!strcmp(c, "env")) return printf("%s\n", getenv(a) ? getenv(a) : ""), 0;
	return USAGE;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: probe CASE [ARGS...]\n");
		return USAGE;
	}
	const char *c = argv[1], *a = argc > 2 ? argv[2] : "", *b = argc > 3 ? argv[3] : "";
	errno = 0;
	if (!strcmp(c, "sys")) return err_or_ok(attack(a));
	if (!strcmp(c, "clone")) return do_clone(strtoul(a, NULL, 0));
	if (!strcmp(c, "unshare")) return do_unshare(strtoul(a, NULL, 0));
	if (!strcmp(c, "personality")) return do_personality(strtoul(a, NULL, 0));
	if (!strcmp(c, "read")) return do_read(a);
	if (!strcmp(c, "write")) return do_write(a, b, O_TRUNC);
	if (!strcmp(c, "create")) return do_write(a, b, O_CREAT | O_EXCL);
	if (!strcmp(c, "ls")) return do_ls(a, false);
	if (!strcmp(c, "pids")) return do_ls("/proc", true);
	if (!strcmp(c, "fds")) return do_fds();
	if (!strcmp(c, "status")) return do_status();
	return more(argc, argv);
}
