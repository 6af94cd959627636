/* discard.c — discard the session's changes to chosen paths. */
#include "discard.h"

#include "log.h"
#include "pathspec.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

static bool is_opaque(int fd)
{
	char v[4];
	return fgetxattr(fd, "user.overlay.opaque", v, sizeof(v)) == 1 && v[0] == 'y';
}

/* Open the upper dir's parent directory of rel; *name: its last component.
 * (given and rel are paths the user named, which may hold any bytes: printed
 * escaped.) */
static int open_parent(int upper, const char *rel, const char **name, const char *given_raw,
                       struct jail_err *e)
{
	_cleanup_free_ char *given = escape_name(given_raw);
	_cleanup_free_ char *copy = xstrdup(rel);
	char *slash = strrchr(copy, '/');
	*name = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	int fd = dup(upper);
	if (fd < 0)
		return jail_err_sys(e, "dup");
	if (!slash)
		return fd;
	*slash = '\0';
	char *save = NULL;
	for (char *part = strtok_r(copy, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
		int next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int err = errno;
		_cleanup_free_ char *p = escape_name(part);
		close(fd);
		if (next < 0 && err == ENOENT)
			return jail_err_set(e, 0, "'%s': the session holds no change there", given);
		if (next < 0 && err == EACCES)
			return jail_err_set(e, 0, "'%s': its directory '%s' cannot be read (the agent "
			                          "took its permissions); reset that directory", given, p);
		if (next < 0)
			return jail_err_set(e, 0, "'%s': its directory '%s' was deleted or replaced "
			                            "by the session; reset that directory", given, p);
		if (is_opaque(next)) {
			close(next);
			return jail_err_set(e, 0, "'%s': its directory '%s' was replaced as a whole "
			                          "by the session; reset that directory", given, p);
		}
		fd = next;
	}
	return fd;
}

int session_discard_paths(const struct session *s, char *const *paths, struct jail_err *e)
{
	_cleanup_close_ int upper = open(s->upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (upper < 0)
		return jail_err_set(e, 0, "session '%s' holds no changes", s->name);
	struct strv rels = {0};
	int r = 0;
	/* check all, then remove: a typo in the third path discards nothing */
	for (size_t i = 0; r == 0 && paths[i]; i++) {
		char *rel = pathspec_project_path(s, paths[i], e);
		if (rel && !rel[0]) {
			free(rel);
			rel = NULL;
			_cleanup_free_ char *whole = escape_name(paths[i]);
			jail_err_set(e, 0, "'%s' is the whole project; jail reset --all discards "
			                   "everything", whole);
		}
		const char *name;
		_cleanup_close_ int dfd = rel ? open_parent(upper, rel, &name, paths[i], e) : -1;
		struct stat st;
		_cleanup_free_ char *esc = escape_name(paths[i]);
		if (!rel || dfd < 0)
			r = -1;
		else if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			r = jail_err_set(e, 0, "'%s': the session holds no change there", esc);
		if (rel)
			strv_push_take(&rels, rel);
	}
	for (size_t i = 0; r == 0 && i < rels.n; i++) {
		const char *name;
		_cleanup_close_ int dfd = open_parent(upper, rels.v[i], &name, rels.v[i], e);
		if (dfd < 0 || rm_rf_at(dfd, name, e) < 0)
			r = -1;
		else {
			_cleanup_free_ char *esc = escape_name(rels.v[i]);
			log_info("discarded the session's changes to %s", esc);
		}
	}
	strv_free(&rels);
	return r;
}
