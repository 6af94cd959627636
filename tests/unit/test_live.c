/* Unit tests: pathspec.c, the shell quoting and number format of hints.c, and
 * live.c's count of a session's changes. */
#include "hints.h"
#include "live.h"
#include "pathspec.h"
#include "t.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

T(pathspec_matches_files_dirs_and_globs)
{
	struct strv specs = {0};
	CHECK(pathspec_match(&specs, "anything"));
	strv_push(&specs, "src");
	CHECK(pathspec_match(&specs, "src"));
	CHECK(pathspec_match(&specs, "src/a.c"));
	CHECK(!pathspec_match(&specs, "srcx/a.c"));
	CHECK(!pathspec_match(&specs, "README"));
	strv_push(&specs, "*.md");
	CHECK(pathspec_match(&specs, "docs/x.md"));
	strv_free(&specs);
	strv_push(&specs, "");
	CHECK(pathspec_match(&specs, "whole/project"));
	strv_free(&specs);
}

T(pathspec_paths_stay_in_the_project)
{
	struct session s = {.project = (char *)"/nonexistent-project"};
	struct jail_err e;
	char *p = pathspec_project_path(&s, "/nonexistent-project/a/../b/./c", &e);
	CHECK_STR(p, "b/c");
	free(p);
	CHECK(pathspec_project_path(&s, "/nonexistent-project/../etc/passwd", &e) == NULL);
	CHECK(pathspec_project_path(&s, "/elsewhere/x", &e) == NULL);
	CHECK(pathspec_project_path(&s, "../x", &e) == NULL);
	p = pathspec_project_path(&s, "/nonexistent-project", &e);
	CHECK_STR(p, "");
	free(p);
}

T(shell_quote_and_thousands)
{
	char *q = hint_shell_quote("/tmp/plain-path_1.patch");
	CHECK_STR(q, "/tmp/plain-path_1.patch");
	free(q);
	q = hint_shell_quote("/tmp/my project");
	CHECK_STR(q, "'/tmp/my project'");
	free(q);
	q = hint_shell_quote("it's");
	CHECK_STR(q, "'it'\\''s'");
	free(q);
	q = hint_shell_quote("a$(x)");
	CHECK_STR(q, "'a$(x)'");
	free(q);
	CHECK_STR(thousands(0).s, "0");
	CHECK_STR(thousands(999).s, "999");
	CHECK_STR(thousands(99950).s, "99,950");
	CHECK_STR(thousands(1234567).s, "1,234,567");
}

/* The CHANGED count of jail ps and list: files, not directories, and every
 * entry looked at counts against the cap, so empty directories cannot make
 * it slow; a budget spent on directories alone is still a change. */
T(changed_count_caps_directories_too)
{
	char tmpl[] = "/tmp/jail-live-test.XXXXXX";
	char *dir = mkdtemp(tmpl);
	CHECK(dir != NULL);
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/upper", dir);
	CHECK(mkdir(path, 0700) == 0);
	for (int i = 0; i < 50; i++) {
		snprintf(path, sizeof(path), "%s/upper/d%02d", dir, i);
		CHECK(mkdir(path, 0700) == 0);
	}
	CHECK(live_changed_files(dir, 1000) == 0);
	CHECK(live_changed_files(dir, 10) == 1);
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/upper/d%02d/f", dir, i);
		int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		CHECK(fd >= 0);
		close(fd);
	}
	CHECK(live_changed_files(dir, 1000) == 3);
	struct jail_err e;
	CHECK(rm_rf_at(AT_FDCWD, dir, &e) == 0);
}
