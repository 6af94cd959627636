/* pathspec.c — the paths a subcommand is limited to. */
#include "pathspec.h"

#include <fnmatch.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

/* Lexically normalise rel (no "." or ".." left); false if it climbs out. */
static bool normalise(const char *rel, struct strbuf *out)
{
	_cleanup_free_ char *copy = xstrdup(rel);
	struct strv parts = {0};
	char *save = NULL;
	bool ok = true;
	for (char *p = strtok_r(copy, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		if (strcmp(p, ".") == 0)
			continue;
		if (strcmp(p, "..") == 0) {
			if (parts.n == 0) {
				ok = false;
				break;
			}
			free(parts.v[--parts.n]);
			parts.v[parts.n] = NULL;
			continue;
		}
		strv_push(&parts, p);
	}
	for (size_t i = 0; ok && i < parts.n; i++)
		sb_printf(out, "%s%s", i ? "/" : "", parts.v[i]);
	strv_free(&parts);
	return ok;
}

char *pathspec_project_path(const struct session *s, const char *given, struct jail_err *e)
{
	size_t pl = strlen(s->project);
	_cleanup_free_ char *rel = NULL;
	char cwd[PATH_MAX];
	if (given[0] == '/') {
		if (strncmp(given, s->project, pl) == 0 && (given[pl] == '/' || !given[pl]))
			rel = xstrdup(given + pl);
	} else if (getcwd(cwd, sizeof(cwd)) && strncmp(cwd, s->project, pl) == 0 &&
	           (cwd[pl] == '/' || !cwd[pl])) {
		rel = xasprintf("%s/%s", cwd + pl, given);
	} else {
		rel = xstrdup(given);
	}
	struct strbuf out = {0};
	_cleanup_free_ char *esc = escape_name(given);
	if (!rel || !normalise(rel, &out)) {
		_cleanup_free_ char *pesc = escape_name(s->project);
		sb_free(&out);
		return jail_err_set(e, 0, "'%s' is not inside the project %s", esc, pesc), NULL;
	}
	return out.len ? sb_steal(&out) : xstrdup("");
}

bool pathspec_match(const struct strv *specs, const char *path)
{
	if (!specs->n)
		return true;
	for (size_t i = 0; i < specs->n; i++) {
		const char *p = specs->v[i];
		size_t n = strlen(p);
		if (n == 0 || (strncmp(path, p, n) == 0 && (path[n] == '\0' || path[n] == '/')))
			return true;
		if (strpbrk(p, "*?[") && fnmatch(p, path, 0) == 0)
			return true;
	}
	return false;
}

/* Is rel in the project or in the session's upper dir (new, or a whiteout)?
 * Only an existence check: nothing is opened. */
static bool path_exists(const struct session *s, const char *rel)
{
	struct stat st;
	_cleanup_free_ char *lower = xasprintf("%s/%s", s->project, rel);
	_cleanup_free_ char *upper = xasprintf("%s/%s", s->upper, rel);
	return lstat(lower, &st) == 0 || lstat(upper, &st) == 0;
}

int pathspec_resolve(const struct session *s, char *const *args, struct strv *out,
                     struct jail_err *e)
{
	for (size_t i = 0; args && args[i]; i++) {
		char *p = pathspec_project_path(s, args[i], e);
		if (!p)
			return -1;
		/* `jail status extra words` is a mistake, not two empty pathspecs */
		if (!strpbrk(p, "*?[") && !path_exists(s, p)) {
			_cleanup_free_ char *esc = escape_name(args[i]);
			free(p);
			return jail_err_set(e, 0, "'%s': no such path in the project or the session "
			                          "(a PATH names a file, a directory or a glob)", esc);
		}
		strv_push_take(out, p);
	}
	return 0;
}
