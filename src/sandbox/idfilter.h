/* idfilter.h — the id calls (chown, set*id) fail with EPERM inside, as for the
 * same user on the host, instead of the EINVAL that the single-id user
 * namespace gives. */
#ifndef JAIL_IDFILTER_H
#define JAIL_IDFILTER_H
#include "config.h"

#include <linux/filter.h>
#include <sys/types.h>

/* Write into out[0..cap) a classic-BPF prefix for the syscall filter: for the
 * native ABI's chown/lchown/fchown/fchownat and setuid/setgid/setreuid/
 * setregid/setresuid/setresgid, an id argument that is neither `uid` (or
 * `gid`) nor -1 returns EPERM; every other syscall falls through past the
 * prefix.  Calls named in cfg->syscalls_allow are left to the kernel.
 * Returns the number of instructions, or -1 when cap is too small. */
int idfilter_prefix(const struct jail_config *cfg, uid_t uid, gid_t gid, struct sock_filter *out,
                    size_t cap) WUR;
#endif
