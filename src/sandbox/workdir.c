/* workdir.c — the overlay's work/work set aside and removed beside the
 * start (workdir.h). */
#include "workdir.h"

#include "log.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Beside "work" in the overlay's work dir: overlayfs uses only "work" (and
 * "index", with an option jail does not set). */
#define ASIDE "work.old"

struct workdir_sweep {
	char *work; /* opened again for the removal: init inherits no fd of it */
};

static bool rename_aside(int dir)
{
	return renameat2(dir, "work", dir, ASIDE, RENAME_NOREPLACE) == 0 || errno == ENOENT;
}

/* work/work moved aside; an earlier run's, still there (it failed before
 * GO), is removed first, and work/work itself when it cannot be moved: both
 * on the start's path, and rare.  True when work/work is gone. */
static bool move_aside(int dir)
{
	if (rename_aside(dir))
		return true;
	struct jail_err e = {0};
	if (errno == EEXIST && rm_rf_at(dir, ASIDE, &e) == 0 && rename_aside(dir))
		return true;
	return rm_rf_at(dir, "work", &e) == 0;
}

struct workdir_sweep *workdir_set_aside(const char *work, bool *fresh)
{
	*fresh = false;
	_cleanup_close_ int dir = open(work, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0)
		return NULL;
	*fresh = move_aside(dir);
	struct stat st;
	if (fstatat(dir, ASIDE, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return NULL;
	struct workdir_sweep *s = xcalloc(1, sizeof(*s));
	s->work = xstrdup(work);
	return s;
}

/* Remove `names` (each may be absent) from the work dir; what cannot be
 * removed is left for the next run: the overlay does not look at work.old,
 * and a work/work left is set aside at the next start. */
static void remove_in(const char *work, const char *const *names, size_t n)
{
	_cleanup_close_ int dir = open(work, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0) {
		log_debug("workdir: open the work dir: %s", strerror(errno));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct jail_err e = {0};
		if (rm_rf_at(dir, names[i], &e) < 0)
			log_debug("workdir: %s", e.msg);
	}
}

void workdir_remove_aside(const char *work)
{
	static const char *const aside[] = {ASIDE};
	remove_in(work, aside, 1);
}

void workdir_remove_all(const char *work)
{
	static const char *const both[] = {ASIDE, "work"};
	remove_in(work, both, ARRAY_SIZE(both));
}

void workdir_sweep(struct workdir_sweep *s)
{
	if (!s)
		return;
	workdir_remove_aside(s->work);
	workdir_sweep_free(s);
}

void workdir_sweep_free(struct workdir_sweep *s)
{
	if (!s)
		return;
	free(s->work);
	free(s);
}
