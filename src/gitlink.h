/* gitlink.h — where a project's git directory lives when `.git` is a file.
 *
 * A linked worktree (`git worktree add`) has a `.git` file, "gitdir: PATH",
 * naming <main>/.git/worktrees/NAME; that directory's `commondir` names the main
 * repository's .git, which holds the objects, refs and config every worktree
 * shares.  The jail overlays that common directory at its own path so git works
 * inside, and the ignore cache stamps the worktree's own index.  Only the host's
 * real project dir is read here, never the upper dir. */
#ifndef JAIL_GITLINK_H
#define JAIL_GITLINK_H
#include "util.h"

struct gitlink {
	char *git_dir;     /* absolute, canonical: <main>/.git/worktrees/NAME (or .git) */
	char *common_dir;  /* absolute, canonical: <main>/.git */
	bool linked;       /* .git is a file: git_dir lies outside the project */
	bool worktree;     /* linked, and git_dir is <common_dir>/worktrees/NAME whose
	                    * gitdir file points back at this project's .git */
};

/* Read <project>/.git.  The .git file is only a claim (an unpacked archive can
 * hold one naming any directory): .worktree says whether the repository
 * confirms it.   Returns 0 and fills *g when the project's root holds a
 * .git directory or a readable gitdir file, 1 when it has no .git (not a
 * repository root), -1 on a malformed gitdir file. */
int gitlink_read(const char *project, struct gitlink *g, struct jail_err *e) WUR;
/* Parse the text of a .git file ("gitdir: PATH\n"); the path, or NULL. */
char *gitlink_parse(const char *text);
void gitlink_free(struct gitlink *g);
#endif
