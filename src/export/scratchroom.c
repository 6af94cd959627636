/* scratchroom.c — see scratchroom.h. */
#include "scratchroom.h"

#include "diskguard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
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

/* Remove the live places in root that no read holds (root is locked). */
static void live_places_collect(int root)
{
	DIR *d = opendir_at(root, ".");
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, ".live.", 6) != 0)
			continue;
		_cleanup_close_ int fd =
			openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0)
			continue; /* a read of now (or not a directory: not ours to remove) */
		struct jail_err ignored;
		(void)!rm_rf_at(dirfd(d), de->d_name, &ignored);
	}
	closedir(d);
}

/* The project's state dir, locked: a place is never seen made and not yet held. */
static int lock_project_root(const char *project_root)
{
	int root = open(project_root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (root >= 0 && flock(root, LOCK_EX) < 0) {
		int err = errno;
		close(root);
		errno = err;
		return -1;
	}
	return root;
}

void live_places_sweep(const char *project_root)
{
	_cleanup_close_ int root = lock_project_root(project_root);
	if (root >= 0)
		live_places_collect(root);
}

char *live_place_make(const char *project_root, int *hold, struct jail_err *e)
{
	*hold = -1;
	_cleanup_close_ int root = lock_project_root(project_root);
	if (root < 0) {
		jail_err_sys(e, "open '%s'", project_root);
		return NULL;
	}
	live_places_collect(root);
	char *dir = xasprintf("%s/.live.XXXXXX", project_root);
	int fd = mkdtemp(dir) ? open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		jail_err_sys(e, "create '%s'", dir);
		if (fd >= 0) {
			close(fd);
			rmdir(dir);
		}
		free(dir);
		return NULL;
	}
	*hold = fd;
	return dir;
}
