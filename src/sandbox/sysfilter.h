/* sysfilter.h — the syscall filter (libseccomp), loaded on the thread of
 * init's that starts the command (launcher.h).
 * (Not named seccomp.h: with -Isrc it would shadow libseccomp's <seccomp.h>.) */
#ifndef JAIL_SYSFILTER_H
#define JAIL_SYSFILTER_H
#include "config.h"

#include <endian.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>

/* The compiled filter: made by the supervisor while init builds the root (two
 * cores, half the start-up of compiling in the command's process), sent with
 * GO, loaded by the command's process. */
#define SYSFILTER_MAX_INSNS 480
struct sysfilter_prog {
	unsigned short len;
	struct sock_filter insns[SYSFILTER_MAX_INSNS];
};

int sysfilter_compile(const struct jail_config *cfg, struct sysfilter_prog *out,
                      struct jail_err *e) WUR;
/* Set no_new_privs and load a compiled filter.  Fails closed. */
int sysfilter_load(struct sysfilter_prog *prog, struct jail_err *e) WUR;
/* Compile and load in one step (the unit tests; jail itself compiles in the
 * supervisor and loads in init's child).  cfg->syscalls_allow names
 * syscalls to leave out of it.  Fails closed. */
int seccomp_install(const struct jail_config *cfg, struct jail_err *e) WUR;
/* Validation for the supervisor (policy/CLI time, before anything is set up):
 * every name in cfg->syscalls_allow must be a syscall.  seccomp_install checks
 * it again. */
int sysfilter_check_config(const struct jail_config *cfg, struct jail_err *e) WUR;
/* A hand-written BPF prefix being written into v[0..cap): n counts what was
 * emitted, past cap too (the caller compares n with cap). */
struct bpf_buf {
	struct sock_filter *v;
	size_t n, cap;
};

static inline void bpf_emit(struct bpf_buf *p, struct sock_filter insn)
{
	if (p->n < p->cap)
		p->v[p->n] = insn;
	p->n++;
}

/* A prefix's head: for the native ABI, a JEQ per call in nrs[0..n) to that
 * call's block, and a jump past the prefix for every other syscall.  Other
 * ABIs (x32 numbers, foreign arches) also jump past it, to the main filter,
 * which kills them.  bpf_patch_head points the jumps once the blocks (block_at)
 * and the prefix's end are known. */
/* The number of a call a prefix filters: true when it is a syscall on this
 * architecture and cfg does not allow it back. */
bool bpf_filtered_nr(const struct jail_config *cfg, const char *name, int *nr);

struct bpf_head {
	size_t arch_at, jeq_at, none_at, n;
};
void bpf_emit_head(struct bpf_buf *p, const int *nrs, size_t n, struct bpf_head *h);
void bpf_patch_head(struct sock_filter *v, const struct bpf_head *h, const size_t *block_at,
                    size_t end);

/* Where the low 32 bits of argument i lie in struct seccomp_data, for the
 * hand-written BPF prefixes (idfilter.h, sockfilter.h, argfilter.h). */
static inline uint32_t seccomp_arg_low(unsigned i)
{
	uint32_t off = (uint32_t)offsetof(struct seccomp_data, args) + 8 * i;
#if __BYTE_ORDER == __BIG_ENDIAN
	off += 4;
#endif
	return off;
}

/* ... and the high 32 bits. */
static inline uint32_t seccomp_arg_high(unsigned i)
{
#if __BYTE_ORDER == __BIG_ENDIAN
	return seccomp_arg_low(i) - 4;
#else
	return seccomp_arg_low(i) + 4;
#endif
}
#endif
