/* argfilter.c — personality, unshare and clone by their flags (argfilter.h).
 *
 * personality(2): flags such as READ_IMPLIES_EXEC or MMAP_PAGE_ZERO weaken the
 * address space; only the default (0) and the query (0xffffffff) pass.
 * unshare(2) and clone(2) may create no namespace: the agent's user namespace
 * would give it every capability again, over namespaces of its own.
 *
 * A hand-made prefix, as idfilter.c's and sockfilter.c's and for the same
 * reason: libseccomp takes one comparison per argument in a rule and rules
 * refuse (the filter allows by default), so "neither 0 nor all ones" was 33
 * masked rules and "any of eight bits" eight, 250 of the filter's 390
 * instructions with the socket families; here they are a JEQ or a JSET each.
 * Every syscall pays for the filter's length, and its load (JIT-compiled in
 * the command's way to exec) grows with it.
 *
 * The namespace flags are all in the low 32 bits, which is all this reads of
 * them; personality's upper bits are refused as before (the kernel reads an
 * unsigned int, but a value with them set is no default). */
#include "argfilter.h"
#include "sysfilter.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <string.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

#define NS_FLAGS                                                                          \
	(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |       \
	 CLONE_NEWUTS | CLONE_NEWCGROUP | CLONE_NEWTIME)

enum check { PERSONALITY, ANY_NS_FLAG, ANY_CLONE_NS_FLAG };

static const struct {
	const char *name;
	enum check check;
} calls[] = {
	{"personality", PERSONALITY},
	{"unshare", ANY_NS_FLAG},
	{"clone", ANY_CLONE_NS_FLAG},
};

/* A jump to the end of the prefix or to its EPERM, patched once both are
 * known. */
struct fixups {
	size_t to_end[8], to_deny[8];
	size_t nend, ndeny;
};

static struct sock_filter ld(uint32_t off)
{
	return (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, off);
}

static struct sock_filter jump(uint16_t op, uint32_t k, unsigned char jt, unsigned char jf)
{
	return (struct sock_filter)BPF_JUMP(BPF_JMP | op | BPF_K, k, jt, jf);
}

/* One call's block; its jumps to the end or to EPERM are noted in *f
 * (patched later: 0 here). */
static void emit_block(struct bpf_buf *p, struct fixups *f, enum check c)
{
	if (c == PERSONALITY) {
		bpf_emit(p, ld(seccomp_arg_high(0)));
		f->to_deny[f->ndeny++] = p->n;  /* jf */
		bpf_emit(p, jump(BPF_JEQ, 0, 0, 0));
		bpf_emit(p, ld(seccomp_arg_low(0)));
		f->to_end[f->nend++] = p->n;    /* jt */
		bpf_emit(p, jump(BPF_JEQ, 0, 0, 0));
		f->to_end[f->nend++] = p->n;    /* jt, and jf to EPERM */
		f->to_deny[f->ndeny++] = p->n;
		bpf_emit(p, jump(BPF_JEQ, 0xffffffffU, 0, 0));
		return;
	}
	uint32_t flags = c == ANY_NS_FLAG ? NS_FLAGS : NS_FLAGS & ~(uint32_t)CLONE_NEWTIME;
	bpf_emit(p, ld(seccomp_arg_low(0)));
	f->to_deny[f->ndeny++] = p->n;      /* jt, and jf to the end */
	f->to_end[f->nend++] = p->n;
	bpf_emit(p, jump(BPF_JSET, flags, 0, 0));
}

/* Conditional jumps: a JEQ's or JSET's true branch goes on to the next
 * instruction unless patched; these patch the branch that leaves. */
static void patch(struct sock_filter *v, const struct fixups *f, size_t end, size_t deny)
{
	for (size_t i = 0; i < f->nend; i++) {
		struct sock_filter *j = &v[f->to_end[i]];
		unsigned char off = (unsigned char)(end - f->to_end[i] - 1);
		/* a JSET leaves to the end when no flag is set; a JEQ when equal */
		if (BPF_OP(j->code) == BPF_JSET)
			j->jf = off;
		else
			j->jt = off;
	}
	for (size_t i = 0; i < f->ndeny; i++) {
		struct sock_filter *j = &v[f->to_deny[i]];
		unsigned char off = (unsigned char)(deny - f->to_deny[i] - 1);
		if (BPF_OP(j->code) == BPF_JSET)
			j->jt = off;
		else
			j->jf = off;
	}
}

int argfilter_prefix(const struct jail_config *cfg, struct sock_filter *out, size_t cap)
{
	int nrs[ARRAY_SIZE(calls)];
	size_t n = 0, idx[ARRAY_SIZE(calls)];
	for (size_t i = 0; i < ARRAY_SIZE(calls); i++) {
		int nr = seccomp_syscall_resolve_name(calls[i].name);
		if (nr < 0 || (cfg && strv_contains(&cfg->syscalls_allow, calls[i].name)))
			continue; /* not on this architecture, or allowed back */
		nrs[n] = nr;
		idx[n++] = i;
	}
	if (n == 0)
		return 0;
	struct bpf_buf p = {out, 0, cap};
	struct fixups f = {0};
	/* other ABIs (x32 numbers, foreign arches) fall through to the main
	 * filter, which kills them */
	bpf_emit(&p, ld(offsetof(struct seccomp_data, arch)));
	size_t arch_at = p.n;
	bpf_emit(&p, jump(BPF_JEQ, seccomp_arch_native(), 0, 0));
	bpf_emit(&p, ld(offsetof(struct seccomp_data, nr)));
	size_t jeq_at = p.n;
	for (size_t i = 0; i < n; i++)
		bpf_emit(&p, jump(BPF_JEQ, (uint32_t)nrs[i], 0, 0));
	size_t none_at = p.n;
	bpf_emit(&p, (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, 0));
	size_t block_at[ARRAY_SIZE(calls)];
	for (size_t i = 0; i < n; i++) {
		block_at[i] = p.n;
		emit_block(&p, &f, calls[idx[i]].check);
	}
	size_t deny = p.n;
	bpf_emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	                                          SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)));
	size_t end = p.n;
	if (end > cap || end > 255)
		return -1;
	out[arch_at].jf = (unsigned char)(end - arch_at - 1);
	for (size_t i = 0; i < n; i++)
		out[jeq_at + i].jt = (unsigned char)(block_at[i] - (jeq_at + i) - 1);
	out[none_at].k = (uint32_t)(end - none_at - 1);
	patch(out, &f, end, deny);
	return (int)end;
}
