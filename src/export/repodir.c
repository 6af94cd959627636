/* repodir.c — see repodir.h. */
#include "repodir.h"

#include "export.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { M_HEAD = 1, M_OBJECTS = 2, M_REFS = 4, M_COMMONDIR = 8 };

/* The marker a name is, as other file systems read it too: on macOS and
 * Windows git opens "HEAD" and finds "head", "Objects", "refs." there. */
static unsigned marker_of(const char *name)
{
	static const char *const names[] = {"head", "objects", "refs", "commondir"};
	/* no character that folds to ASCII folds to their first letters: most
	 * names are passed over here, without the fold's allocation */
	if (!strchr("hHoOrRcC", name[0]) || !name[0])
		return 0;
	_cleanup_free_ char *f = path_fold(name);
	for (unsigned i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(f, names[i]) == 0)
			return 1u << i;
	return 0;
}

static bool is_repo(unsigned m)
{
	return (m & M_HEAD) && ((m & M_COMMONDIR) || ((m & M_OBJECTS) && (m & M_REFS)));
}

/* Past this many entries a listing stops: the export's walk stops at 100,000
 * changed paths (and then refuses), so markers past it never go out unseen. */
#define LISTING_MAX 200000

/* The markers among a directory's entries.  The upper's whiteouts are not
 * entries, and hide the lower's of their name: hidden collects them. */
static unsigned listing_markers(int dfd, bool upper, struct strv *hidden)
{
	DIR *d = dfd < 0 ? NULL : opendir_at(dfd, ".");
	if (!d)
		return 0;
	unsigned m = 0;
	struct dirent *de;
	for (size_t n = 0; n < LISTING_MAX && (de = readdir(d)); n++) {
		unsigned k = marker_of(de->d_name);
		struct stat st;
		if (!k)
			continue;
		if (upper && fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    overlay_is_whiteout(&st))
			strv_push(hidden, de->d_name);
		else if (upper || !strv_contains(hidden, de->d_name))
			m |= k;
	}
	closedir(d);
	return m;
}

/* git uses a .git of the directory's own (the host's: one the agent made is
 * left out, so it does not land), never the directory itself. */
static bool host_dot_git(int lfd, bool opaque)
{
	struct stat st;
	return !opaque && lfd >= 0 && fstatat(lfd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static unsigned merged_markers(int ufd, int lfd, bool opaque)
{
	struct strv hidden = {0};
	unsigned m = listing_markers(ufd, true, &hidden);
	if (!opaque)
		m |= listing_markers(lfd, false, &hidden);
	strv_free(&hidden);
	return m;
}

bool repodir_merged(int ufd, int lfd, bool opaque)
{
	return !host_dot_git(lfd, opaque) && is_repo(merged_markers(ufd, lfd, opaque));
}

/* The markers that paths of extra (folded, sorted) make in dir (folded):
 * dir/NAME itself, or a path below it. */
static unsigned extra_markers(const struct strv *extra, const char *dir)
{
	unsigned m = 0;
	if (!extra || !extra->n)
		return 0;
	_cleanup_free_ char *p = *dir ? xasprintf("%s/", dir) : xstrdup("");
	size_t pl = strlen(p), lo = 0, hi = extra->n;
	while (lo < hi) {  /* the first path >= p */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(extra->v[mid], p) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < extra->n && strncmp(extra->v[i], p, pl) == 0; i++) {
		const char *rest = extra->v[i] + pl;
		size_t l = strcspn(rest, "/");
		_cleanup_free_ char *name = strndup(rest, l);
		m |= marker_of(name);
	}
	return m;
}

/* dir ("" the root) in the merged tree, with the paths of extra too. */
static bool dir_is_repo(int upper_fd, int lower_fd, const char *dir, const struct strv *extra)
{
	_cleanup_close_ int u = -1, l = -1;
	if (*dir) {
		u = upper_fd < 0 ? -1 : open_beneath(upper_fd, dir, O_RDONLY | O_DIRECTORY);
		l = lower_fd < 0 ? -1 : open_beneath(lower_fd, dir, O_RDONLY | O_DIRECTORY);
	}
	int ufd = *dir ? u : upper_fd, lfd = *dir ? l : lower_fd;
	bool opaque = ufd >= 0 && overlay_is_opaque(ufd);
	if (host_dot_git(lfd, opaque))
		return false;
	_cleanup_free_ char *folded = path_fold(dir);
	return is_repo(merged_markers(ufd, lfd, opaque) | extra_markers(extra, folded));
}

/* The cached answer for dir: 1 yes, 0 no, -1 not asked yet. */
static int cached(const struct strv *cache, const char *dir)
{
	for (size_t i = cache->n; i-- > 0;)  /* the last ones are the likely ones */
		if (strcmp(cache->v[i] + 1, dir) == 0)
			return cache->v[i][0] == 'y';
	return -1;
}

char *repodir_above(int upper_fd, int lower_fd, const char *path, const struct strv *extra,
                    struct strv *cache)
{
	size_t n = strlen(path);
	/* the root, then each directory down: the outermost one names what is left out */
	for (size_t l = 0; l < n; l++) {
		if (l > 0 && path[l] != '/')
			continue;
		_cleanup_free_ char *d = strndup(path, l);
		int c = cached(cache, d);
		if (c < 0) {
			c = dir_is_repo(upper_fd, lower_fd, d, extra);
			/* the directories above a path are its neighbours' too: a
			 * small cache, started again past 4096 */
			if (cache->n >= 4096)
				strv_free(cache);
			strv_push_take(cache, xasprintf("%c%s", c ? 'y' : 'n', d));
		}
		if (c)
			return xstrdup(l ? d : ".");
	}
	return NULL;
}
