/* gitlink.c — see gitlink.h. */
#include "gitlink.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

char *gitlink_parse(const char *text)
{
	if (strncmp(text, "gitdir:", 7) != 0)
		return NULL;
	const char *p = text + 7;
	p += strspn(p, " \t");
	size_t n = strcspn(p, "\r\n");
	if (n == 0 || p[n + strspn(p + n, "\r\n")] != '\0')
		return NULL;  /* one line only */
	return strndup(p, n);
}

/* PATH relative to base (a directory) unless absolute, made canonical. */
static char *resolve_from(const char *base, const char *path)
{
	_cleanup_free_ char *joined = path[0] == '/' ? xstrdup(path) : xasprintf("%s/%s", base, path);
	return realpath(joined, NULL);
}

static int read_small(const char *path, char **out, struct jail_err *e)
{
	return read_file_at(AT_FDCWD, path, 4096, out, NULL, e);
}

/* The worktree's commondir file, or the git dir itself when it has none. */
static char *find_common(const char *git_dir)
{
	_cleanup_free_ char *path = xasprintf("%s/commondir", git_dir), *text = NULL;
	struct jail_err ignored;
	if (read_small(path, &text, &ignored) < 0)
		return xstrdup(git_dir);
	text[strcspn(text, "\r\n")] = '\0';
	return resolve_from(git_dir, text);
}

/* git worktree add writes <common>/worktrees/NAME/gitdir naming the worktree's
 * .git file: a directory there that points back at this project is one. */
static bool confirmed_worktree(const struct gitlink *g, const char *dotgit)
{
	_cleanup_free_ char *parent = xasprintf("%s/worktrees", g->common_dir);
	size_t n = strlen(parent);
	if (strncmp(g->git_dir, parent, n) != 0 || g->git_dir[n] != '/' ||
	    strchr(g->git_dir + n + 1, '/') || !g->git_dir[n + 1])
		return false;
	_cleanup_free_ char *path = xasprintf("%s/gitdir", g->git_dir), *text = NULL;
	struct jail_err ignored;
	if (read_small(path, &text, &ignored) < 0)
		return false;
	text[strcspn(text, "\r\n")] = '\0';
	_cleanup_free_ char *back = resolve_from(g->git_dir, text);
	_cleanup_free_ char *self = realpath(dotgit, NULL);
	return back && self && strcmp(back, self) == 0;
}

int gitlink_read(const char *project, struct gitlink *g, struct jail_err *e)
{
	memset(g, 0, sizeof(*g));
	_cleanup_free_ char *dotgit = xasprintf("%s/.git", project);
	struct stat st;
	if (lstat(dotgit, &st) < 0)
		return 1;
	if (S_ISDIR(st.st_mode)) {
		g->git_dir = realpath(dotgit, NULL);
		g->common_dir = g->git_dir ? xstrdup(g->git_dir) : NULL;
		return g->git_dir ? 0 : jail_err_sys(e, "resolve '%s'", dotgit);
	}
	if (!S_ISREG(st.st_mode))
		return 1;
	_cleanup_free_ char *text = NULL;
	if (read_small(dotgit, &text, e) < 0)
		return -1;
	_cleanup_free_ char *target = gitlink_parse(text);
	_cleanup_free_ char *esc = escape_name(dotgit);
	if (!target)
		return jail_err_set(e, 0, "'%s' is not a \"gitdir: PATH\" file", esc);
	g->git_dir = resolve_from(project, target);
	if (!g->git_dir)
		return jail_err_sys(e, "the git dir '%s' names", esc);
	g->common_dir = find_common(g->git_dir);
	if (!g->common_dir) {
		gitlink_free(g);
		return jail_err_sys(e, "the common dir of the git dir '%s' names", esc);
	}
	g->linked = true;
	g->worktree = confirmed_worktree(g, dotgit);
	return 0;
}

void gitlink_free(struct gitlink *g)
{
	free(g->git_dir);
	free(g->common_dir);
	memset(g, 0, sizeof(*g));
}
