/* Unit tests: repodir.c, the directories git takes for a repository, in the
 * merged view of a hand-built upper dir over a lower. */
#include "t.h"
#include "export.h"
#include "repodir.h"

#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

static char root[] = "/tmp/jail-unit-repodir.XXXXXX";

static void put(const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	free(p);
}

static int dir_fd(const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	int fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(p);
	return fd;
}

static bool merged(const char *up, const char *low, bool opaque)
{
	int u = dir_fd(up), l = dir_fd(low);
	bool r = repodir_merged(u, l, opaque);
	if (u >= 0)
		close(u);
	if (l >= 0)
		close(l);
	return r;
}

T(repository_shape_in_the_merged_view)
{
	if (!mkdtemp(root))
		return;
	const char *dirs[] = {"u/a/objects", "u/a/refs", "l/a", "u/b", "l/b/objects", "l/b/refs",
	                      "u/c/Objects", "u/c/REFS", "u/d/objects", "l/d/refs", "l/d/objects",
	                      "u/e", "l/e/objects", "l/e/refs", "u/f", "l/f/objects", "l/f/refs",
	                      "l/f/.git", "u/g", "u/h/objects", "u/h/refs"};
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		t_mkdir_under(root, dirs[i]);
	put("u/a/HEAD");                    /* all in the upper */
	put("u/b/HEAD");                    /* HEAD new, the rest the host's */
	put("u/c/head");                    /* as macOS reads the names */
	put("l/d/HEAD");                    /* the host's HEAD... */
	char *p = xasprintf("%s/u/d/HEAD", root);
	CHECK_INT(mknod(p, S_IFCHR | 0600, makedev(0, 0)), 0);  /* ...deleted */
	free(p);
	put("l/e/HEAD"), put("u/e/config");  /* a fixture the host has, a config added */
	put("l/f/HEAD"), put("u/f/config");  /* the same with a .git of its own */
	put("u/g/HEAD"), put("u/g/commondir");
	put("u/h/objects.txt");             /* no HEAD */
	CHECK(merged("u/a", "l/a", false));
	CHECK(merged("u/b", "l/b", false));
	CHECK(!merged("u/b", "l/b", true));  /* opaque: the host's are gone */
	CHECK(merged("u/c", "l/c", false));
	CHECK(!merged("u/d", "l/d", false));
	CHECK(merged("u/e", "l/e", false));
	CHECK(!merged("u/f", "l/f", false));
	CHECK(merged("u/g", "l/g", false));
	CHECK(!merged("u/h", "l/h", false));

	/* above a path: with the paths of the agent's commits (folded, sorted) */
	int u = dir_fd("u"), l = dir_fd("l");
	struct strv extra = {0}, cache = {0};
	strv_push(&extra, "x/y/head");
	strv_push(&extra, "x/y/objects/pack/p");
	strv_push(&extra, "x/y/refs-not");
	char *r = repodir_above(u, l, "x/y/config", &extra, &cache);
	CHECK(r == NULL);  /* refs-not is no refs */
	strv_push(&extra, "x/y/refs/heads/main");
	strv_free(&cache);
	r = repodir_above(u, l, "x/y/config", &extra, &cache);
	CHECK(r && strcmp(r, "x/y") == 0);
	free(r);
	r = repodir_above(u, l, "e/sub/file", NULL, &cache);
	CHECK(r && strcmp(r, "e") == 0);
	free(r);
	CHECK(repodir_above(u, l, "h/objects/x", NULL, &cache) == NULL);
	CHECK(repodir_above(u, l, "HEAD", NULL, &cache) == NULL);  /* the root has none */
	strv_free(&extra);
	strv_free(&cache);
	close(u);
	close(l);
	struct jail_err e;
	CHECK_INT(rm_rf_at(AT_FDCWD, root, &e), 0);
}
