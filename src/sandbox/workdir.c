/* workdir.c — the overlay's work/work set aside and removed beside the
 * start (workdir.h). */
#include "workdir.h"

#include "log.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>

/* Beside "work" in the overlay's work dir: overlayfs uses only "work" (and
 * "index", with an option jail does not set). */
#define ASIDE "work.old"

struct workdir_sweep {
	char *work; /* opened again for the removal: init inherits no fd of it */
};

struct workdir_sweep *workdir_set_aside(const char *work)
{
	_cleanup_close_ int dir = open(work, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0)
		return NULL;
	/* EEXIST: the last run's is still there (removed now, work/work next
	 * time); ENOENT: no mount since the session was made */
	struct stat st;
	if (renameat2(dir, "work", dir, ASIDE, RENAME_NOREPLACE) < 0 &&
	    fstatat(dir, ASIDE, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return NULL;
	struct workdir_sweep *s = xcalloc(1, sizeof(*s));
	s->work = xstrdup(work);
	return s;
}

void workdir_sweep(struct workdir_sweep *s)
{
	if (!s)
		return;
	struct jail_err e = {0};
	_cleanup_close_ int dir = open(s->work, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* left for the next run on failure: the overlay does not look at it */
	if (dir < 0 || rm_rf_at(dir, ASIDE, &e) < 0)
		log_debug("workdir: %s", dir < 0 ? "open the work dir" : e.msg);
	workdir_sweep_free(s);
}

void workdir_sweep_free(struct workdir_sweep *s)
{
	if (!s)
		return;
	free(s->work);
	free(s);
}
