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

/* $TMPDIR/jail-export-UID-HASH, HASH of key: the session's own, never shared
 * with another session's export (each removes stale scratch dirs in its
 * parent), or a project's, for its live reads (each in a place of its own). */
static char *tmp_path(const char *key)
{
	const char *t = getenv("TMPDIR");
	char hex[65];
	sha256_hex(key, strlen(key), hex);
	return xasprintf("%s/jail-export-%u-%.12s", t && t[0] == '/' ? t : "/tmp",
	                 (unsigned)getuid(), hex);
}

static int private_tmp(const char *key, char **out, struct jail_err *e)
{
	char *dir = tmp_path(key);
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

/* A private directory of ours at path, opened; else -1 (none, or another's). */
static int open_own(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_uid != getuid() || (st.st_mode & 077))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

void scratch_tmp_remove(const char *session_dir)
{
	_cleanup_free_ char *path = tmp_path(session_dir);
	_cleanup_close_ int dir = open_own(path);
	DIR *d = dir < 0 ? NULL : opendir_at(dir, ".");
	if (!d)
		return;
	struct dirent *de;
	struct jail_err ignored;
	while ((de = readdir(d)))
		if (strncmp(de->d_name, ".export.", 8) == 0)
			(void)!rm_rf_at(dirfd(d), de->d_name, &ignored);
	closedir(d);
	rmdir(path);
}

static int no_room(const char *dir, unsigned long long need, struct jail_err *e)
{
	const char *t = getenv("TMPDIR");
	return jail_err_set(e, ENOSPC,
	                    "not enough free space for the export's temporary repository "
	                    "(about %llu MiB) on the filesystem of %s or in %s without going "
	                    "below their reserve; free some space (or set TMPDIR to a roomier "
	                    "directory) and run it again, or jail reset the session",
	                    need >> 20, dir, t && t[0] == '/' ? t : "/tmp");
}

static char *place_make_in(int root, const char *root_path, int *hold, struct jail_err *e);
static int lock_dir(const char *path);

int scratch_place(const char *session_dir, const char *live_root, unsigned long long need,
                  char **out, bool *own, int *hold, struct jail_err *e)
{
	*own = false;
	*hold = -1;
	if (room_for(session_dir, need)) {
		/* what a killed export of the session left in TMPDIR goes now */
		if (!live_root)
			scratch_tmp_remove(session_dir);
		*out = xstrdup(session_dir);
		return 0;
	}
	char *tmp = NULL;
	struct jail_err te;
	if (private_tmp(live_root ? live_root : session_dir, &tmp, &te) == 0 && room_for(tmp, need)) {
		if (!live_root) {
			*out = tmp;
			*own = true;
			return 0;
		}
		/* a live read's: a place of its own, held, as beside the session */
		_cleanup_close_ int root = lock_dir(tmp);
		char *place = root < 0 ? NULL : place_make_in(root, tmp, hold, e);
		if (root < 0)
			jail_err_sys(e, "open '%s'", tmp);
		free(tmp);
		if (!place)
			return -1;
		*out = place;
		*own = true;
		return 0;
	}
	if (tmp && !live_root)
		rmdir(tmp);
	free(tmp);
	return no_room(session_dir, need, e);
}

void scratch_unplace(char *dir, bool own, int hold)
{
	if (dir && own)
		rmdir(dir);  /* empty once the scratch repository is gone */
	if (dir && hold >= 0)
		close(hold);
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

/* A directory of places, locked: a place is never seen made and not yet held. */
static int lock_dir(const char *path)
{
	int root = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (root >= 0 && flock(root, LOCK_EX) < 0) {
		int err = errno;
		close(root);
		errno = err;
		return -1;
	}
	return root;
}

/* The project's places in TMPDIR (live reads that found no room beside the
 * session), when that directory exists and is a private one of ours. */
static void sweep_tmp(const char *project_root)
{
	_cleanup_free_ char *path = tmp_path(project_root);
	_cleanup_close_ int root = open_own(path);
	if (root < 0 || flock(root, LOCK_EX) < 0)
		return;
	live_places_collect(root);
}

void live_places_sweep(const char *project_root)
{
	sweep_tmp(project_root);
	_cleanup_close_ int root = lock_dir(project_root);
	if (root >= 0)
		live_places_collect(root);
}

/* A new place below root (locked, at root_path): first the ones no read holds
 * go. */
static char *place_make_in(int root, const char *root_path, int *hold, struct jail_err *e)
{
	live_places_collect(root);
	char *dir = xasprintf("%s/.live.XXXXXX", root_path);
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

char *live_place_make(const char *project_root, int *hold, struct jail_err *e)
{
	*hold = -1;
	sweep_tmp(project_root);
	_cleanup_close_ int root = lock_dir(project_root);
	if (root < 0) {
		jail_err_sys(e, "open '%s'", project_root);
		return NULL;
	}
	return place_make_in(root, project_root, hold, e);
}
