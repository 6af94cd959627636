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

/* The conditional jumps that leave a block, to the end of the prefix or to
 * its EPERM, patched once both are known: at most four a block. */
struct fixups {
	struct {
		size_t at;
		bool to_deny;
	} v[4 * ARRAY_SIZE(calls)];
	size_t n;
};

static void leaves(struct fixups *f, size_t at, bool to_deny)
{
	f->v[f->n].at = at;
	f->v[f->n++].to_deny = to_deny;
}

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
		leaves(f, p->n, true);   /* unequal */
		bpf_emit(p, jump(BPF_JEQ, 0, 0, 0));
		bpf_emit(p, ld(seccomp_arg_low(0)));
		leaves(f, p->n, false);  /* equal; unequal goes on */
		bpf_emit(p, jump(BPF_JEQ, 0, 0, 0));
		leaves(f, p->n, false);
		leaves(f, p->n, true);
		bpf_emit(p, jump(BPF_JEQ, 0xffffffffU, 0, 0));
		return;
	}
	uint32_t flags = c == ANY_NS_FLAG ? NS_FLAGS : NS_FLAGS & ~(uint32_t)CLONE_NEWTIME;
	bpf_emit(p, ld(seccomp_arg_low(0)));
	leaves(f, p->n, true);       /* a flag set */
	leaves(f, p->n, false);      /* none */
	bpf_emit(p, jump(BPF_JSET, flags, 0, 0));
}

/* A JEQ leaves for EPERM when unequal and for the end when equal; a JSET for
 * EPERM when a flag is set and for the end when none is.  Unpatched branches
 * (0) go on to the next instruction. */
static void patch(struct sock_filter *v, const struct fixups *f, size_t end, size_t deny)
{
	for (size_t i = 0; i < f->n; i++) {
		struct sock_filter *j = &v[f->v[i].at];
		bool to_deny = f->v[i].to_deny;
		unsigned char off = (unsigned char)((to_deny ? deny : end) - f->v[i].at - 1);
		if ((BPF_OP(j->code) == BPF_JSET) == to_deny)
			j->jt = off;
		else
			j->jf = off;
	}
}

int argfilter_prefix(const struct jail_config *cfg, struct sock_filter *out, size_t cap)
{
	int nrs[ARRAY_SIZE(calls)];
	size_t n = 0, idx[ARRAY_SIZE(calls)];
	for (size_t i = 0; i < ARRAY_SIZE(calls); i++)
		if (bpf_filtered_nr(cfg, calls[i].name, &nrs[n]))
			idx[n++] = i;
	if (n == 0)
		return 0;
	struct bpf_buf p = {out, 0, cap};
	struct fixups f = {.n = 0};
	struct bpf_head head;
	bpf_emit_head(&p, nrs, n, &head);
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
	bpf_patch_head(out, &head, block_at, end);
	patch(out, &f, end, deny);
	return (int)end;
}
