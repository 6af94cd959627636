/* Unit tests: diffstat.c, its stats against the ones git 2.39 printed for the
 * same files (format-patch, width 72), and its reading of a patch. */
#include "t.h"
#include "diffstat.h"

#include <stdlib.h>
#include <unistd.h>

static struct ds_file text(const char *name, unsigned long long add, unsigned long long del)
{
	return (struct ds_file){.name = xstrdup(name), .status = 'M', .content = true,
	                        .added = add, .deleted = del, .old_mode = 0100644,
	                        .new_mode = 0100644};
}

static char *render(struct ds_file *v, size_t n)
{
	struct diffstat d = {.v = xcalloc(n, sizeof(*v)), .n = n, .cap = n};
	memcpy(d.v, v, n * sizeof(*v));
	struct strbuf out = {0};
	int r = diffstat_render(&d, 72, &out);
	diffstat_free(&d);
	if (r < 0) {
		sb_free(&out);
		return xstrdup("(not sure)");
	}
	return out.s ? sb_steal(&out) : xstrdup("");
}

T(diffstat_scales_the_graph_beside_one_line_changes)
{
	struct ds_file v[] = {text("big", 1500, 1500), text("one", 1, 0)};
	char *s = render(v, 2);
	CHECK_STR(s, " big | 3000 +++++++++++++++++++++++++++++------------------------------\n"
	             " one |    1 +\n"
	             " 2 files changed, 1501 insertions(+), 1500 deletions(-)\n");
	free(s);
}

T(diffstat_totals_singular_and_omitted_parts)
{
	struct ds_file one[] = {text("one", 1, 0)};
	char *s = render(one, 1);
	CHECK_STR(s, " one | 1 +\n 1 file changed, 1 insertion(+)\n");
	free(s);
	struct ds_file del[] = {text("a", 0, 1), text("b", 0, 2)};
	s = render(del, 2);
	CHECK_STR(s, " a | 1 -\n b | 2 --\n 2 files changed, 3 deletions(-)\n");
	free(s);
}

T(diffstat_binary_sizes_align_the_counts)
{
	struct ds_file v[] = {text("bin", 3893, 6), text("t", 12, 1)};
	v[0].binary = true;
	char *s = render(v, 2);
	CHECK_STR(s, " bin | Bin 6 -> 3893 bytes\n"
	             " t   |  13 ++++++++++++-\n"
	             " 2 files changed, 12 insertions(+), 1 deletion(-)\n");
	free(s);
}

T(diffstat_cuts_long_and_wide_names_as_git_does)
{
	struct ds_file v[] = {
		text("a/very/long/path/that/will/not/fit/in/the/width/of/a/mail/line/at/all/x.txt", 200, 0),
		text("f", 2, 1)};
	v[0].status = 'A', v[0].old_mode = 0;
	char *s = render(v, 2);
	CHECK_STR(s, " .../in/the/width/of/a/mail/line/at/all/x.txt  | 200 ++++++++++++++++++\n"
	             " f                                             |   3 +-\n"
	             " 2 files changed, 202 insertions(+), 1 deletion(-)\n"
	             " create mode 100644 a/very/long/path/that/will/not/fit/in/the/width/of/"
	             "a/mail/line/at/all/x.txt\n");
	free(s);
	/* a wide name that is not cut: its columns pad it */
	struct ds_file w2[] = {text("日本/名前.txt", 1, 0), text("abcdefghijklmnop", 2, 0)};
	s = render(w2, 2);
	CHECK_STR(s, " 日本/名前.txt    | 1 +\n"
	             " abcdefghijklmnop | 2 ++\n"
	             " 2 files changed, 3 insertions(+)\n");
	free(s);
	/* git 2.39-2.53 advance by columns counted as bytes, then to a '/' */
	struct ds_file w[] = {text("日本語のとても長いディレクトリ/日本語のファイル名前はここにあります.txt", 1, 0)};
	s = render(w, 1);
	CHECK_STR(s, " .../日本語のファイル名前はここにあります.txt                     | 1 +\n"
	             " 1 file changed, 1 insertion(+)\n");
	free(s);
	CHECK_INT(diffstat_width("é日x"), 4);
	CHECK_INT(diffstat_width("\xe6\x97"), 2);  /* not UTF-8: its bytes */
	CHECK_INT(diffstat_width("\xf0\x9f\x98\x80"), -1);  /* not in the table */
	CHECK(diffstat_git_widths("git version 2.39.5\n"));
	CHECK(diffstat_git_widths("git version 2.53.0.windows.1\n"));
	CHECK(!diffstat_git_widths("git version 2.38.1\n"));  /* counted bytes */
	CHECK(!diffstat_git_widths("git version 2.54.0\n"));  /* cuts by columns */
	CHECK(!diffstat_git_widths("hub version 2.39"));
	struct ds_file u[] = {text("emoji\xf0\x9f\x98\x80", 1, 0)};
	s = render(u, 1);
	CHECK_STR(s, "(not sure)");
	free(s);
}

T(diffstat_renames_braced_by_what_they_share)
{
	static const struct {
		const char *from, *to, *want;
	} cases[] = {
		{"src/old/name.c", "src/new/name.c", "src/{old => new}/name.c"},
		{"d/e/moved", "d/e/renamed", "d/e/{moved => renamed}"},
		{"top", "x/elsewhere", "top => x/elsewhere"},
		{"a/x", "b/x", "{a => b}/x"},
		{"a/b/c", "a/c", "a/{b => }/c"},
		{"\"q\\\"x\"", "\"q\\\"y\"", "\"q\\\"x\" => \"q\\\"y\""},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct ds_file v[] = {text(cases[i].to, 1, 0)};
		v[0].from = xstrdup(cases[i].from);
		v[0].status = 'R', v[0].similarity = 94;
		char *s = render(v, 1);
		char *want = xasprintf(" %s | 1 +\n 1 file changed, 1 insertion(+)\n rename %s (94%%)\n",
		                       cases[i].want, cases[i].want);
		CHECK_STR(s, want);
		free(s);
		free(want);
	}
}

static int scan_text(const char *patch, struct diffstat *d)
{
	char path[] = "/tmp/jail-diffstat-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return -1;
	unlink(path);
	CHECK(write(fd, patch, strlen(patch)) == (ssize_t)strlen(patch));
	lseek(fd, 0, SEEK_SET);
	struct jail_err e;
	int r = diffstat_scan(fd, d, &e);
	close(fd);
	return r;
}

/* format-patch --no-stat's output (git 2.39), its stat as git printed it */
static const char patch[] =
	"From 0 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] c\n\nmessage\n\n"
	"diff --git a/bin b/bin\nnew file mode 100644\n"
	"index 0000000000000000000000000000000000000000..c9096b48e4e2c2fda6b09f679afa8b0662b52b17\n"
	"GIT binary patch\nliteral 3\nKcmWGw2m}BDL;#`y\n\nliteral 0\nHcmV?d00001\n\n"
	"diff --git a/f b/f\n"
	"index 422c2b7ab3b3c668038da977e4e93a5fc623169c..63720831039cc40e6b74a24ccf18a9294d28437c 100644\n"
	"--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n-b\n+c\n+d\n"
	"diff --git a/gone b/gone\ndeleted file mode 100644\n"
	"index 01e79c32a8c99c557f0757da7cb6d65b3414466d..0000000000000000000000000000000000000000\n"
	"--- a/gone\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-1\n-2\n-3\n"
	"diff --git a/m b/m\nold mode 100644\nnew mode 100755\n"
	"diff --git a/src/old/name.c b/src/new/name.c\nsimilarity index 94%\n"
	"rename from src/old/name.c\nrename to src/new/name.c\n"
	"index 0ff3bbb9c8bba2291654cd64067fa417ff54c508..d4de868f166881c4b312015004db3d4c27b0adce 100644\n"
	"--- a/src/old/name.c\n+++ b/src/new/name.c\n@@ -18,3 +18,4 @@\n 18\n 19\n 20\n+21\n";

T(diffstat_reads_a_patch_as_git_wrote_it)
{
	struct diffstat d = {0};
	CHECK_INT(scan_text(patch, &d), 0);
	CHECK_INT(d.n, 5);
	struct strbuf out = {0};
	CHECK_INT(diffstat_render(&d, 72, &out), 0);
	CHECK_STR(out.s, " bin                     | Bin 0 -> 3 bytes\n"
	                 " f                       |   3 ++-\n"
	                 " gone                    |   3 ---\n"
	                 " m                       |   0\n"
	                 " src/{old => new}/name.c |   1 +\n"
	                 " 5 files changed, 3 insertions(+), 4 deletions(-)\n"
	                 " create mode 100644 bin\n"
	                 " delete mode 100644 gone\n"
	                 " mode change 100644 => 100755 m\n"
	                 " rename src/{old => new}/name.c (94%)\n");
	sb_free(&out);
	diffstat_free(&d);
}

T(diffstat_gives_up_on_what_it_is_not_sure_of)
{
	static const char *const bad[] = {
		/* a header it does not know */
		"diff --git a/x b/y\ncopy from x\ncopy to y\n",
		/* a hunk shorter than its header says */
		"diff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+b\n",
		/* a line that is no hunk's */
		"diff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\nstray\n",
		/* a typechange: one path twice */
		"diff --git a/l b/l\ndeleted file mode 100644\nindex 1..0000000000000000000000000000000000000000\n"
		"--- a/l\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n"
		"diff --git a/l b/l\nnew file mode 120000\nindex 0000000000000000000000000000000000000000..2\n"
		"--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+a\n\\ No newline at end of file\n",
		/* two names that are not one */
		"diff --git a/f b/g\nold mode 100644\nnew mode 100755\n",
		/* cut off */
		"diff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct diffstat d = {0};
		CHECK_INT(scan_text(bad[i], &d), 1);
		diffstat_free(&d);
	}
	char *u = diffstat_unquote("\"ta\\tb\\\"\\303\\251\"");
	CHECK_STR(u, "ta\tb\"\xc3\xa9");
	free(u);
	CHECK(diffstat_unquote("\"bad\\q\"") == NULL);
}
