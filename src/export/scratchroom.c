/* scratchroom.c — see scratchroom.h. */
#include "scratchroom.h"

#include "diskguard.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#define SCRATCH_INODES 64        /* a bare repository, a pack, refs */
#define SCRATCH_SLACK (1ULL << 20)

unsigned long long scratch_estimate(unsigned long long bytes, size_t files)
{
	/* old and new side uncompressed, at worst, plus git's bookkeeping */
	return 2 * bytes + (unsigned long long)files * 256 + SCRATCH_SLACK;
}

bool room_for(const char *dir, unsigned long long bytes)
{
	struct fs_room r;
	return fs_room_of(dir, &r) < 0 || fs_room_fits(&r, bytes, SCRATCH_INODES);
}

/* $TMPDIR/jail-export-UID-HASH: the session's own, never shared with another
 * session's export (each removes stale scratch dirs in its parent). */
static int private_tmp(const char *session_dir, char **out, struct jail_err *e)
{
	const char *t = getenv("TMPDIR");
	char hex[65];
	sha256_hex(session_dir, strlen(session_dir), hex);
	char *dir = xasprintf("%s/jail-export-%u-%.12s", t && t[0] == '/' ? t : "/tmp",
	                      (unsigned)getuid(), hex);
	struct stat st;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		jail_err_sys(e, "create '%s'", dir);
		free(dir);
		return -1;
	}
	/* made by someone else in a shared /tmp: not ours to write in */
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 077)) {
		jail_err_set(e, 0, "'%s' is not a private directory of yours; remove it or set "
		                   "TMPDIR", dir);
		free(dir);
		return -1;
	}
	*out = dir;
	return 0;
}

int scratch_place(const char *session_dir, unsigned long long need, char **out, bool *own,
                  struct jail_err *e)
{
	*own = false;
	if (room_for(session_dir, need)) {
		*out = xstrdup(session_dir);
		return 0;
	}
	char *tmp = NULL;
	struct jail_err te;
	if (private_tmp(session_dir, &tmp, &te) == 0 && room_for(tmp, need)) {
		*out = tmp;
		*own = true;
		return 0;
	}
	if (tmp)
		rmdir(tmp);
	free(tmp);
	const char *t = getenv("TMPDIR");
	return jail_err_set(e, ENOSPC,
	                    "not enough free space for the export's temporary repository "
	                    "(about %llu MiB) on the filesystem of %s or in %s without going "
	                    "below their reserve; free some space (or set TMPDIR to a roomier "
	                    "directory) and run it again, or jail reset the session",
	                    need >> 20, session_dir, t && t[0] == '/' ? t : "/tmp");
}

void scratch_unplace(char *dir, bool own)
{
	if (dir && own)
		rmdir(dir);  /* empty once the scratch repository is gone */
	free(dir);
}
