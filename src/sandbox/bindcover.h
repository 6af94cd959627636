/* bindcover.h — what a --ro or --rw inside the project shows of its hidden
 * files.
 *
 * The project is shown through the view (hidefs.h), which hides what it
 * ignores.  A bind of a directory inside it (--rw node_modules, --rw target:
 * build output the user keeps on purpose, all of it ignored) shows the host's
 * directory as it is, over the view: its ignored files are there, and a --rw
 * writes them on the host.  That much the user asked for, and is told at
 * start.  But hidden secrets stay hidden whatever shows their directory: below
 * such a bind, every path of a secret-shaped name (fs.secret_names, unless
 * hide_ignored = none) or one fs.hide names gets an empty read-only file or
 * directory mounted over it at start, unless --show names it (or a directory
 * above it); one fs.hide names, whatever --show says, as the view does.  The
 * tree is walked whatever the rules (every socket and FIFO below is covered:
 * livesock.h).  The path the user named itself is what the user named: it is
 * shown.  A secret the host creates there during the run is not covered
 * (README, Limitations).  A bind of the project itself would replace the
 * whole view: it is refused. */
#ifndef JAIL_BINDCOVER_H
#define JAIL_BINDCOVER_H
#include "config.h"

/* The supervisor, before the jail starts: refuse a --ro or --rw of the
 * project itself (`project`, resolved), and say in one line what each one
 * inside it does. */
int bindcover_check(const struct jail_config *cfg, const char *project,
                    struct jail_err *e) WUR;

/* Entries looked at below such binds in all, covers made, and depth: a walk
 * that would go past one fails the start (fail closed), naming the bind and
 * how to narrow it.  100,000 entries (a large node_modules) take about
 * 0.1-0.2 s to look through with a warm cache. */
#define BINDCOVER_ENTRIES_MAX 400000u
#define BINDCOVER_COVERS_MAX 4096u
#define BINDCOVER_DEPTH_MAX 128

/* init, in the scratch root while the new root is built: cover what the
 * bound tree `top` (a directory fd of the bind's top in the jail; walked
 * fd-relative, never following a link) shows of hidden paths.  `rel`: the
 * top's path relative to the project ("" for the project itself); `rw`: a
 * --rw, where the agent can move the host's files: then the directories
 * between the top and each cover are pinned (bound onto themselves), so that
 * none moves a secret to where the next start would not cover it; `what`:
 * the flag and path, for messages.  The counts go across calls. */
struct bindcover_count {
	size_t entries, covers;
};
int bindcover_walk(const struct jail_config *cfg, int top, const char *rel, bool rw,
                   const char *what, struct bindcover_count *count, struct jail_err *e) WUR;

/* init, in the scratch root: the empty read-only file covers are binds of
 * (made on first use), or NULL with e filled. */
const char *bindcover_file(struct jail_err *e);
#endif
