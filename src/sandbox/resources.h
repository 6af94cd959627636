/* resources.h — resource limits: cgroup v2 where delegated, rlimits otherwise. */
#ifndef JAIL_RESOURCES_H
#define JAIL_RESOURCES_H
#include "config.h"
/* Does the policy ask for limits a cgroup would hold (memory, pids, cpus)?
 * Only then may limits_cgroup_attach move the supervisor between cgroups. */
bool limits_cgroup_wanted(const struct jail_config *cfg);
/* Supervisor, after clone: put the jail's init into a cgroup with the limits,
 * when a delegated cgroup v2 subtree is writable.  Returns 1 when cgroup limits
 * are in force, 0 when the rlimit fallback must do. */
int limits_cgroup_attach(const struct jail_config *cfg, pid_t init_pid, struct jail_err *e) WUR;
/* Supervisor, on the host: the process limit for a command without --pids,
 * half of what the host can hold (pid_max, threads-max, the user's own limit;
 * the jail's processes count in all three). */
unsigned long limits_default_nproc(void);
/* Init's child, before exec: rlimits (core dumps off, the process limit
 * without --pids: default_nproc, and the fallbacks). */
int limits_apply_rlimits(const struct jail_config *cfg, bool cgroup_in_force,
                         unsigned long default_nproc, struct jail_err *e) WUR;
/* Init, in the jail's user namespace while it still holds capabilities there:
 * bound inotify, forbid fanotify and (unless a policy allowed unshare/clone back)
 * creating any namespace but a mount namespace.  sysuser: /proc/sys/user, opened while /proc/sys was
 * still writable. */
int limits_userns_counts(const struct jail_config *cfg, int sysuser, struct jail_err *e) WUR;
/* The mount namespace count, apart and once the root is built: init's own
 * binds clone mount trees (open_tree), and each clone is an anonymous mount
 * namespace that the count charges (ENOSPC at 0). */
int limits_mnt_namespaces(const struct jail_config *cfg, int sysuser, struct jail_err *e) WUR;
/* For jail doctor: has systemd delegated the memory, pids and cpu controllers
 * to the caller's user manager (so that systemd-run --user --scope -p
 * Delegate=yes gives jail cgroup limits)?  0 if so, else -1 and why. */
int limits_cgroup_delegated(struct jail_err *e) WUR;
/* The one line that says which limits the rlimit fallback keeps. */
const char *limits_fallback_note(const struct jail_config *cfg);
/* Supervisor: does the jail have a cgroup of its own (that init must leave
 * before limits_cgroup_cleanup can remove it)? */
bool limits_cgroup_in_use(void);
/* Supervisor, at exit: remove the cgroup made for the jail. */
void limits_cgroup_cleanup(void);
#endif
