/* Unit tests: applied.c — what `jail apply` landed, and the next export. */
#include "t.h"
#include "applied.h"

static const char tree[] = "100644 blob aaaa\tsub/a.txt\0"
                           "100755 blob bbbb\tsub/run.sh\0"
                           "160000 commit cccc\tsub/mod\0"
                           "100644 blob dddd\tother/x\0";

T(parse_ls_tree_with_prefix)
{
	struct applied a = {0};
	applied_parse(&a, tree, sizeof(tree) - 1, "sub/");
	CHECK_INT(a.n, 2);  /* the gitlink and the path outside the prefix stay out */
	CHECK_STR(a.v[0].path, "a.txt");
	CHECK_INT(a.v[0].mode, 0100644);
	CHECK_STR(a.v[0].oid, "aaaa");
	CHECK_STR(a.v[1].path, "run.sh");
	static const char own[] = "100644 eeee\ta.txt\0" "0 -\tgone\0";
	applied_parse(&a, own, sizeof(own) - 1, "");
	CHECK_INT(a.n, 3);
	CHECK_STR(a.v[0].oid, "eeee");  /* replaced, not duplicated */
	CHECK_STR(a.v[1].path, "gone");
	CHECK_INT(a.v[1].mode, 0);
	applied_free(&a);
}

static bool present(void *ctx, const char *oid) { (void)ctx; return strcmp(oid, "lost") != 0; }

T(adjust_old_sides)
{
	struct applied a = {0};
	static const char own[] = "100644 eeee\ta.txt\0" "0 -\tgone\0" "0 -\tback\0"
	                          "100644 lost\tlost.txt\0";
	applied_parse(&a, own, sizeof(own) - 1, "");
	struct changeset cs = {0};
	const char *paths[] = {"a.txt", "back", "gone", "lost.txt", "new.txt"};
	cs.v = xcalloc(ARRAY_SIZE(paths), sizeof(*cs.v));
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		cs.v[i].path = xstrdup(paths[i]);
		cs.v[i].new_type = FT_FILE;
		cs.v[i].pre = PRE_LOWER;
	}
	cs.v[2].new_type = FT_NONE;  /* "gone" is still deleted */
	cs.n = ARRAY_SIZE(paths);
	applied_adjust(&a, &cs, present, NULL);
	CHECK_INT(cs.n, 4);
	CHECK_STR(cs.v[0].path, "a.txt");
	CHECK_INT(cs.v[0].pre, PRE_BASE);
	CHECK_STR(cs.v[0].base_oid, "eeee");
	CHECK_INT(cs.v[0].base_mode, 0100644);
	CHECK_STR(cs.v[1].path, "back");
	CHECK_INT(cs.v[1].pre, PRE_NONE);
	CHECK_STR(cs.v[2].path, "lost.txt");
	CHECK_INT(cs.v[2].pre, PRE_LOWER);  /* the blob is gone from the host */
	CHECK_STR(cs.v[3].path, "new.txt");
	CHECK_INT(cs.v[3].pre, PRE_LOWER);
	changeset_free(&cs);
	applied_free(&a);
}
