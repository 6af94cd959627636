/* scratchroom.h — where the export may write its temporary repository.
 *
 * The export builds the patch in a throwaway git repository (patch.h) that
 * holds every changed file.  After the disk guard stopped a run at the state
 * filesystem's reserve, building it there would eat the reserve and fail
 * half-way.  So it goes where the reserve is kept (diskguard.h fs_room_fits):
 * the session's directory, else a private directory in $TMPDIR (default /tmp),
 * else nowhere, and the export fails at once with one line, the session left
 * as it is. */
#ifndef JAIL_SCRATCHROOM_H
#define JAIL_SCRATCHROOM_H
#include "util.h"

/* About what building `bytes` of changed files takes on disk (both sides,
 * git's files), for scratch_place(). */
unsigned long long scratch_estimate(unsigned long long bytes, size_t files);

/* The parent directory for the temporary repository (malloc'd in *out);
 * *own: a directory made for it, which scratch_unplace() removes.  For a live
 * read (live_root: the project's state dir) that finds no room in its place,
 * the fallback in TMPDIR is a place of the project's there, held as *hold is
 * (-1: none), so that one a killed read left goes with the next read too. */
int scratch_place(const char *session_dir, const char *live_root, unsigned long long need,
                  char **out, bool *own, int *hold, struct jail_err *e) WUR;
void scratch_unplace(char *dir, bool own, int hold);
/* Remove what an export of the session, killed, left in its TMPDIR dir, and
 * the dir (the session is locked: `jail reset`, `rm`, an export with room
 * beside the session). */
void scratch_tmp_remove(const char *session_dir);

/* A live read's own place (`jail status`/`jail diff` of a running session,
 * whose run exports into the session dir when it ends): `.live.XXXXXX` in the
 * project's state dir, locked (flock) by the read for as long as *hold, its
 * fd, is open.  A read killed on the way (`jail diff | head` ends by SIGPIPE,
 * ^C) leaves its place behind, as large as the agent made its change: each new
 * one first removes the places no read holds.  NULL on error. */
char *live_place_make(const char *project_root, int *hold, struct jail_err *e);
/* Remove the live places no read holds, in the project's state dir and in
 * TMPDIR (`jail rm` of a project's last session). */
void live_places_sweep(const char *project_root);

/* Does `bytes` more fit below dir with the reserve kept?  (An unknown answer
 * counts as yes: the write itself then reports.) */
bool room_for(const char *dir, unsigned long long bytes);
#endif
