/* runstamp.h — what a run changed, without reading a file's content.
 *
 * After each end-of-run export the session keeps <session>/export.stamp: one
 * line per entry of the upper dir (escaped path, type, mode, size, mtime and
 * ctime in ns, inode) and a first line with the export settings and the
 * project's HEAD.  The next
 * run's stamp compared with it says which paths that run touched, and when
 * nothing was touched the export (and its summary) is skipped: a session of
 * 100,000 changed files costs one metadata walk, not a new patch, per run. */
#ifndef JAIL_RUNSTAMP_H
#define JAIL_RUNSTAMP_H
#include "config.h"

struct runstamp {
	struct strbuf arena;  /* the lines below, NUL-terminated, one allocation */
	char **lines;         /* sorted "path\tmeta" of the upper dir now */
	size_t n;
	char *settings;       /* the export settings line */
	bool had_previous;    /* an earlier stamp was there */
	bool unchanged;       /* ... and equals this one */
	bool truncated;       /* the upper dir holds more entries than a stamp keeps */
	struct strv touched;  /* escaped paths that differ from the earlier stamp, sorted */
};

/* Walk the upper dir and compare with the stamp the last export left.  host:
 * what else makes a new export worth it (the project's HEAD), or NULL. */
int runstamp_take(struct runstamp *r, const char *session_dir, const struct jail_config *cfg,
                  const char *host, struct jail_err *e) WUR;
/* What of the host makes a new export worth it: the project's HEAD, read as
 * file stamps of its git dir (no git process on the common path), or from
 * `git rev-parse` when the project has no .git directory of its own.  NULL
 * outside git. */
char *runstamp_host(const char *project);
/* Keep it for the next run (after a successful export). */
int runstamp_save(const struct runstamp *r, const char *session_dir, struct jail_err *e) WUR;
void runstamp_free(struct runstamp *r);
/* Did this run touch path (escaped, as escape_name gives it)? */
bool runstamp_touched(const struct runstamp *r, const char *escaped_path);
#endif
