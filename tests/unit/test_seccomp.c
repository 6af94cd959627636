/* Unit tests: sysfilter.c — the filter is loaded in a forked child, which runs
 * one syscall and exits with its errno (0 on success); a signal shows as
 * 128+N.  Every refusal has a harmless call of the same kind that still works. */
#include "t.h"
#include "config.h"
#include "sysfilter.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

typedef long (*attempt_fn)(void);

/* The id tests: the child maps its own uid and gid in its user namespace, as
 * jail does, so that other ids are unmapped (EINVAL from the kernel). */
static bool map_own_ids;
static bool no_filter; /* the control: the kernel's answer without the filter */

static int write_self(const char *file, const char *text)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/%s", file);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int map_ids(uid_t uid, gid_t gid)
{
	char map[64];
	if (write_self("setgroups", "deny") < 0)
		return -1;
	snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	if (write_self("uid_map", map) < 0)
		return -1;
	snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
	return write_self("gid_map", map);
}

/* The child's status: errno of the attempt, 0 when it succeeded, 128+sig. */
static int in_filter(const struct jail_config *cfg, attempt_fn fn)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		struct jail_err e = {0};
		uid_t uid = geteuid();
		gid_t gid = getegid();
		/* Contain the attempts first: unit tests run as root in CI, and a filter
		 * that failed to refuse must not mount over the host's / (it once did). */
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC) < 0) {
			perror("unshare before the filter");
			_exit(252);
		}
		if (map_own_ids && map_ids(uid, gid) < 0) {
			perror("map the ids");
			_exit(251);
		}
		if (!no_filter && seccomp_install(cfg, &e) < 0) {
			fprintf(stderr, "seccomp_install: %s\n", e.msg);
			_exit(254);
		}
		errno = 0;
		long r = fn();
		_exit(r < 0 ? (errno ? errno : 253) : 0);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int run(attempt_fn fn)
{
	struct jail_config cfg;
	config_init(&cfg);
	int r = in_filter(&cfg, fn);
	config_free(&cfg);
	return r;
}

static long do_keyctl(void) { return syscall(SYS_keyctl, 9999, 0, 0, 0, 0); }
static long do_getpid(void) { return syscall(SYS_getpid); }
static long do_unshare_user(void) { return unshare(CLONE_NEWUSER); }
static long do_unshare_net(void) { return unshare(CLONE_NEWNET); }
static long do_unshare_files(void) { return unshare(CLONE_FILES); }
static long do_clone3(void) { return syscall(SYS_clone3, NULL, 0); }

static long do_clone_flags(unsigned long flags)
{
	long pid = syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	return pid < 0 ? -1 : 0;
}
static long do_clone_user(void) { return do_clone_flags(CLONE_NEWUSER); }
static long do_clone_plain(void) { return do_clone_flags(0); }

static long do_tiocsti(void)
{
	char c = 'x';
	return syscall(SYS_ioctl, 0, TIOCSTI, &c);
}
static long do_tiocsti_high(void)
{
	char c = 'x';
	return syscall(SYS_ioctl, 0, (1UL << 32) | TIOCSTI, &c);
}
static long do_tioclinux(void)
{
	char c = 6;
	return syscall(SYS_ioctl, 0, (1UL << 32) | TIOCLINUX, &c);
}
static long do_fionread(void)
{
	int p[2], n;
	if (pipe(p) < 0)
		return -1;
	return ioctl(p[0], FIONREAD, &n);
}

static long do_sock(long fam, long proto)
{
	long fd = syscall(SYS_socket, fam, SOCK_DGRAM | SOCK_CLOEXEC, proto);
	return fd < 0 ? -1 : 0;
}
static long do_sock_unix(void) { return do_sock(AF_UNIX, 0); }
static long do_sock_inet6(void) { return do_sock(AF_INET6, 0); }
static long do_sock_packet(void) { return do_sock(AF_PACKET, 0); }
static long do_sock_alg(void) { return do_sock(AF_ALG, 0); }
static long do_sock_unix_high(void) { return do_sock((1L << 32) | AF_UNIX, 0); }
static long do_sock_nl_route(void) { return do_sock(AF_NETLINK, NETLINK_ROUTE); }
static long do_sock_nl_audit(void) { return do_sock(AF_NETLINK, NETLINK_AUDIT); }

static long do_inet(long fam, long type, long proto)
{
	long fd = syscall(SYS_socket, fam, type, proto);
	return fd < 0 ? -1 : 0;
}
static long do_tcp(void) { return do_inet(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0); }
static long do_udp6(void) { return do_inet(AF_INET6, SOCK_DGRAM, IPPROTO_UDP); }
static long do_mptcp(void) { return do_inet(AF_INET, SOCK_STREAM, 262); }
static long do_udplite(void) { return do_inet(AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE); }
static long do_sctp6(void) { return do_inet(AF_INET6, SOCK_STREAM, IPPROTO_SCTP); }
static long do_seqpacket(void) { return do_inet(AF_INET, SOCK_SEQPACKET, 0); }
static long do_dccp(void) { return do_inet(AF_INET, 6 /* SOCK_DCCP */, 0); }
static long do_udplite_high(void) { return do_inet(AF_INET, SOCK_DGRAM, (1L << 32) | IPPROTO_UDPLITE); }
static long do_inet_high(void) { return do_inet((1L << 32) | AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE); }

/* socketpair makes its sockets as socket does: the same rules */
static long do_pair(long fam, long type, long proto)
{
	int sv[2];
	long r = syscall(SYS_socketpair, fam, type | SOCK_CLOEXEC, proto, sv);
	return r < 0 ? -1 : 0;
}
static long do_pair_unix(void) { return do_pair(AF_UNIX, SOCK_STREAM, 0); }
static long do_pair_vsock(void) { return do_pair(40 /* AF_VSOCK */, SOCK_STREAM, 0); }
static long do_pair_alg(void) { return do_pair(AF_ALG, SOCK_SEQPACKET, 0); }
static long do_pair_udplite(void) { return do_pair(AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE); }
static long do_pair_nl_audit(void) { return do_pair(AF_NETLINK, SOCK_DGRAM, NETLINK_AUDIT); }
static long do_pair_high(void) { return do_pair((1L << 32) | 40, SOCK_STREAM, 0); }

/* SysV IPC: memory of the namespace, not of a process */
static long do_semget(long n) { return syscall(SYS_semget, IPC_PRIVATE, n, 0600); }
static long do_sem_32(void) { return do_semget(32); }
static long do_sem_33(void) { return do_semget(33); }
static long do_sem_high(void) { return do_semget((1L << 32) | 32000); }
static long do_sem_max(void) { return do_semget(32000); }
static long do_msgget(void) { return syscall(SYS_msgget, IPC_PRIVATE, 0600); }
static long do_io_setup(void)
{
	unsigned long ctx = 0;
	return syscall(SYS_io_setup, 1, &ctx);
}

static long do_pers_query(void) { return syscall(SYS_personality, 0xffffffffUL); }
static long do_pers_default(void) { return syscall(SYS_personality, 0UL); }
static long do_pers_norand(void) { return syscall(SYS_personality, ADDR_NO_RANDOMIZE); }
static long do_pers_high(void) { return syscall(SYS_personality, 1UL << 32); }
static long do_pers_top(void) { return syscall(SYS_personality, 0x80040000UL); }
static long do_pers_almost(void) { return syscall(SYS_personality, 0xfffffffeUL); }
static long do_pers_linux32(void) { return syscall(SYS_personality, PER_LINUX32); }

static long do_mount(void) { return syscall(SYS_mount, "none", "/tmp", "tmpfs", 0, NULL); }
static long do_fsopen(void) { return syscall(SYS_fsopen, "tmpfs", 0); }
static long do_open_tree(void) { return syscall(SYS_open_tree, AT_FDCWD, "/", 0); }
static long do_open_tree_attr(void) { return syscall(467, AT_FDCWD, "/", 0, NULL, 0); }
static long do_bpf(void) { return syscall(SYS_bpf, 0, NULL, 0); }
static long do_io_uring(void) { return syscall(SYS_io_uring_setup, 1, NULL); }
static long do_userfaultfd(void) { return syscall(SYS_userfaultfd, 0); }
static long do_setns(void) { return syscall(SYS_setns, -1, 0); }

static long do_int80(void)
{
	long r;
	/* i386 getpid (20) through the 32-bit entry point */
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
	return r;
}
static long do_x32(void) { return syscall(0x40000000L | 39); /* x32 getpid */ }

T(refused_syscalls_eperm_harmless_calls_work)
{
	CHECK_INT(run(do_getpid), 0);
	CHECK_INT(run(do_keyctl), EPERM);
	CHECK_INT(run(do_bpf), EPERM);
	CHECK_INT(run(do_io_uring), EPERM);
	CHECK_INT(run(do_userfaultfd), EPERM);
	CHECK_INT(run(do_setns), EPERM);
	CHECK_INT(run(do_mount), EPERM);
	CHECK_INT(run(do_fsopen), EPERM);
	CHECK_INT(run(do_open_tree), EPERM);
	CHECK_INT(run(do_open_tree_attr), EPERM);
}

T(namespaces_refused_clone3_enosys)
{
	CHECK_INT(run(do_unshare_user), EPERM);
	CHECK_INT(run(do_unshare_net), EPERM);
	CHECK_INT(run(do_unshare_files), 0);
	CHECK_INT(run(do_clone_user), EPERM);
	CHECK_INT(run(do_clone_plain), 0);
	CHECK_INT(run(do_clone3), ENOSYS);
}

T(tiocsti_tioclinux_refused_with_high_bits)
{
	CHECK_INT(run(do_tiocsti), EPERM);
	CHECK_INT(run(do_tiocsti_high), EPERM);
	CHECK_INT(run(do_tioclinux), EPERM);
	CHECK_INT(run(do_fionread), 0);
}

T(socket_families)
{
	CHECK_INT(run(do_sock_unix), 0);
	CHECK_INT(run(do_sock_inet6), 0);
	CHECK_INT(run(do_sock_nl_route), 0);
	CHECK_INT(run(do_sock_packet), EPERM);
	CHECK_INT(run(do_sock_alg), EPERM);
	CHECK_INT(run(do_sock_unix_high), EPERM);
	CHECK_INT(run(do_sock_nl_audit), EPERM);
}

T(inet_sockets_tcp_udp_icmp_mptcp_only)
{
	CHECK_INT(run(do_tcp), 0);
	CHECK_INT(run(do_udp6), 0);
	CHECK_INT(run(do_udplite), EPERM);
	CHECK_INT(run(do_sctp6), EPERM);
	CHECK_INT(run(do_seqpacket), EPERM);
	CHECK_INT(run(do_dccp), EPERM);
	CHECK_INT(run(do_udplite_high), EPERM);
	CHECK_INT(run(do_inet_high), EPERM);
	int mptcp = run(do_mptcp);
	CHECK(mptcp != EPERM);  /* 0, or the kernel's own EPROTONOSUPPORT */
}

T(socketpair_families_as_socket)
{
	CHECK_INT(run(do_pair_unix), 0);
	CHECK_INT(run(do_pair_vsock), EPERM);
	CHECK_INT(run(do_pair_alg), EPERM);
	CHECK_INT(run(do_pair_udplite), EPERM);
	CHECK_INT(run(do_pair_nl_audit), EPERM);
	CHECK_INT(run(do_pair_high), EPERM);
	/* allowed back, socketpair alone: the kernel's own answer there, and
	 * socket(2) keeps its rules */
	struct jail_config cfg;
	config_init(&cfg);
	strv_push(&cfg.syscalls_allow, "socketpair");
	int r = in_filter(&cfg, do_pair_vsock);
	CHECK(r != EPERM && r != 254); /* EOPNOTSUPP, or EAFNOSUPPORT without vsock */
	CHECK_INT(in_filter(&cfg, do_udplite), EPERM);
	CHECK_INT(in_filter(&cfg, do_sock_alg), EPERM);
	config_free(&cfg);
}

T(sysv_semaphore_sets_bounded_message_queues_refused)
{
	CHECK_INT(run(do_sem_32), 0);
	CHECK_INT(run(do_sem_33), EINVAL);
	CHECK_INT(run(do_sem_max), EINVAL);
	CHECK_INT(run(do_sem_high), EINVAL);
	CHECK_INT(run(do_msgget), EPERM);
	struct jail_config cfg;
	config_init(&cfg);
	strv_push(&cfg.syscalls_allow, "semget");
	strv_push(&cfg.syscalls_allow, "msgget");
	CHECK_INT(in_filter(&cfg, do_sem_max), 0);
	CHECK_INT(in_filter(&cfg, do_msgget), 0);
	config_free(&cfg);
}

/* legacy AIO draws on one host-wide count: absent, as without CONFIG_AIO */
T(aio_enosys)
{
	CHECK_INT(run(do_io_setup), ENOSYS);
	struct jail_config cfg;
	config_init(&cfg);
	strv_push(&cfg.syscalls_allow, "io_setup");
	CHECK_INT(in_filter(&cfg, do_io_setup), 0);
	config_free(&cfg);
}

T(personality_default_only)
{
	CHECK_INT(run(do_pers_query), 0);
	CHECK_INT(run(do_pers_default), 0);
	CHECK_INT(run(do_pers_norand), EPERM);
	CHECK_INT(run(do_pers_high), EPERM);
	CHECK_INT(run(do_pers_top), EPERM);
	CHECK_INT(run(do_pers_almost), EPERM);
	CHECK_INT(run(do_pers_linux32), EPERM);
}

/* The host's answer to an i386 getpid through int 0x80, without any filter:
 * 0 when the kernel serves the entry (it returns our pid), 128+SIGSEGV when it
 * does not (no IA32 emulation, or ia32_emulation=0), anything else is odd. */
static int host_int80(void)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(do_int80() == getpid() ? 0 : 1);
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* seccomp sees the x32 bit before the kernel looks for an x32 table: the same
 * answer whatever the host. */
T(foreign_abi_x32_killed)
{
	CHECK_INT(run(do_x32), 128 + SIGSYS);
}

/* The i386 entry: a kernel that does not serve it faults before seccomp runs,
 * so there is nothing to test there.  Where it is served the filter must kill
 * it: a filter that let it through would exit 0, as the control does. */
T(foreign_abi_i386_killed)
{
	int host = host_int80();
	if (host == 128 + SIGSEGV)
		T_SKIP("this kernel does not serve int 0x80 (SIGSEGV without a filter)");
	CHECK_INT(host, 0); /* positive control: the i386 getpid works here */
	CHECK_INT(run(do_int80), 128 + SIGSYS);
}

T(policy_allows_a_syscall_back)
{
	struct jail_config cfg;
	config_init(&cfg);
	strv_push(&cfg.syscalls_allow, "keyctl");
	int r = in_filter(&cfg, do_keyctl);
	CHECK(r != EPERM && r != 254); /* the kernel's own answer (EOPNOTSUPP) */
	CHECK_INT(in_filter(&cfg, do_bpf), EPERM);
	config_free(&cfg);
}

T(unknown_allowed_name_is_an_error)
{
	struct jail_config cfg;
	config_init(&cfg);
	strv_push(&cfg.syscalls_allow, "kexec_everything\x1b");
	struct jail_err e = {0};
	CHECK_INT(seccomp_install(&cfg, &e), -1);
	CHECK(strstr(e.msg, "kexec_everything\\x1b") != NULL);
	config_free(&cfg);
}

/* The id calls: own id and -1 reach the kernel, another id is EPERM. */
static char id_file[64];
static uid_t own_uid, other_uid;
static gid_t own_gid, other_gid;
#define NEG1 0xffffffffUL
#define NEG1_64 (~0UL) /* Go's spelling of -1 */

static long do_chown_own(void) { return syscall(SYS_chown, id_file, own_uid, own_gid); }
static long do_chown_neg1(void) { return syscall(SYS_chown, id_file, NEG1, NEG1); }
static long do_chown_neg1_64(void) { return syscall(SYS_chown, id_file, NEG1_64, NEG1_64); }
static long do_chown_other_uid(void) { return syscall(SYS_chown, id_file, other_uid, NEG1); }
static long do_chown_other_gid(void) { return syscall(SYS_chown, id_file, NEG1, other_gid); }
static long do_chown_own_other(void) { return syscall(SYS_chown, id_file, own_uid, other_gid); }
static long do_lchown_own(void) { return syscall(SYS_lchown, id_file, own_uid, NEG1); }
static long do_lchown_other(void) { return syscall(SYS_lchown, id_file, NEG1, other_gid); }
static long do_fchown(unsigned long u, unsigned long g)
{
	int fd = open(id_file, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -1 : syscall(SYS_fchown, fd, u, g);
}
static long do_fchown_own(void) { return do_fchown(own_uid, own_gid); }
static long do_fchown_other(void) { return do_fchown(other_uid, own_gid); }
static long do_fchown_high_own(void) { return do_fchown((1UL << 32) | own_uid, NEG1); }
static long do_fchown_high_other(void) { return do_fchown((1UL << 32) | other_uid, NEG1); }
static long do_fchownat_own(void)
{
	return syscall(SYS_fchownat, AT_FDCWD, id_file, own_uid, NEG1, 0);
}
static long do_fchownat_other_uid(void)
{
	return syscall(SYS_fchownat, AT_FDCWD, id_file, other_uid, NEG1, 0);
}
static long do_fchownat_other_gid(void)
{
	return syscall(SYS_fchownat, AT_FDCWD, id_file, NEG1, other_gid, AT_SYMLINK_NOFOLLOW);
}

static long do_setuid_own(void) { return syscall(SYS_setuid, own_uid); }
static long do_setuid_other(void) { return syscall(SYS_setuid, other_uid); }
static long do_setuid_neg1(void) { return syscall(SYS_setuid, NEG1); }
static long do_setgid_own(void) { return syscall(SYS_setgid, own_gid); }
static long do_setgid_other(void) { return syscall(SYS_setgid, other_gid); }
static long do_setreuid_own(void) { return syscall(SYS_setreuid, NEG1, own_uid); }
static long do_setreuid_other_r(void) { return syscall(SYS_setreuid, other_uid, NEG1); }
static long do_setreuid_other_e(void) { return syscall(SYS_setreuid, NEG1_64, other_uid); }
static long do_setregid_own(void) { return syscall(SYS_setregid, own_gid, NEG1); }
static long do_setregid_other(void) { return syscall(SYS_setregid, own_gid, other_gid); }
static long do_setresuid_own(void) { return syscall(SYS_setresuid, own_uid, NEG1, own_uid); }
static long do_setresuid_other(void) { return syscall(SYS_setresuid, NEG1, NEG1, other_uid); }
static long do_setresgid_own(void) { return syscall(SYS_setresgid, NEG1, own_gid, NEG1); }
static long do_setresgid_other(void) { return syscall(SYS_setresgid, other_gid, NEG1, NEG1); }
static long do_setgroups(void) { return syscall(SYS_setgroups, 0, NULL); }
static long do_setfsuid_other(void)
{
	/* never fails: returns the old fsuid, which stays */
	syscall(SYS_setfsuid, other_uid);
	return (uid_t)syscall(SYS_setfsuid, NEG1) == own_uid ? 0 : -1;
}

static void ids_setup(void)
{
	snprintf(id_file, sizeof(id_file), "/tmp/jail-unit-ids-XXXXXX");
	int fd = mkstemp(id_file);
	if (fd >= 0)
		close(fd);
	own_uid = geteuid(), own_gid = getegid();
	other_uid = own_uid + 1, other_gid = own_gid + 1;
	map_own_ids = true;
}

T(id_calls_eperm_for_other_ids_as_on_the_host)
{
	ids_setup();
	/* the premise: without the filter the kernel says EINVAL for other ids */
	no_filter = true;
	CHECK_INT(run(do_chown_other_uid), EINVAL);
	CHECK_INT(run(do_setuid_other), EINVAL);
	no_filter = false;

	CHECK_INT(run(do_chown_own), 0);
	CHECK_INT(run(do_chown_neg1), 0);
	CHECK_INT(run(do_chown_neg1_64), 0);
	CHECK_INT(run(do_chown_other_uid), EPERM);
	CHECK_INT(run(do_chown_other_gid), EPERM);
	CHECK_INT(run(do_chown_own_other), EPERM);
	CHECK_INT(run(do_lchown_own), 0);
	CHECK_INT(run(do_lchown_other), EPERM);
	CHECK_INT(run(do_fchown_own), 0);
	CHECK_INT(run(do_fchown_other), EPERM);
	CHECK_INT(run(do_fchown_high_own), 0); /* the kernel reads 32 bits */
	CHECK_INT(run(do_fchown_high_other), EPERM);
	CHECK_INT(run(do_fchownat_own), 0);
	CHECK_INT(run(do_fchownat_other_uid), EPERM);
	CHECK_INT(run(do_fchownat_other_gid), EPERM);
	unlink(id_file);
	map_own_ids = false;
}

T(set_id_calls_eperm_for_other_ids_as_on_the_host)
{
	ids_setup();
	CHECK_INT(run(do_setuid_own), 0);
	CHECK_INT(run(do_setuid_other), EPERM);
	CHECK_INT(run(do_setuid_neg1), EINVAL); /* as on the host: -1 is no uid */
	CHECK_INT(run(do_setgid_own), 0);
	CHECK_INT(run(do_setgid_other), EPERM);
	CHECK_INT(run(do_setreuid_own), 0);
	CHECK_INT(run(do_setreuid_other_r), EPERM);
	CHECK_INT(run(do_setreuid_other_e), EPERM);
	CHECK_INT(run(do_setregid_own), 0);
	CHECK_INT(run(do_setregid_other), EPERM);
	CHECK_INT(run(do_setresuid_own), 0);
	CHECK_INT(run(do_setresuid_other), EPERM);
	CHECK_INT(run(do_setresgid_own), 0);
	CHECK_INT(run(do_setresgid_other), EPERM);
	CHECK_INT(run(do_setgroups), EPERM);
	CHECK_INT(run(do_setfsuid_other), 0);
	unlink(id_file);
	map_own_ids = false;
}

T(id_rules_follow_syscalls_allow)
{
	ids_setup();
	struct jail_config cfg;
	config_init(&cfg);
	strv_push(&cfg.syscalls_allow, "chown");
	CHECK_INT(in_filter(&cfg, do_chown_other_uid), EINVAL); /* the kernel's answer */
	CHECK_INT(in_filter(&cfg, do_fchown_other), EPERM);
	config_free(&cfg);
	unlink(id_file);
	map_own_ids = false;
}
