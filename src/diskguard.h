/* diskguard.h — keep an agent from filling the host's disk through the upper dir.
 *
 * The upper dir lives on the user's own filesystem, and no unprivileged means
 * caps its size (quotas and loop mounts need root).  So the supervisor watches
 * the filesystem's free space while the command runs and stops the jail when the
 * session has written more than --disk allows, or when the filesystem gets down
 * to its reserve.  What the agent wrote so far stays in the session. */
#ifndef JAIL_DISKGUARD_H
#define JAIL_DISKGUARD_H
#include "config.h"

struct disk_guard;

int disk_guard_start(const struct jail_config *cfg, const char *upper, pid_t init_pid,
                     struct disk_guard **out, struct jail_err *e) WUR;
/* Stop watching.  Returns true, with the reason in *e, when the guard stopped
 * the jail. */
bool disk_guard_stop(struct disk_guard *g, struct jail_err *e);

/* The reserve for a filesystem of `total` bytes with `avail` free now: 5% of it,
 * at most 1 GiB, and never more than half of what is free at the start. */
unsigned long long disk_reserve(unsigned long long total, unsigned long long avail);
#endif
