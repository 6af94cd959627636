/* diskguard.h — keep an agent from filling the host's disk through the upper dir.
 *
 * The upper dir lives on the user's own filesystem, and no unprivileged means
 * caps its size (quotas and loop mounts need root).  So the supervisor watches
 * the filesystem's free space and free inodes while the command runs and stops
 * the jail when the session has added more than --disk bytes or --disk-inodes
 * files (default: one per KiB of --disk), or when the filesystem gets down to
 * its reserve of either.  What the agent wrote so far stays in the session.
 *
 * The host side (the export's temporary repository, the patches) asks
 * fs_room_fits() before it writes, so it never eats the reserve either. */
#ifndef JAIL_DISKGUARD_H
#define JAIL_DISKGUARD_H
#include "config.h"

struct disk_guard;

/* Watch from a thread of its own (`threaded`: the pty's relay may block in a
 * write to the host terminal), or from the caller's wait, which polls with
 * disk_guard_timeout and calls disk_guard_look after every wake (a short
 * command then costs no thread's start and end). */
int disk_guard_start(const struct jail_config *cfg, const char *upper, pid_t init_pid,
                     bool threaded, struct disk_guard **out, struct jail_err *e) WUR;
/* Milliseconds until the next look is due (0: now), -1 when the caller need
 * not wake for one (NULL, threaded, or the guard stopped the jail). */
int disk_guard_timeout(const struct disk_guard *g);
/* Look, if a look is due (a no-op otherwise, and for NULL or threaded). */
void disk_guard_look(struct disk_guard *g);
/* Stop watching.  Returns true, with the reason in *e, when the guard stopped
 * the jail. */
bool disk_guard_stop(struct disk_guard *g, struct jail_err *e);

/* The reserve for a filesystem of `total` bytes (or inodes) with `avail` free
 * now: 5% of it, at most `cap`, and never more than half of what is free at the
 * start.  Bytes: cap 1 GiB; inodes: cap 100,000. */
unsigned long long disk_reserve(unsigned long long total, unsigned long long avail,
                                unsigned long long cap);
#define DISK_RESERVE_BYTES_CAP (1ULL << 30)
#define DISK_RESERVE_INODES_CAP 100000ULL

/* The inode budget of a run: limits.disk_inodes, else one per KiB of
 * limits.disk, else none (0). */
unsigned long long disk_inode_limit(const struct jail_config *cfg);

/* Free space of the filesystem holding a path. */
struct fs_room {
	unsigned long long bytes_avail, bytes_total;
	unsigned long long inodes_avail, inodes_total;  /* total 0: no inode limit */
};
int fs_room_of(const char *path, struct fs_room *r);
/* Can `bytes` and `inodes` more be written there and the filesystem still keep
 * its reserve (disk_reserve: 5%, at most 1 GiB and 100,000 inodes, at most half
 * of what is free now)? */
bool fs_room_fits(const struct fs_room *r, unsigned long long bytes, unsigned long long inodes);
#endif
