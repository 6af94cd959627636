/* sysfilter.c — the syscall filter, loaded on the thread of init's that
 * starts the command (launcher.h).
 *
 * The filter allows by default and refuses the kernel surface a coding agent
 * never needs (threat 5 in DESIGN.md): it is a deny list, because an allow
 * list would break the toolchains agents run, and the namespaces already take
 * away what the rest could reach.  Refusals return EPERM, except clone3, whose
 * flags live in memory seccomp cannot read: it gets ENOSYS so that glibc and
 * musl fall back to clone(2), whose flags the filter can inspect.
 *
 * Only the native architecture is in the filter: a syscall made through
 * another ABI (int 0x80 for i386, the x32 bit) kills the process, since the
 * rules below would not apply to its numbering.
 *
 * Before libseccomp's program run three small prefixes of our own, for the
 * rules that are about arguments: chown and set*id to an id other than the
 * caller's get EPERM, as on the host (idfilter.c); socket families other
 * than unix, inet, inet6 and netlink route, and internet sockets other than
 * TCP, UDP, ICMP and MPTCP get EPERM, from socket(2) and socketpair(2) alike
 * (sockfilter.c); personality other than the default, and unshare or clone
 * of a namespace, get EPERM (argfilter.c).
 */
#include "sysfilter.h"

#include <fcntl.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "argfilter.h"
#include "idfilter.h"
#include "log.h"
#include "sockfilter.h"

#include <errno.h>
#include <seccomp.h>
#include <string.h>
#include <sys/ioctl.h>

/* Refused outright.  A name libseccomp does not know yet is looked up in
 * newer_syscalls below; one unknown to both is skipped with a debug line (the
 * running kernel then does not have it either, or it is not on this arch). */
static const char *const refused[] = {
	/* kernel keyrings, bpf, perf, userfaultfd, io_uring: attack surface */
	"keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	/* kernel and module loading */
	"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
	/* the mount family, old and new API */
	"mount", "umount", "umount2", "fsopen", "fsconfig", "fsmount", "fspick",
	"move_mount", "open_tree", "open_tree_attr", "mount_setattr", "pivot_root", "chroot",
	/* namespaces: joining others */
	"setns",
	/* handles bypass the path walk (the shocker attack) */
	"open_by_handle_at",
	/* host-wide administration */
	"acct", "swapon", "swapoff", "reboot", "quotactl", "quotactl_fd", "syslog",
	"vhangup", "iopl", "ioperm", "modify_ldt", "uselib", "lookup_dcookie", "nfsservctl",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
};

/* The refused syscalls newer than some libseccomp we may be built against
 * (x86_64 numbers): a distribution's older libseccomp (built with
 * STATIC_LIBS=no) would not know them by name, and the filter would pass
 * them on a kernel that has them.  Everything from Linux 5.1 on. */
static const struct {
	const char *name;
	int nr;
} newer_syscalls[] = {
#if defined(__x86_64__)
	{"io_uring_setup", 425}, {"io_uring_enter", 426}, {"io_uring_register", 427},
	{"open_tree", 428},      {"move_mount", 429},     {"fsopen", 430},
	{"fsconfig", 431},       {"fsmount", 432},        {"fspick", 433},
	{"clone3", 435},         {"mount_setattr", 442},  {"quotactl_fd", 443},
	{"open_tree_attr", 467},
#endif
	{NULL, 0},
};

static bool is_allowed_back(const struct jail_config *cfg, const char *name)
{
	return cfg && strv_contains(&cfg->syscalls_allow, name);
}

static int resolve(const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);
	if (nr != __NR_SCMP_ERROR)
		return nr;
	for (size_t i = 0; newer_syscalls[i].name; i++)
		if (strcmp(newer_syscalls[i].name, name) == 0)
			return newer_syscalls[i].nr;
	return __NR_SCMP_ERROR;
}

static int add(scmp_filter_ctx ctx, uint32_t action, const char *name, unsigned n,
               const struct scmp_arg_cmp *cmp, struct jail_err *e)
{
	int nr = resolve(name);
	if (nr == __NR_SCMP_ERROR) {
		log_debug("seccomp: %s is not a syscall here; nothing to refuse", name);
		return 0;
	}
	int rc = seccomp_rule_add_array(ctx, action, nr, n, cmp);
	if (rc < 0)
		return jail_err_set(e, -rc, "seccomp: add the rule for %s", name);
	return 0;
}

static int add_refused(scmp_filter_ctx ctx, const struct jail_config *cfg, struct jail_err *e)
{
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
		if (is_allowed_back(cfg, refused[i]))
			continue;
		if (add(ctx, SCMP_ACT_ERRNO(EPERM), refused[i], 0, NULL, e) < 0)
			return -1;
	}
	return 0;
}

/* clone3's flags live in memory seccomp cannot read: ENOSYS sends glibc and
 * musl back to clone(2), whose flags argfilter.c reads (unshare's and
 * clone's namespace flags are refused there). */
static int add_clone3(scmp_filter_ctx ctx, const struct jail_config *cfg, struct jail_err *e)
{
	if (!is_allowed_back(cfg, "clone3") &&
	    add(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, NULL, e) < 0)
		return -1;
	return 0;
}

/* ioctl TIOCSTI and TIOCLINUX inject keystrokes into a terminal; TIOCSETD
 * attaches a line discipline (n_hdlc, n_gsm, slip, ...: kernel code loaded on
 * demand where dev.tty.ldisc_autoload is 1, with a record of local root
 * exploits) to any terminal the jail opens, its own ptys included.  The kernel
 * reads the request as 32 bits, so the comparison masks the high half: a
 * request of 1<<32 | TIOCSTI is refused too. */
static int add_ioctls(scmp_filter_ctx ctx, const struct jail_config *cfg, struct jail_err *e)
{
	static const unsigned long reqs[] = {TIOCSTI, TIOCLINUX, TIOCSETD};
	if (is_allowed_back(cfg, "ioctl"))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(reqs); i++) {
		struct scmp_arg_cmp cmp = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, reqs[i]);
		if (add(ctx, SCMP_ACT_ERRNO(EPERM), "ioctl", 1, &cmp, e) < 0)
			return -1;
	}
	return 0;
}

/* SysV IPC objects outlive every process that used them (until IPC_RMID or
 * the IPC namespace's end): memory no process owns, like the jail's tmpfs
 * (mounts.c), which the OOM killer cannot get back by killing the agent, so
 * it kills host processes instead; without cgroups --memory does not count it
 * either.  The jail's IPC namespace has the kernel's default limits, and they
 * are not the jail's to lower (they belong to the namespace's uid 0, which is
 * not mapped), so each kind is bounded here by what one call may ask for:
 *
 *   shmget of more than SHM_SEG_MAX gets EINVAL, as the kernel answers above
 *   shmmax: at most shmmni (4096) segments of it, 1 GiB in all (PostgreSQL
 *   asks for a few hundred bytes);
 *
 *   semget of more than SEM_SET_MAX semaphores gets EINVAL, as above semmsl:
 *   a set costs 64 bytes a semaphore, and semmni (32000) sets of semmsl
 *   (32000) would be 64 GiB; now at most 32000 sets of 4 KiB, 125 MiB
 *   (PostgreSQL's SysV sets are 17);
 *
 *   msgget gets EPERM: a queue holds msgmnb (16 KiB) of text and as many
 *   empty messages, 1 MiB of headers, and no argument bounds how many queues
 *   (msgmni: 32000, 39 GiB of them filled); no coding tool uses them.
 *
 * A policy can allow each call back, with the kernel's own limits. */
#define SHM_SEG_MAX (256UL << 10)
#define SEM_SET_MAX 32UL

static int add_sysv_ipc(scmp_filter_ctx ctx, const struct jail_config *cfg, struct jail_err *e)
{
	/* the kernel reads nsems as an int: with high bits set the value is
	 * above the bound too, and refused */
	struct scmp_arg_cmp shm = SCMP_A1(SCMP_CMP_GT, (scmp_datum_t)SHM_SEG_MAX);
	struct scmp_arg_cmp sem = SCMP_A1(SCMP_CMP_GT, (scmp_datum_t)SEM_SET_MAX);
	if (!is_allowed_back(cfg, "shmget") &&
	    add(ctx, SCMP_ACT_ERRNO(EINVAL), "shmget", 1, &shm, e) < 0)
		return -1;
	if (!is_allowed_back(cfg, "semget") &&
	    add(ctx, SCMP_ACT_ERRNO(EINVAL), "semget", 1, &sem, e) < 0)
		return -1;
	if (!is_allowed_back(cfg, "msgget") &&
	    add(ctx, SCMP_ACT_ERRNO(EPERM), "msgget", 0, NULL, e) < 0)
		return -1;
	return 0;
}

/* Legacy AIO: the events of every io_setup on the machine count against one
 * host-wide limit, fs.aio-max-nr (65536), in no namespace and for no user.
 * Sixteen calls from the jail took it all, and until the agent let go every
 * io_setup on the host failed (EAGAIN), root's too: the native AIO of
 * databases and VMs.  ENOSYS, as from a kernel without AIO, sends libaio's
 * users (InnoDB, qemu) to their fallback; a policy can allow it back. */
static int add_aio(scmp_filter_ctx ctx, const struct jail_config *cfg, struct jail_err *e)
{
	if (is_allowed_back(cfg, "io_setup"))
		return 0;
	return add(ctx, SCMP_ACT_ERRNO(ENOSYS), "io_setup", 0, NULL, e);
}

/* Every name the policy allows back must be a syscall: a typo would otherwise
 * pass silently. */
int sysfilter_check_config(const struct jail_config *cfg, struct jail_err *e)
{
	for (size_t i = 0; cfg && i < cfg->syscalls_allow.n; i++) {
		const char *name = cfg->syscalls_allow.v[i];
		if (resolve(name) == __NR_SCMP_ERROR) {
			_cleanup_free_ char *esc = escape_name(name);
			return jail_err_set(e, 0, "syscalls.allow: '%s' is not a syscall", esc);
		}
		log_debug("seccomp: %s allowed back by the policy", name);
	}
	return 0;
}

static int build(scmp_filter_ctx ctx, const struct jail_config *cfg, struct jail_err *e)
{
	int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc < 0)
		return jail_err_set(e, -rc, "seccomp: set the action for foreign architectures");
	/* no_new_privs is set by caps_drop_all; libseccomp setting it again is harmless */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1);
	if (rc < 0)
		return jail_err_set(e, -rc, "seccomp: set no_new_privs");
	if (add_refused(ctx, cfg, e) < 0 || add_clone3(ctx, cfg, e) < 0 ||
	    add_ioctls(ctx, cfg, e) < 0 || add_sysv_ipc(ctx, cfg, e) < 0 ||
	    add_aio(ctx, cfg, e) < 0)
		return -1;
	return 0;
}

bool bpf_filtered_nr(const struct jail_config *cfg, const char *name, int *nr)
{
	*nr = seccomp_syscall_resolve_name(name);
	return *nr >= 0 && !is_allowed_back(cfg, name);
}

void bpf_emit_head(struct bpf_buf *p, const int *nrs, size_t n, struct bpf_head *h)
{
	h->n = n;
	bpf_emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	                                         offsetof(struct seccomp_data, arch)));
	h->arch_at = p->n;
	bpf_emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, seccomp_arch_native(), 0, 0));
	bpf_emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	                                         offsetof(struct seccomp_data, nr)));
	h->jeq_at = p->n;
	for (size_t i = 0; i < n; i++)
		bpf_emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nrs[i], 0, 0));
	h->none_at = p->n;
	bpf_emit(p, (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, 0));
}

/* (jumps are relative to the next instruction) */
void bpf_patch_head(struct sock_filter *v, const struct bpf_head *h, const size_t *block_at,
                    size_t end)
{
	v[h->arch_at].jf = (unsigned char)(end - h->arch_at - 1);
	for (size_t i = 0; i < h->n; i++)
		v[h->jeq_at + i].jt = (unsigned char)(block_at[i] - (h->jeq_at + i) - 1);
	v[h->none_at].k = (uint32_t)(end - h->none_at - 1);
}

/* The filter as BPF: libseccomp writes it to a pipe, read back here after the
 * `off` instructions of the prefixes (idfilter.c, sockfilter.c, argfilter.c). */
static int export_bpf(scmp_filter_ctx ctx, struct sysfilter_prog *out, size_t off,
                      struct jail_err *e)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return jail_err_sys(e, "seccomp: pipe for the filter");
	/* a pipe holds 64 KiB; the filter is a few KiB (SYSFILTER_MAX_INSNS caps it) */
	int rc = seccomp_export_bpf(ctx, p[1]);
	close(p[1]);
	_cleanup_close_ int rd = p[0];
	if (rc < 0)
		return jail_err_set(e, -rc, "seccomp: export the filter");
	ssize_t n = read(rd, out->insns + off, sizeof(out->insns) - off * sizeof(out->insns[0]));
	if (n <= 0 || n % sizeof(struct sock_filter) != 0)
		return jail_err_set(e, EPROTO, "seccomp: read the exported filter");
	char extra;
	if (read(rd, &extra, 1) > 0)
		return jail_err_set(e, E2BIG, "seccomp: the filter is larger than %d instructions",
		                    SYSFILTER_MAX_INSNS);
	out->len = (unsigned short)(off + (size_t)n / sizeof(struct sock_filter));
	return 0;
}

int sysfilter_compile(const struct jail_config *cfg, struct sysfilter_prog *out,
                      struct jail_err *e)
{
	if (sysfilter_check_config(cfg, e) < 0)
		return -1;
	/* seccomp_init puts only the native architecture in the filter: the BPF
	 * program checks the arch field and the x32 bit before any rule. */
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return jail_err_set(e, ENOMEM, "seccomp: create the filter");
	int ret = build(ctx, cfg, e);
	/* the supervisor compiles: its ids are the ones mapped inside */
	int off = ret == 0 ? idfilter_prefix(cfg, getuid(), getgid(), out->insns,
	                                     SYSFILTER_MAX_INSNS) : 0;
	if (off < 0)
		ret = jail_err_set(e, E2BIG, "seccomp: the id rules do not fit the filter");
	int soff = ret == 0 ? sockfilter_prefix(cfg, out->insns + off,
	                                        SYSFILTER_MAX_INSNS - (size_t)off) : 0;
	if (soff < 0)
		ret = jail_err_set(e, E2BIG, "seccomp: the socket rules do not fit the filter");
	off += soff;
	int aoff = ret == 0 ? argfilter_prefix(cfg, out->insns + off,
	                                       SYSFILTER_MAX_INSNS - (size_t)off) : 0;
	if (aoff < 0)
		ret = jail_err_set(e, E2BIG, "seccomp: the flag rules do not fit the filter");
	off += aoff;
	if (ret == 0)
		ret = export_bpf(ctx, out, (size_t)off, e);
	seccomp_release(ctx);
	return ret;
}

int sysfilter_load(struct sysfilter_prog *prog, struct jail_err *e)
{
	if (prog->len == 0)
		return jail_err_set(e, EINVAL, "seccomp: no filter to load");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return jail_err_sys(e, "seccomp: set no_new_privs");
	struct sock_fprog fp = {.len = prog->len, .filter = prog->insns};
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) < 0)
		return jail_err_sys(e, "seccomp: load the filter");
	return 0;
}

int seccomp_install(const struct jail_config *cfg, struct jail_err *e)
{
	struct sysfilter_prog prog;
	if (sysfilter_compile(cfg, &prog, e) < 0)
		return -1;
	return sysfilter_load(&prog, e);
}
