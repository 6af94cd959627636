/* hidefs.h — the project as the jail's overlay sees it from below.
 *
 * A small FUSE file system, served on the host side by a child of the
 * supervisor, that shows the project read-only through the names of a
 * hidetree (the entries visible at start): the overlay's lower layer can then
 * never show a name that appears on the host during the run.  The server reads
 * the project only below one directory fd (openat2 RESOLVE_BENEATH, no
 * symlinks, no other mounts), passes no extended attributes (so no host
 * overlay xattr reaches the overlay), and dies with the supervisor.
 *
 *   supervisor: hidefs_fork() forks the server with one end of a socketpair
 *   server:     builds the tree (h->build: walk, git, hidden names dropped,
 *               caches written) in its main thread, meanwhile
 *   init:       hidefs_mount() opens /dev/fuse in the jail's user namespace,
 *               mounts it, and hands the fd to the server over the other end
 *   init:       the overlay's lowerdir is the FUSE mount; the command starts
 *   server:     answers only INIT, STATFS, DESTROY and the root's GETATTR
 *               until the tree is final; every other request waits (hidefs.c
 *               early_ok, the one gate); a failed build ends the server
 *
 * Why a file server and not a kernel mechanism alone: overlayfs cannot
 * intersect name sets, and whiteouts name exact paths; with userxattr (the
 * unprivileged overlay) metacopy and redirects are off, so data-only lower
 * layers are out; a bind mount per file is static and runs into mount limits;
 * a hard-link farm changes the host files' ctime (git's index sees every file
 * changed); Landlock cannot tell a file the host adds from one the agent adds
 * in the same directory; seccomp cannot filter what getdents returns.  A view
 * whose node ids are fixed at start is race-free by construction: no window
 * exists in which a new name could be reached. */
#ifndef JAIL_HIDEFS_H
#define JAIL_HIDEFS_H
#include "hidetree.h"

#include <sys/types.h>

/* Cache lifetimes handed to the kernel (seconds).  Attributes are re-checked
 * after ATTR: a host edit shows within that time (the page cache is dropped on
 * every open, so content read after an open is current).  A node stands for a
 * path, not an inode, so a name found is kept for ENTRY (a file the host
 * replaces is the same node with new attributes; one it deletes fails with
 * ENOENT at the next attribute check).  Names that were not there at start can
 * never appear: their absence is cached for NEG. */
#define HIDEFS_ATTR_TIMEOUT 1.0
#define HIDEFS_NEG_TIMEOUT 86400.0
#define HIDEFS_ENTRY_TIMEOUT 60.0

/* Builds the view's tree in the server (hidefs_fork): the walk, git's
 * answer, the hidden names dropped, the caches written.  Returns the final
 * tree, in *ignored what the after-run hint counts, and in `from_upper` the
 * paths the view shows from the session's upper dir (h->upper) instead of
 * the project: redacted git configs written while the overlay was mounted
 * (the overlay may not see them), and in `withheld` the git objects that
 * hold a hidden file's content (hideobj.h), sorted; -1 with a message. */
typedef int hidefs_build_fn(void *ctx, int project_fd, struct hide_node **tree,
                            size_t *ignored, struct strv *from_upper, struct strv *withheld,
                            struct jail_err *e);

struct hidefs {
	pid_t pid;              /* the server */
	int jail_sock;          /* init's end: it sends the mounted /dev/fuse fd here */
	int server_sock;        /* the server's end, until it is forked */
	int project_fd;         /* the project, O_DIRECTORY */
	int lock_fd;            /* the session's lock: the server holds it too (below) */
	hidefs_build_fn *build; /* run by the server, beside the jail's start */
	const char *upper;      /* the session's upper dir (from_upper above) */
	const char *work;       /* the overlay's work dir: what the start set aside there
	                         * (workdir.h) the server removes once the overlay is
	                         * gone, off the start's path */
	void *build_ctx;
	/* secret-shaped names ([fs] secret_names), or NULL: a git directory is
	 * shown as the host has it ("live", hidetree.h), and no ignore rule
	 * reaches in there, but a file or directory of such a name in it (a
	 * per-repository credential store, `store --file=.git/.git-credentials`
	 * or `.git/credentials/store`) is not git's own: it is not shown.  (Not
	 * below refs/ or logs/: a ref is named as the user likes; nor below
	 * objects/, whose names are ids; nor a submodule's or a worktree's git
	 * dir in modules/ or worktrees/.) */
	const struct strv *live_secret_names;
	int built_fd;           /* the server says here when its tree is final */
	int built;              /* 0 not yet known, 1 final, -1 failed (server gone) */
	bool finish;            /* a server still building at the end finishes (cold caches) */
	size_t ignored;         /* from the server, once final */
	bool outlived;          /* init said the jail was done but was not waited for */
};

/* Can this user open /dev/fuse?  0, or -1 with a message naming the fix. */
int hidefs_usable(struct jail_err *e) WUR;

/* Before the clone: the socket between init and the server (init inherits
 * both ends).  h->project_fd and h->build are the caller's, set before. */
int hidefs_prepare(struct hidefs *h, struct jail_err *e) WUR;
/* Fork the server, which builds the tree (h->build) while the jail starts
 * and answers no request that could show a name or content until the tree is
 * final (hidefs.c, early_ok): before the clone (it then starts while the namespaces are
 * made), or, with cgroup limits, once the supervisor sits in its final cgroup
 * (the server follows it there). */
int hidefs_fork(struct hidefs *h, struct jail_err *e) WUR;
/* Kill and reap the server, unless its tree is not final yet and h->finish
 * (there was no walk cache): then it is left to finish (and write the
 * caches, so the next start is warm) and end by itself, as below; close what
 * is left open.  (A warm build is cut short: the caches stand.)  When the
 * jail's init was not waited for (h->outlived: its exit is still taking the
 * namespaces down), the server is left to end by itself: its FUSE connection
 * ends when the jail's overlay (which holds the view) is gone, and with the
 * server goes its copy of the session's lock, so the session's next run waits
 * for that teardown (its pid is in the lock file: session_lock_note_server)
 * rather than mount an overlay on an upper dir the old one still holds. */
void hidefs_stop(struct hidefs *h);
/* Whether the server's tree is final: 1, -1 when its build failed (it said
 * why on stderr and ended: the jail saw nothing of the project), 0 not yet
 * (only when !wait).  After hidefs_stop too: a server still building is not
 * killed but finishes (caches written) holding the session's lock. */
int hidefs_built(struct hidefs *h, bool wait);

/* In init, before the overlay: mount the view at `at` (`dev_fuse` is the path
 * of /dev/fuse as init sees it) and pass the fd to the server over `sock`. */
int hidefs_mount(int sock, const char *dev_fuse, const char *at, uid_t uid, gid_t gid,
                 struct jail_err *e) WUR;
#endif
