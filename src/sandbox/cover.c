/* cover.c — where a bind would show a host path the jail hides (cover.h).
 * Pure string work: init does the mounts (mounts.c). */
#include "cover.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

char *cover_point(const char *at, const char *src, const char *hidden)
{
	if (!at || !src || !hidden || strcmp(src, hidden) == 0 ||
	    !path_at_or_below(hidden, src))
		return NULL;
	const char *rel = hidden + (strcmp(src, "/") == 0 ? 0 : strlen(src));
	return xasprintf("%s%s", strcmp(at, "/") == 0 ? "" : at, rel);
}

char *cover_homes_dir(const char *sys_dir, const char *home_real)
{
	if (!sys_dir || !home_real || !path_at_or_below(home_real, sys_dir))
		return NULL;
	char *parent = xstrdup(home_real);
	char *slash = strrchr(parent, '/');
	*slash = '\0';
	if (parent[0] && strcmp(parent, sys_dir) != 0 && path_at_or_below(parent, sys_dir))
		return parent;
	free(parent);
	return NULL;
}

bool cover_movable(const char *src, const char *hidden)
{
	if (!src || !hidden || strcmp(src, hidden) == 0 || !path_at_or_below(hidden, src))
		return false;
	_cleanup_free_ char *parent = xstrdup(hidden);
	*strrchr(parent, '/') = '\0';
	return parent[0] && strcmp(parent, src) != 0;
}
