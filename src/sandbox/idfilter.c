/* idfilter.c — EPERM for the id calls, as on the host.
 *
 * Only the caller's uid and gid are mapped in the jail's user namespace, so
 * the kernel answers EINVAL for any other id ("not a valid id here"), where
 * the same user on the host gets EPERM ("not allowed").  Programs and test
 * suites treat EPERM as "carry on" and EINVAL as a bug (CPython's test_os and
 * test_subprocess, libuv's fs_chown and spawn_setuid_fails).
 *
 * The rule: an id argument that is neither the caller's id nor -1 gets EPERM
 * before the kernel sees it; the caller's own id and -1 go to the kernel,
 * which answers as on the host (-1 is "unchanged" for chown and set{re,res}id,
 * and EINVAL for setuid/setgid on both sides).  Ids are read as the kernel
 * reads them, 32 bits: Go passes -1 sign-extended to 64 bits, C zero-extended.
 *
 * Needing no rule: setgroups (setgroups=deny makes it EPERM, as on the host),
 * setfsuid/setfsgid (they never fail; an unmapped id leaves the fs id as it
 * is, as a refused one does on the host).  The 16- and 32-bit forms (chown32,
 * setuid16, ...) belong to ABIs the filter kills.
 *
 * Why a hand-made BPF prefix and not libseccomp rules: libseccomp takes one
 * comparison per argument in a rule, so "neither A nor B" costs 32 masked
 * rules per argument: ~700 instructions and 25 ms of start-up for the 20 id
 * arguments.  The prefix is ~100 instructions and is built in microseconds.
 *
 * A known difference: on the host, chgrp to one of the user's supplementary
 * groups succeeds; inside only the primary group is mapped (no setuid helper
 * maps more), so it fails, with EPERM. */
#include "idfilter.h"
#include "sysfilter.h"

#include <endian.h>
#include <errno.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stddef.h>
#include <string.h>

static const struct {
	const char *name;
	unsigned char uids, gids; /* bit i: argument i is a uid / a gid */
} id_calls[] = {
	{"chown", 1 << 1, 1 << 2},  {"lchown", 1 << 1, 1 << 2}, {"fchown", 1 << 1, 1 << 2},
	{"fchownat", 1 << 2, 1 << 3}, {"setuid", 1 << 0, 0},    {"setgid", 0, 1 << 0},
	{"setreuid", 3, 0},         {"setregid", 0, 3},         {"setresuid", 7, 0},
	{"setresgid", 0, 7},
};

/* The jumps to the prefix's one EPERM, patched once it is placed. */
struct denials {
	size_t at[6 * ARRAY_SIZE(id_calls)];
	size_t n;
};

/* One call's block: each id argument checked (the id or -1 goes on, anything
 * else to EPERM), then a jump to the end of the prefix (patched by the
 * caller: its k is the block's last instruction). */
static void emit_block(struct bpf_buf *p, struct denials *d, size_t c, uint32_t uid,
                       uint32_t gid)
{
	for (unsigned a = 0; a < 6; a++) {
		bool is_uid = id_calls[c].uids & (1u << a), is_gid = id_calls[c].gids & (1u << a);
		if (!is_uid && !is_gid)
			continue;
		bpf_emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, seccomp_arg_low(a)));
		bpf_emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, is_uid ? uid : gid, 1, 0));
		d->at[d->n++] = p->n;
		bpf_emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffU, 0, 0));
	}
}

int idfilter_prefix(const struct jail_config *cfg, uid_t uid, gid_t gid, struct sock_filter *out,
                    size_t cap)
{
	int nrs[ARRAY_SIZE(id_calls)];
	size_t ncalls = 0, idx[ARRAY_SIZE(id_calls)];
	for (size_t c = 0; c < ARRAY_SIZE(id_calls); c++)
		if (bpf_filtered_nr(cfg, id_calls[c].name, &nrs[ncalls]))
			idx[ncalls++] = c;
	struct bpf_buf p = {out, 0, cap};
	struct bpf_head head;
	bpf_emit_head(&p, nrs, ncalls, &head);
	size_t block_at[ARRAY_SIZE(id_calls)], end_at[ARRAY_SIZE(id_calls)];
	struct denials d = {.n = 0};
	for (size_t i = 0; i < ncalls; i++) {
		block_at[i] = p.n;
		emit_block(&p, &d, idx[i], uid, gid);
		end_at[i] = p.n;
		bpf_emit(&p, (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, 0));
	}
	size_t deny = p.n;
	bpf_emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	                                          SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)));
	if (p.n > cap || p.n > 255)
		return -1;
	for (size_t i = 0; i < d.n; i++)
		out[d.at[i]].jf = (unsigned char)(deny - d.at[i] - 1);
	/* patch the jumps now that the offsets are known (relative to the next
	 * instruction; the end of the prefix is p.n) */
	bpf_patch_head(out, &head, block_at, p.n);
	for (size_t i = 0; i < ncalls; i++)
		out[end_at[i]].k = (uint32_t)(p.n - end_at[i] - 1);
	return (int)p.n;
}
