/* test_hidetree.c — the names visible at start (hidetree.h). */
#include "hidetree.h"
#include "t.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/test_hidetree.XXXXXX";

static void touch(const char *rel) { t_touch_under(dir, rel); }

static void mk(const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	CHECK(mkdir(p, 0755) == 0);
}

static struct hide_node *find_path(struct hide_node *n, const char *a, const char *b)
{
	n = hidetree_find(n, a);
	return n && b ? hidetree_find(n, b) : n;
}

T(build_records_every_name_and_marks_git_live)
{
	CHECK(mkdtemp(dir) != NULL);
	mk("src");
	mk(".git");
	mk(".git/objects");
	mk("secrets");
	touch("src/b.c");
	touch("src/a.c");
	touch(".env");
	touch("secrets/k");
	char link[512];
	snprintf(link, sizeof(link), "%s/out", dir);
	CHECK(symlink("/etc", link) == 0);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct hide_node *root = NULL;
	size_t count = 0;
	struct jail_err e = {0};
	CHECK(hidetree_build(fd, &root, &count, &e) == 0);
	CHECK(count == 8); /* src a.c b.c .git secrets k .env out; not .git's inside */
	CHECK(find_path(root, "src", "a.c") != NULL);
	CHECK(find_path(root, "src", "b.c") != NULL);
	CHECK(root->kids[0]->name[0] == '.'); /* sorted */
	struct hide_node *git = hidetree_find(root, ".git");
	CHECK(git && git->live && git->n_kids == 0);
	CHECK(hidetree_find(root, "out") && !hidetree_find(root, "out")->dir);
	/* dropping hides a path and what is below it */
	hidetree_drop(root, "secrets");
	hidetree_drop(root, ".env");
	hidetree_drop(root, "no/such/path");
	CHECK(!hidetree_find(root, "secrets"));
	CHECK(!hidetree_find(root, ".env"));
	CHECK(find_path(root, "src", "a.c") != NULL);
	/* a live directory takes names found later, in order */
	struct hide_node *o = hidetree_add(git, "objects", true);
	CHECK(o && o->live && hidetree_add(git, "HEAD", false));
	CHECK_STR(git->kids[0]->name, "HEAD");
	char path[64];
	CHECK(hidetree_path(o, path, sizeof(path)));
	CHECK_STR(path, ".git/objects");
	CHECK(hidetree_path(root, path, sizeof(path)));
	CHECK_STR(path, ".");
	CHECK(!hidetree_path(o, path, 5)); /* too long for the buffer */
	hidetree_free(root);
	close(fd);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}
