/* filtercache.h — the compiled syscall filter, kept between runs.
 *
 * libseccomp builds the filter from its rules at every start (0.4-0.5 ms of
 * the supervisor's CPU, a twentieth of a start's, on a core that init's
 * mounts, the overlay's thread and the view's server also want).  The BPF it
 * makes depends only on jail's own rules, the policy's syscalls.allow, the
 * caller's uid and gid (the id rules, idfilter.h), libseccomp and the kernel
 * it probes: all of them are the cache's key, with the jail binary's own
 * stamp (a rebuilt or upgraded jail has other rules), so a start whose key
 * matches loads the program compiled before.
 *
 * The cache is $XDG_STATE_HOME/jail/filter.cache: no jail ever sees the
 * state dir (it is covered wherever a bind would show it), and only a regular
 * file of the caller's own that no one else may write is read; whoever can
 * write it could as well replace the jail binary or the policy.  A damaged
 * file (key, length) is compiled over; the kernel checks the program at load
 * as it checks a fresh one. */
#ifndef JAIL_FILTERCACHE_H
#define JAIL_FILTERCACHE_H
#include "sysfilter.h"

/* sysfilter_compile, through the cache in state_root (NULL: no cache). */
int filtercache_compile(const struct jail_config *cfg, const char *state_root,
                        struct sysfilter_prog *out, struct jail_err *e) WUR;
#endif
