/* submodule.c — see submodule.h. */
#include "submodule.h"

#include "git.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int submodule_list(const struct export_ctx *x, struct strv *out, struct jail_err *e)
{
	/* a repository's root without .gitmodules has no submodules: no index to
	 * read (a subdirectory's .gitmodules is at the root, so it always asks) */
	struct stat st;
	if (!*x->prefix && fstatat(x->project_fd, ".gitmodules", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	struct git g = {.cwd = x->project};
	const char *args[] = {"ls-files", "-s", "-z", NULL};
	struct strbuf b = {0};
	if (git_run(&g, args, NULL, 0, &b, NULL, e) < 0) {
		sb_free(&b);
		return -1;
	}
	/* records: "MODE OID STAGE\tPATH\0"; gitlinks have mode 160000 */
	for (size_t i = 0; b.s && i < b.len;) {
		const char *rec = b.s + i;
		i += strlen(rec) + 1;
		const char *tab = strchr(rec, '\t');
		if (tab && strncmp(rec, "160000 ", 7) == 0 && tab[1] && !strv_contains(out, tab + 1))
			strv_push(out, tab + 1);
	}
	sb_free(&b);
	if (out->n)
		qsort(out->v, out->n, sizeof(char *), cmp_str);
	return 0;
}

const char *submodule_of(const struct strv *subs, const char *path)
{
	for (size_t i = 0; i < subs->n; i++) {
		size_t n = strlen(subs->v[i]);
		if (strncmp(path, subs->v[i], n) == 0 && (path[n] == '/' || path[n] == '\0'))
			return subs->v[i];
	}
	return NULL;
}

/* Is the submodule checked out on the host (its .git, a file or a directory)? */
static bool initialised(const struct export_ctx *x, const char *sub)
{
	_cleanup_free_ char *dotgit = xasprintf("%s/.git", sub);
	struct stat st;
	return fstatat(x->project_fd, dotgit, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode));
}

/* Did the agent remove the submodule's directory, or put something else in its
 * place (a whiteout, a file, a symlink, a new directory: opaque)?  Then there is
 * no submodule in the session to export, only its replacement; nothing is
 * opened through what the agent put there. */
static bool replaced_in_session(const struct export_ctx *x, const char *sub)
{
	if (x->upper_fd < 0)
		return false;
	_cleanup_free_ char *p = xstrdup(sub);
	for (char *s = p;; s++) {
		s = strchr(s, '/');
		if (s)
			*s = '\0';
		_cleanup_close_ int fd = open_beneath(x->upper_fd, p, O_RDONLY | O_DIRECTORY);
		if (fd < 0)
			return errno != ENOENT;
		if (overlay_is_opaque(fd))
			return true;
		if (!s)
			return false;
		*s = '/';
	}
}

static int cmp_change_path(const void *a, const void *b)
{
	return strcmp(((const struct change *)a)->path, ((const struct change *)b)->path);
}

int submodule_split(struct export_ctx *x, struct changeset *cs, struct jail_err *e)
{
	struct strv subs = {0};
	if (submodule_list(x, &subs, e) < 0)
		return -1;
	size_t keep = 0;
	bool renamed = false;
	struct strv replaced = {0};  /* the replaced submodules that have their entry */
	for (size_t i = 0; i < cs->n; i++) {
		struct change *c = &cs->v[i];
		const char *sub = submodule_of(&subs, c->path);
		if (sub && replaced_in_session(x, sub)) {
			/* one entry for the submodule, whatever the agent did below it */
			if (strv_contains(&replaced, sub)) {
				free(c->path);
				free(c->reason);
				continue;
			}
			strv_push(&replaced, sub);
			renamed |= strcmp(sub, c->path) != 0;
			free(c->path);
			free(c->reason);
			c->path = xstrdup(sub);
			c->reason = NULL;
		}
		if (sub && strcmp(sub, c->path) != 0 && initialised(x, sub)) {
			if (!strv_contains(&x->submodules, sub))
				strv_push(&x->submodules, sub);
			free(c->path);  /* the submodule's own export carries it */
			free(c->reason);
			continue;
		}
		if (sub && !c->reason) {
			_cleanup_free_ char *esc = escape_name(sub);
			c->reason = strcmp(sub, c->path) == 0
			                ? xasprintf("the submodule '%s' itself: replacing or "
			                            "removing a submodule is not exported", esc)
			                : xasprintf("inside the submodule '%s', which is not "
			                            "initialised on the host", esc);
		}
		cs->v[keep++] = *c;
	}
	cs->n = keep;
	if (renamed)  /* "lib/a" became "lib": "lib-x" may sort between them */
		qsort(cs->v, cs->n, sizeof(*cs->v), cmp_change_path);
	strv_free(&replaced);
	strv_free(&subs);
	return 0;
}
