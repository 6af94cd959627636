/* Unit tests: gitlink.c — the .git file of a linked worktree. */
#include "t.h"
#include "gitlink.h"

#include <fcntl.h>
#include <sys/stat.h>

T(parse_gitdir_line)
{
	char *p = gitlink_parse("gitdir: /r/.git/worktrees/wt\n");
	CHECK_STR(p, "/r/.git/worktrees/wt");
	free(p);
	p = gitlink_parse("gitdir:../x");
	CHECK_STR(p, "../x");
	free(p);
	CHECK(gitlink_parse("gitdir: \n") == NULL);
	CHECK(gitlink_parse("ref: refs/heads/main\n") == NULL);
	CHECK(gitlink_parse("gitdir: a\ngitdir: b\n") == NULL);
}

T(read_linked_worktree)
{
	char tmpl[] = "/tmp/test-gitlink.XXXXXX";
	CHECK(mkdtemp(tmpl) != NULL);
	struct jail_err e = {0};
	char *git = xasprintf("%s/main/.git/worktrees/wt", tmpl);
	char *wt = xasprintf("%s/wt", tmpl);
	CHECK(mkdir_p(git, 0700, &e) == 0 && mkdir_p(wt, 0700, &e) == 0);
	char *f = xasprintf("%s/.git", wt), *cd = xasprintf("%s/commondir", git);
	CHECK(write_file_at(AT_FDCWD, f, "gitdir: ../main/.git/worktrees/wt\n", 34, 0600, &e) == 0);
	CHECK(write_file_at(AT_FDCWD, cd, "../..\n", 6, 0600, &e) == 0);
	struct gitlink g;
	CHECK_INT(gitlink_read(wt, &g, &e), 0);
	CHECK(g.linked);
	CHECK(!g.worktree);  /* no gitdir file pointing back yet */
	CHECK_STR(g.git_dir, git);
	char *common = xasprintf("%s/main/.git", tmpl);
	CHECK_STR(g.common_dir, common);
	gitlink_free(&g);
	char *back = xasprintf("%s/gitdir", git), *back_text = xasprintf("%s\n", f);
	CHECK(write_file_at(AT_FDCWD, back, back_text, strlen(back_text), 0600, &e) == 0);
	CHECK_INT(gitlink_read(wt, &g, &e), 0);
	CHECK(g.worktree);
	gitlink_free(&g);
	/* a .git file naming any other directory is no worktree */
	char *forged = xasprintf("gitdir: %s/main/.git\n", tmpl);
	CHECK(write_file_at(AT_FDCWD, f, forged, strlen(forged), 0600, &e) == 0);
	CHECK_INT(gitlink_read(wt, &g, &e), 0);
	CHECK(g.linked && !g.worktree);
	gitlink_free(&g);
	free(back), free(back_text), free(forged);
	char *main_dir = xasprintf("%s/main", tmpl);
	CHECK_INT(gitlink_read(main_dir, &g, &e), 0);
	CHECK(!g.linked);
	CHECK_STR(g.common_dir, common);
	gitlink_free(&g);
	CHECK_INT(gitlink_read(tmpl, &g, &e), 1);
	CHECK(write_file_at(AT_FDCWD, f, "nonsense\n", 9, 0600, &e) == 0);
	CHECK_INT(gitlink_read(wt, &g, &e), -1);
	CHECK(rm_rf_at(AT_FDCWD, tmpl, &e) == 0);
	free(git), free(wt), free(f), free(cd), free(common), free(main_dir);
}
