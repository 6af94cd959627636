/* test_hidecache.c — the start walk remembered between runs (hidecache.h). */
#include "hidecache.h"
#include "t.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char dir[] = "/tmp/test_hidecache.XXXXXX";

static void touch(const char *rel) { t_touch_under(dir, rel); }

static struct hide_node *at(struct hide_node *root, const char *path)
{
	return hidetree_lookup(root, path);
}

/* The cache as a later run (a minute on) reads it: no stamp is "racy". */
static struct hide_node *reload(const char *cache, int fd, size_t *count, bool *changed)
{
	time_t made = 0;
	struct hide_node *t = hidecache_load(cache, &made);
	CHECK(t != NULL);
	if (!t)
		return NULL;
	*count = 0;
	*changed = false;
	hidecache_refresh(fd, t, made, count, changed);
	return t;
}

T(cache_keeps_names_while_stamps_hold_and_reads_what_changed)
{
	CHECK(mkdtemp(dir) != NULL);
	t_mkdir_under(dir, "src/deep");
	t_mkdir_under(dir, ".git/objects");
	t_mkdir_under(dir, "docs");
	touch("src/a.c");
	touch("src/deep/x.c");
	touch("docs/.gitignore");
	touch(".env");
	char cache[600];
	snprintf(cache, sizeof(cache), "%s.cache", dir);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct hide_node *fresh = NULL;
	size_t count = 0, n = 0;
	struct jail_err e = {0};
	CHECK(hidetree_build(fd, &fresh, &count, &e) == 0);
	/* written as if a minute ago: every stamp is older than the walk */
	CHECK(hidecache_save(cache, fresh, time(NULL) + 60, &e) == 0);
	bool changed = true;
	struct hide_node *t = reload(cache, fd, &n, &changed);
	CHECK(!changed && n == count);
	CHECK(at(t, "src/deep/x.c") && at(t, ".git") && at(t, ".git")->live);
	CHECK(at(t, ".git") && at(t, ".git")->n_kids == 0);
	CHECK(at(t, "docs/.gitignore") && at(t, "docs/.gitignore")->stamp);
	CHECK(at(t, "src/deep") && at(t, "src/deep")->stamp);
	/* an unchanged directory is not read: a name only the cache has stays */
	hidetree_add(at(t, "src/deep"), "phantom", false);
	CHECK(hidecache_save(cache, t, time(NULL) + 60, &e) == 0);
	hidetree_free(t);
	t = reload(cache, fd, &n, &changed);
	CHECK(!changed && at(t, "src/deep/phantom"));
	hidetree_free(t);
	/* a directory that changed is read again, and below it the cache still
	 * serves what did not: the phantom in src/deep stays, src gains b.c */
	touch("src/b.c");
	touch("new.txt");
	t = reload(cache, fd, &n, &changed);
	CHECK(changed);
	CHECK(at(t, "src/b.c") && at(t, "new.txt") && at(t, "src/deep/phantom"));
	CHECK(at(t, "src/deep") && at(t, "src/deep")->parent == at(t, "src"));
	hidetree_free(t);
	/* a stamp as new as the walk that took it is not trusted: read again */
	CHECK(hidecache_save(cache, fresh, time(NULL), &e) == 0);
	t = reload(cache, fd, &n, &changed);
	CHECK(changed && !at(t, "src/deep/phantom") && at(t, "src/b.c"));
	hidetree_free(t);
	hidetree_free(fresh);
	close(fd);
	char cmd[1300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", dir, cache);
	CHECK(system(cmd) == 0);
}

T(damaged_cache_is_refused)
{
	char path[] = "/tmp/test_hidecache_bad.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	static const char bad[] = "jail-tree-cache-1\0" "1\0" "d\0" "1 0 1 0 5 4096 9\0" "fx\0";
	CHECK(write(fd, bad, sizeof(bad) - 1) == (ssize_t)(sizeof(bad) - 1));
	close(fd);
	time_t made;
	CHECK(hidecache_load(path, &made) == NULL); /* 9 entries announced, 1 there */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	static const char slash[] = "jail-tree-cache-1\0" "1\0" "d\0" "1 0 1 0 5 4096 1\0" "fa/b\0";
	CHECK(write(fd, slash, sizeof(slash) - 1) == (ssize_t)(sizeof(slash) - 1));
	close(fd);
	CHECK(hidecache_load(path, &made) == NULL); /* a name with '/' */
	unlink(path);
}
