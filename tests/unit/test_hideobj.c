/* test_hideobj.c — hidden files' content as git objects (hideobj.h). */
#include "hideobj.h"
#include "t.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/test_hideobj.XXXXXX";

static void put(const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	fputs(text, f);
	fclose(f);
}

T(collect_names_the_blobs_of_hidden_secrets_only)
{
	CHECK(mkdtemp(dir) != NULL);
	char p[512];
	snprintf(p, sizeof(p), "%s/build", dir);
	CHECK(mkdir(p, 0755) == 0);
	put(".env", "SECRET=1\n");      /* git hash-object: the id below */
	put("build/out.o", "object\n"); /* hidden, not a secret: not read */
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct hide_node *root = NULL;
	size_t count = 0;
	struct jail_err e = {0};
	CHECK(hidetree_build(fd, &root, &count, &e) == 0);
	struct jail_config cfg = {0};
	strv_push(&cfg.secret_names, ".env*");
	struct strv hidden = {0}, objs = {0};
	strv_push(&hidden, ".env");
	strv_push(&hidden, "build");
	hideobj_collect(fd, &cfg, root, &hidden, NULL, &objs);
	CHECK(objs.n == 3); /* SHA-1 and SHA-256 of the one secret, and its LFS object */
	CHECK(strv_contains(&objs, "65/ec2679eeaac690801f2a00b7de9baebbef7a2d")); /* git hash-object */
	const char *lfs = "66/40/664049a85e2251d253ff78a9a7808b41ef4a9f14c8a1b998b6bffd40b2494808";
	CHECK(strv_contains(&objs, lfs)); /* sha256sum of the content */
	/* the server's question: a name in a two-hex dir below objects/ */
	struct hide_node *git = hidetree_add(root, ".git", true);
	struct hide_node *o = hidetree_add(git, "objects", true);
	struct hide_node *f = hidetree_add(o, "65", true);
	CHECK(hideobj_withheld(&objs, f, "ec2679eeaac690801f2a00b7de9baebbef7a2d"));
	CHECK(!hideobj_withheld(&objs, f, "00000000000000000000000000000000000000"));
	CHECK(hideobj_withheld(&objs, f, "tmp_obj_Ab12Cd")); /* git writing an object */
	CHECK(!hideobj_withheld(&objs, o, "ec2679eeaac690801f2a00b7de9baebbef7a2d")); /* not a fan-out dir */
	/* git's files that quote staged content (git commit -v, git add -p) */
	CHECK(hideobj_withheld(&objs, git, "COMMIT_EDITMSG"));
	CHECK(hideobj_withheld(&objs, git, "addp-hunk-edit.diff"));
	CHECK(hideobj_withheld(&objs, git, "ADD_EDIT.patch"));
	CHECK(!hideobj_withheld(&objs, git, "MERGE_MSG"));
	struct hide_node *heads = hidetree_add(hidetree_add(git, "refs", true), "heads", true);
	CHECK(!hideobj_withheld(&objs, heads, "COMMIT_EDITMSG")); /* a branch of that name */
	/* git-lfs's store, and what git fsck --lost-found wrote */
	struct hide_node *l = hidetree_add(hidetree_add(hidetree_add(hidetree_add(git, "lfs", true),
	                                   "objects", true), "66", true), "40", true);
	CHECK(hideobj_withheld(&objs, l, lfs + 6));
	CHECK(!hideobj_withheld(&objs, l, "664049a85e2251d253ff78a9a7808b41ef4a9f14c8a1b998b6bffd40b2494809"));
	struct hide_node *lf = hidetree_add(hidetree_add(git, "lost-found", true), "other", true);
	CHECK(hideobj_withheld(&objs, lf, "65ec2679eeaac690801f2a00b7de9baebbef7a2d"));
	CHECK(!hideobj_withheld(&objs, lf, "65ec2679eeaac690801f2a00b7de9baebbef7a2e"));
	/* the session's list, as the export reads it back */
	snprintf(p, sizeof(p), "%s/withheld", dir);
	CHECK(hideobj_save(p, &objs, &e) == 0);
	struct strv ids = {0};
	hideobj_load(p, &ids);
	CHECK(ids.n == 2); /* git's ids, not the LFS object */
	CHECK(hideobj_has(&ids, "65ec2679eeaac690801f2a00b7de9baebbef7a2d"));
	CHECK(!hideobj_has(&ids, "65ec"));
	/* through the cache: the same ids while the file is the same, the new
	 * content's once it is rewritten (a damaged cache is read as none) */
	char cache[512];
	snprintf(cache, sizeof(cache), "%s/withheld.ids", dir);
	for (int round = 0; round < 3; round++) {
		struct strv again = {0};
		if (round == 2)
			put(".env", "SECRET=2\n");
		hideobj_collect(fd, &cfg, root, &hidden, cache, &again);
		CHECK(again.n == 3);
		CHECK(strv_contains(&again, "65/ec2679eeaac690801f2a00b7de9baebbef7a2d") == (round < 2));
		if (round < 2)
			CHECK(strv_contains(&again, lfs));
		strv_free(&again);
	}
	int cf = open(cache, O_WRONLY | O_TRUNC);
	CHECK(cf >= 0 && write(cf, ".env\0stamp", 10) == 10);
	close(cf);
	struct strv damaged = {0};
	hideobj_collect(fd, &cfg, root, &hidden, cache, &damaged);
	CHECK(damaged.n == 3 && !strv_contains(&damaged, "65/ec2679eeaac690801f2a00b7de9baebbef7a2d"));
	strv_free(&damaged);
	close(fd);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

/* A secret with CRLF line ends: git stores it with LF ones under `* text=auto`
 * or core.autocrlf, so that blob's ids are withheld too, and come back from
 * the cache.  (git hash-object of the LF content, in both formats.) */
T(collect_names_the_lf_blob_of_a_crlf_secret)
{
	static char d[] = "/tmp/test_hideobj_crlf.XXXXXX";
	CHECK(mkdtemp(d) != NULL);
	char p[512], cache[512];
	snprintf(p, sizeof(p), "%s/.env", d);
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	fputs("SECRET=1\r\nB=2\r\n", f);
	fclose(f);
	snprintf(cache, sizeof(cache), "%s/withheld.ids", d);
	int fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct hide_node *root = NULL;
	size_t count = 0;
	struct jail_err e = {0};
	CHECK(hidetree_build(fd, &root, &count, &e) == 0);
	struct jail_config cfg = {0};
	strv_push(&cfg.secret_names, ".env*");
	struct strv hidden = {0};
	strv_push(&hidden, ".env");
	for (int round = 0; round < 2; round++) { /* hashed, then from the cache */
		struct strv objs = {0};
		hideobj_collect(fd, &cfg, root, &hidden, cache, &objs);
		CHECK(objs.n == 5);
		CHECK(strv_contains(&objs, "60/54842854917e8d010f6a5a77a29d395a094252"));
		CHECK(strv_contains(&objs,
		                    "4a/23865fdfaafb462a4c571208f170ae84a28810059fb53bc240199bac2265f6"));
		strv_free(&objs);
	}
	close(fd);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	CHECK(system(cmd) == 0);
}
