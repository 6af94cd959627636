/* session.h — a project's session state on the host.
 *
 *   ${XDG_STATE_HOME:-~/.local/state}/jail/<project>-<hash8>/<session>/
 *       upper/ work/   overlay upper and work dirs
 *       home/          persistent fake home (when the policy asks for one)
 *       meta           project path, base commit, created, last run
 *       lock           one running jail per session (flock)
 *       patches/       the last export
 *       placeholders   brokered secrets' placeholders, kept across runs (secrets.c)
 */
#ifndef JAIL_SESSION_H
#define JAIL_SESSION_H

#include "util.h"

struct session {
	char *project;      /* realpath of the project directory */
	char *name;         /* session name */
	char *project_root; /* state dir of the project (holds all its sessions) */
	char *dir;          /* state dir of this session */
	char *upper, *work, *home, *patches;
	int lockfd;         /* -1 until session_lock() */
};

/* Check the name: letters, digits, '.', '_', '-', not starting with '.', <= 64. */
int session_name_check(const char *name, struct jail_err *e) WUR;
/* Resolve and validate the project directory, derive the state paths.  Creates
 * nothing. */
int session_resolve(struct session *s, const char *project, const char *name,
                    struct jail_err *e) WUR;
/* Create the session's directories (mode 0700) and check the filesystem can hold
 * an overlay upper dir. */
int session_create(struct session *s, struct jail_err *e) WUR;
/* Take the session's lock without waiting; a session in use is an error that
 * names the holder. */
int session_lock(struct session *s, struct jail_err *e) WUR;
/* The pid of the run's project view server (hidefs.h), which holds the lock
 * until the jail's mounts are gone: a run that finds the lock so held waits. */
void session_lock_note_server(const struct session *s, pid_t server);
/* Read one key of the meta file; NULL when absent. */
char *session_meta_get(const struct session *s, const char *key);
/* Set keys in the meta file (written atomically).  pairs: key, value, ..., NULL. */
int session_meta_set(const struct session *s, struct jail_err *e, ...) WUR;
/* Remove the session's state (it must be locked). */
int session_remove(struct session *s, struct jail_err *e) WUR;
/* Remove the session's whole directory (it must be locked), the lock last. */
int session_remove_all(struct session *s, struct jail_err *e) WUR;
void session_free(struct session *s);
/* Write the session's changes to disk: the jail's overlay skips syncs
 * (plan.h), so a run that changed the session ends with this.  A failure is
 * a warning: the changes are in the page cache, on disk later. */
void session_sync(const struct session *s);

/* The state root: ${XDG_STATE_HOME:-~/.local/state}/jail */
char *state_root(void);
/* state_root() with the symlinks of its existing part resolved (what init reads
 * through the old root). */
char *state_root_resolved(void);

#endif
