/* workdir.h — the overlay's work dir, emptied off the start's critical path.
 *
 * At every mount, overlayfs removes the work/work directory the last mount
 * left in its work dir and makes it anew.  Removing a directory frees its
 * block, and on ext4 without a journal but with `discard` (the development
 * machine) a freed block is discarded at once, the caller waiting for the
 * disk: the project's overlay mount, on the start's critical path, waited
 * 0.1-5 ms (0.85 ms on average, in 12 of 30 starts at a load average of 3).
 * So before the clone the supervisor renames work/work aside, in the same
 * directory (a rename frees nothing, and keeps the mode-000 directory's ".."),
 * and the overlay only makes it.  What was set aside is removed by the
 * project view's server as it ends, after the jail (hidefs.h), and with it
 * the work/work of the overlay that just ended, so that the next start finds
 * none and has nothing to rename (a rename is journal work, 0.1 ms on the
 * start's path); or, with no
 * such server to outlive the jail, by the supervisor once it has sent GO,
 * while it waits for init to build the root (after GO init waits for nothing
 * of its; but on two cores the removal's journal work, four directories of a
 * volatile overlay, took CPU from the start).  What an earlier run left set aside (it failed before GO) is removed
 * the same way, work/work then staying for the overlay to remove, as before.
 *
 * With work/work gone the overlay can be volatile (plan.h): overlayfs marks
 * a volatile mount's work/work and refuses it to any later mount, so the
 * flag is set only when work/work is known to be gone.
 *
 * The work dir is the session's (owner-only, in the state dir no jail sees),
 * the session is locked, and the last run's overlay is gone (its view server
 * or its init held the lock until then). */
#ifndef JAIL_WORKDIR_H
#define JAIL_WORKDIR_H

#include <stdbool.h>

struct workdir_sweep;

/* Before the clone: set work/work aside.  NULL when there is nothing to
 * remove, or it could not be set aside (the overlay then removes work/work
 * itself, as it always did).  *fresh: work/work is gone now. */
struct workdir_sweep *workdir_set_aside(const char *work, bool *fresh);
/* Remove what was set aside, and free s (NULL: nothing). */
void workdir_sweep(struct workdir_sweep *s);
/* The same, by the work dir's path: the project view's server does it as it
 * ends (hidefs.h); and, once the overlay that used the work dir is known to
 * be gone, work/work too. */
void workdir_remove_aside(const char *work);
void workdir_remove_all(const char *work);
/* Free s, leaving what was set aside for the next run. */
void workdir_sweep_free(struct workdir_sweep *s);
#endif
