/* plan.h — everything the supervisor works out on the host before the clone.
 *
 * Parse first, then execute: the supervisor fills a struct jail_plan from the
 * policy, the session and the host; init (a copy of the supervisor's memory after
 * clone) only carries it out.  Nothing in here is read from the jail. */
#ifndef JAIL_PLAN_H
#define JAIL_PLAN_H
#include "config.h"
#include "session.h"

#include <sys/ioctl.h>

struct hidefs;
struct broker;

struct secret_file {
	char *path;     /* relative to the fake home */
	char *content;
	size_t len;
};

struct jail_plan {
	const struct jail_config *cfg;
	struct session *session;
	uid_t uid;
	gid_t gid;
	char *user;           /* login name */
	char *home;           /* $HOME inside the jail (the caller's home path) */
	char *home_real;      /* the real home, resolved on the host (NULL when absent):
	                       * covered wherever a bind would show it (cover.h) */
	char *shell;          /* a shell that exists inside */
	char *cwd;            /* working directory inside the jail */
	struct strv env;      /* the command's whole environment, NAME=VALUE */
	struct secret_file *secret_files;
	size_t n_secret_files;
	struct broker *broker;  /* brokered secrets (broker.h), or NULL */
	bool use_pty;         /* one of 0, 1, 2 is a terminal */
	int tty_fds[3];       /* which of 0, 1, 2 the pty slave replaces (1 = yes) */
	struct winsize winsize; /* the host terminal's, for the pty before the command
	                         * starts (the relay follows changes after); 0x0: unknown */
	/* A linked worktree: its repository's common git dir (objects, refs, the
	 * worktree's own index under worktrees/NAME) overlaid at its own path, with
	 * the session's second upper/work pair; all NULL otherwise. */
	char *gitdir_lower, *gitdir_upper, *gitdir_work;
	char *notfound_hint;  /* where the command is on the host, if the jail lacks it */
	char *state_root;     /* jail's state directory, resolved: hidden inside when a
	                       * bind (--ro ~/.local) would show it */
	char *state_root_named; /* the same as $HOME or $XDG_STATE_HOME spell it, when
	                         * a symlink makes that another path in the jail */
	char *config_root;    /* jail's config dir (jail.ini, policies, trust records),
	                       * resolved: hidden inside like the state dir */
	char *config_root_named; /* as $HOME or $XDG_CONFIG_HOME spell it, when other */
	/* The project's filtered view under the overlay (hidefs.h); NULL with
	 * fs.hide_start_only.  Set by the caller of plan_build. */
	struct hidefs *hidefs;
	/* The host's snapshot of the jail's /etc to bind (etcsnap.h), or NULL: the
	 * pieces are copied; etc_binds: what is bound over the snapshot. */
	char *etc_snapshot;
	struct strv etc_binds;
	int etc_snapshot_fd;  /* the snapshot's directory, held (etcsnap.h); or -1 */
	/* The project's overlay skips every sync of the upper filesystem: with
	 * syncs, its unmount at the jail's end waited for all of that
	 * filesystem's dirty data, the host's own included (0.2-0.8 s behind a
	 * big write on the host).  Set by sandbox_run when the last run's
	 * work/work is gone (workdir.h); a run that changed the session syncs it
	 * after the export (run.c). */
	bool overlay_volatile;
	/* Paths in the jail where a --ro or --rw bind shows a live socket of the
	 * host's that the user did not bind itself: covered (livesock.h). */
	struct strv sock_covers;
	struct strv sock_hosts; /* the same sockets' paths on the host */
	/* The directories between a --rw and such a socket below it, in the
	 * jail, outermost first: pinned, so that the agent cannot move them. */
	struct strv sock_pins;
};

/* Fill the plan from the configuration, the session and the caller. */
int plan_build(struct jail_plan *p, const struct jail_config *cfg, struct session *s,
               struct jail_err *e) WUR;
void plan_free(struct jail_plan *p);
/* The --rw bind that holds host path `path` (the bind as named or resolved),
 * or NULL (and for a NULL path). */
const char *plan_rw_bind_holding(const struct jail_plan *p, const char *path);
#endif
