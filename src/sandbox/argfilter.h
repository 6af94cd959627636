/* argfilter.h — the syscalls refused for what their flags ask: personality
 * other than the default and the query, unshare and clone of a namespace. */
#ifndef JAIL_ARGFILTER_H
#define JAIL_ARGFILTER_H
#include "config.h"

#include <linux/filter.h>
#include <stddef.h>

/* Write into out[0..cap) a classic-BPF prefix for the syscall filter: for the
 * native ABI, personality(2) with a value other than 0 and 0xffffffff (or any
 * of the upper 32 bits set), unshare(2) with any CLONE_NEW* flag and clone(2)
 * with any but CLONE_NEWTIME (there 0x80 is part of the exit signal) return
 * EPERM; every other syscall falls through past the prefix.  Calls named in
 * cfg->syscalls_allow are left to the kernel.  Returns the number of
 * instructions, or -1 when cap is too small. */
int argfilter_prefix(const struct jail_config *cfg, struct sock_filter *out, size_t cap) WUR;
#endif
