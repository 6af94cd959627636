/* homelinks.c — see homelinks.h. */
#include "homelinks.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HOME_WHY "your home links to it: your shell, editor, git or ssh reads it on its own"
#define ENTRIES_MAX 10000  /* of one directory of the home: a home is not a tree walk */

/* Flag the included changes at rel or below it (rel: a path of the project),
 * each with the name name/... it has in the home. */
static void flag_below(struct changeset *cs, const char *rel, const char *name)
{
	size_t rl = strlen(rel);
	for (size_t i = 0; i < cs->n; i++) {
		struct change *c = &cs->v[i];
		if (c->reason || strncmp(c->path, rel, rl) != 0 || (c->path[rl] && c->path[rl] != '/'))
			continue;
		c->flags |= CF_REVIEW;
		if (!c->flag_why)
			c->flag_why = HOME_WHY;
		_cleanup_free_ char *esc = escape_name(name);
		_cleanup_free_ char *below = escape_name(c->path + rl);
		struct strbuf note = {0};
		sb_printf(&note, "%sread as %s%s through your home's symlink\n", c->note ? c->note : "",
		          esc, below);
		free(c->note);
		c->note = sb_steal(&note);
	}
}

/* Where the link name in dir (dirfd dfd) leads, resolved, into real; a link
 * whose last name does not exist yet counts too (~/.zshrc -> dotfiles/zshrc
 * before the agent adds it: the next shell reads what lands there). */
static bool link_real(int dfd, const char *dir, const char *name, char real[PATH_MAX])
{
	_cleanup_free_ char *link = xasprintf("%s/%s", dir, name);
	if (realpath(link, real))
		return true;
	char target[PATH_MAX];
	ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	_cleanup_free_ char *abs = target[0] == '/' ? xstrdup(target) : xasprintf("%s/%s", dir, target);
	char *slash = strrchr(abs, '/'), parent[PATH_MAX];
	const char *base = slash + 1;
	*slash = '\0';
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..") || !realpath(*abs ? abs : "/", parent))
		return false;
	int w = snprintf(real, PATH_MAX, "%s/%s", strcmp(parent, "/") ? parent : "", base);
	return w > 0 && w < PATH_MAX;
}

/* The symlinks of one directory of the home (dir, shown as shown/) that lead
 * into the project (proj, resolved): their changes flagged.  dots_only: only
 * names that start with a dot (at the home's top, what runs on its own is a
 * dotfile; ~/notes -> src/app/notes is a shortcut). */
static void scan_dir(const char *dir, const char *shown, bool dots_only, const char *proj,
                     struct changeset *cs)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	size_t pl = strlen(proj), n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n++ < ENTRIES_MAX) {
		struct stat st;
		if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (dots_only && de->d_name[0] != '.')
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode))
			continue;
		char real[PATH_MAX];
		/* the project's root itself (~/dotfiles -> src/dotfiles) names no file */
		if (!link_real(dirfd(d), dir, de->d_name, real) || strncmp(real, proj, pl) != 0 ||
		    real[pl] != '/')
			continue;
		_cleanup_free_ char *name = xasprintf("~/%s%s", shown, de->d_name);
		flag_below(cs, real + pl + 1, name);
	}
	closedir(d);
}

void homelinks_review(const struct export_ctx *x, struct changeset *cs)
{
	const char *home = home_dir();
	char proj[PATH_MAX];
	if (!home || !changeset_included(cs) || !realpath(x->project, proj))
		return;
	static const char *const dirs[] = {"", ".config/", ".ssh/"};
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		_cleanup_free_ char *dir = xasprintf("%s/%s", home, dirs[i]);
		scan_dir(dir, dirs[i], i == 0, proj, cs);
	}
}
