/* cowdirs.c — the session's layers for copy-on-write host directories. */
#include "cowdirs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *cow_layer_dir(const struct session *s, const char *path)
{
	char hex[65];
	sha256_hex(path, strlen(path), hex);
	hex[16] = '\0';
	return xasprintf("%s/cow/%s", s->dir, hex);
}

static int make_layers(const struct session *s, const char *path, struct jail_err *e)
{
	_cleanup_free_ char *dir = cow_layer_dir(s, path);
	_cleanup_free_ char *upper = xasprintf("%s/upper", dir);
	_cleanup_free_ char *work = xasprintf("%s/work", dir);
	if (mkdir_p(upper, 0700, e) < 0 || mkdir_p(work, 0700, e) < 0)
		return -1;
	/* for the human reading the state dir: which host directory this is */
	_cleanup_free_ char *note = xasprintf("%s\n", path);
	_cleanup_free_ char *note_path = xasprintf("%s/path", dir);
	return write_file_at(AT_FDCWD, note_path, note, strlen(note), 0600, e);
}

int cow_prepare(const struct session *s, struct strv *paths, struct strv *lowers,
                struct jail_err *e)
{
	size_t kept = 0;
	for (size_t i = 0; i < paths->n; i++) {
		char *p = paths->v[i];
		struct stat st;
		_cleanup_free_ char *esc = escape_name(p);
		if (stat(p, &st) < 0) {
			if (errno != ENOENT)
				return jail_err_sys(e, "cow %s", esc);
			free(p);
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			return jail_err_set(e, 0, "cow %s: not a directory; name a directory (a "
			                          "cache), or use --ro for a file", esc);
		/* the overlay reads the directory the host resolves (a symlink on
		 * the way, spelled through the old root, would be resolved in the
		 * jail's scratch root); it is checked here, so a link into the
		 * project is refused like the project itself */
		_cleanup_free_ char *real = realpath(p, NULL);
		if (!real)
			return jail_err_sys(e, "cow %s", esc);
		if (path_at_or_below(real, s->project) || path_at_or_below(s->project, real) ||
		    path_at_or_below(p, s->project) || path_at_or_below(s->project, p))
			return jail_err_set(e, 0, "cow %s: overlaps the project, which is copy-on-write "
			                          "already; name a directory outside it", esc);
		if (make_layers(s, p, e) < 0)
			return -1;
		strv_push(lowers, real);
		paths->v[kept++] = p;
	}
	paths->n = kept;
	if (paths->v)
		paths->v[kept] = NULL;
	return 0;
}
