/* Unit tests: export.c's walk of a hand-built upper dir against a lower, and the
 * pure parts of patch.c and git.c. */
#include "t.h"
#include "export.h"
#include "git.h"
#include "patch.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

static char root[] = "/tmp/jail-unit-export.XXXXXX";

static void put(const char *rel, const char *content)
{
	char *p = xasprintf("%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(content, f);
		fclose(f);
	}
	free(p);
}

static void mk(const char *rel)
{
	t_mkdir_under(root, rel);
}

static void whiteout(const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	if (mknod(p, S_IFCHR | 0600, makedev(0, 0)) < 0)
		perror("mknod whiteout");
	free(p);
}

static const struct change *find(const struct changeset *cs, const char *path)
{
	for (size_t i = 0; i < cs->n; i++)
		if (strcmp(cs->v[i].path, path) == 0)
			return &cs->v[i];
	return NULL;
}

/* lower: a/x a/y keep same mode dir/{1,2} old sub/{k,l} hid/s
 * upper: a/x changed, a/y whiteout, keep copied up equal, mode +x, dir whiteout,
 *        old replaced by a directory, sub opaque with only k, a fifo, .git/config,
 *        hid whiteout listed in hidden */
T(walk_classifies_overlay_entries)
{
	if (!mkdtemp(root))
		return;
	mk("l/a"), mk("l/dir"), mk("l/sub"), mk("l/hid"), mk("u/a"), mk("u/sub"), mk("u/.git"), mk("s/upper");
	put("l/a/x", "1\n"), put("l/a/y", "2\n"), put("l/keep", "k\n"), put("l/same", "s\n");
	put("l/mode", "m\n"), put("l/dir/1", "1\n"), put("l/dir/2", "2\n"), put("l/old", "o\n");
	put("l/sub/k", "k\n"), put("l/sub/l", "l\n"), put("l/hid/s", "secret\n");
	put("u/a/x", "1 changed\n"), whiteout("u/a/y"), put("u/keep", "k\n"), put("u/mode", "m\n");
	whiteout("u/dir"), mk("u/old"), put("u/old/new", "n\n"), put("u/sub/k", "k2\n");
	whiteout("u/hid"), put("u/.git/config", "[core]\n"), put("s/hidden", "hid/\n");
	char *p = xasprintf("%s/u/mode", root);
	chmod(p, 0755);
	free(p);
	p = xasprintf("%s/u/sub", root);
	CHECK_INT(setxattr(p, "user.overlay.opaque", "y", 1, 0), 0);
	free(p);
	/* a privileged overlay marks with trusted.*: only root can set it here */
	mk("l/tdir"), put("l/tdir/gone", "g\n"), mk("u/tdir"), put("u/tdir/new", "n\n");
	p = xasprintf("%s/u/tdir", root);
	bool trusted = geteuid() == 0 && setxattr(p, "trusted.overlay.opaque", "y", 1, 0) == 0;
	free(p);
	p = xasprintf("%s/u/fifo", root);
	CHECK_INT(mkfifo(p, 0600), 0);
	free(p);

	/* the session dir is s/, with upper -> ../u */
	char *link = xasprintf("%s/s/upper", root), *target = xasprintf("%s/u", root);
	rmdir(link);
	CHECK_INT(symlink(target, link), 0); /* opened without O_NOFOLLOW? must fail */
	free(target);
	struct jail_config cfg;
	config_init(&cfg);
	struct export_ctx x;
	struct jail_err e;
	char *lower = xasprintf("%s/l", root), *sdir = xasprintf("%s/s", root);
	CHECK_INT(export_ctx_open(&x, lower, sdir, &cfg, &e), -1); /* symlinked upper refused */
	export_ctx_close(&x);
	unlink(link);
	free(link);
	link = xasprintf("%s/s/upper", root);
	target = xasprintf("%s/u", root);
	CHECK_INT(rename(target, link), 0);
	free(target);
	free(link);
	CHECK_INT(export_ctx_open(&x, lower, sdir, &cfg, &e), 0);
	CHECK(!x.is_repo);
	struct changeset cs;
	CHECK_INT(export_scan(&x, &cs, &e), 0);
	CHECK_INT(export_filter(&x, &cs, &e), 0);

	const struct change *c;
	CHECK((c = find(&cs, "a/x")) && c->old_type == FT_FILE && c->new_type == FT_FILE && !c->reason);
	CHECK((c = find(&cs, "a/y")) && c->new_type == FT_NONE);
	CHECK(find(&cs, "keep") == NULL);
	CHECK((c = find(&cs, "mode")) && (c->flags & CF_EXEC_ADDED));
	CHECK((c = find(&cs, "dir/1")) && c->new_type == FT_NONE);
	CHECK((c = find(&cs, "dir/2")) && c->new_type == FT_NONE);
	CHECK((c = find(&cs, "old")) && c->new_type == FT_NONE && c->old_type == FT_FILE);
	CHECK((c = find(&cs, "old/new")) && c->old_type == FT_NONE);
	CHECK((c = find(&cs, "sub/k")) && c->new_type == FT_FILE);
	CHECK((c = find(&cs, "sub/l")) && c->new_type == FT_NONE); /* opaque */
	CHECK((c = find(&cs, "fifo")) && c->reason && strstr(c->reason, "fifo"));
	CHECK(find(&cs, "hid/s") == NULL && find(&cs, "hid") == NULL);
	CHECK(find(&cs, ".git/config") == NULL);
	CHECK(cs.git_dirs.n == 1 && strcmp(cs.git_dirs.v[0], ".git") == 0);
	CHECK((c = find(&cs, "tdir/new")) && c->old_type == FT_NONE);
	if (trusted)
		CHECK((c = find(&cs, "tdir/gone")) && c->new_type == FT_NONE);
	else
		fprintf(stderr, "  (not root: trusted.overlay.opaque not checked)\n");
	CHECK_INT(cs.n, trusted ? 12 : 11);

	changeset_free(&cs);
	export_ctx_close(&x);
	config_free(&cfg);
	free(lower);
	free(sdir);
	CHECK_INT(rm_rf_at(AT_FDCWD, root, &e), 0);
}

T(open_beneath_refuses_symlinks_and_dotdot)
{
	char dir[] = "/tmp/jail-unit-beneath.XXXXXX";
	if (!mkdtemp(dir))
		return;
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(mkdirat(fd, "d", 0700) == 0);
	CHECK(symlinkat("/etc", fd, "d/l") == 0);
	CHECK(symlinkat("d", fd, "ld") == 0);
	int f = openat(fd, "d/f", O_CREAT | O_WRONLY, 0600);
	close(f);
	f = open_beneath(fd, "d/f", O_RDONLY);
	CHECK(f >= 0);
	close(f);
	CHECK(open_beneath(fd, "d/l/passwd", O_RDONLY) < 0);
	CHECK(open_beneath(fd, "ld/f", O_RDONLY) < 0);
	CHECK(open_beneath(fd, "../etc/passwd", O_RDONLY) < 0);
	close(fd);
	struct jail_err e;
	CHECK_INT(rm_rf_at(AT_FDCWD, dir, &e), 0);
}

static void no_hang(int sig)
{
	(void)sig;
	static const char m[] = "  FAIL: an open of a fifo blocked (the agent can hang jail diff)\n";
	if (write(2, m, sizeof(m) - 1) < 0) {
		/* exiting anyway */
	}
	_exit(1);
}

/* A file the walk saw as regular can be a fifo when it is read (a live session's
 * agent swaps them): the read fails at once instead of waiting for a writer. */
T(reading_a_fifo_in_place_of_a_file_never_blocks)
{
	char dir[] = "/tmp/jail-unit-fifo.XXXXXX";
	if (!mkdtemp(dir))
		return;
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(mkfifoat(fd, "f", 0600) == 0);
	signal(SIGALRM, no_hang);
	alarm(10);
	struct strbuf b = {0};
	struct jail_err e;
	CHECK(read_entry(fd, "f", FT_FILE, 1024, &b, &e) < 0);
	int f = open_beneath(fd, "f", O_RDONLY);
	CHECK(f >= 0);
	if (f >= 0)
		close(f);
	alarm(0);
	CHECK(symlinkat("target", fd, "l") == 0);  /* O_PATH opens still work */
	CHECK(read_entry(fd, "l", FT_SYMLINK, 1024, &b, &e) == 0 && strcmp(b.s, "target") == 0);
	sb_free(&b);
	close(fd);
	CHECK_INT(rm_rf_at(AT_FDCWD, dir, &e), 0);
}

T(git_runs_hardened)
{
	struct strv a = {0}, env = {0};
	git_argv_prefix(&a);
	struct git g = {.cwd = "/", .git_dir = "/x"};
	git_env(&g, &env);
	CHECK(strv_contains(&a, "core.hooksPath=/dev/null"));
	CHECK(strv_contains(&a, "core.fsmonitor=false"));
	CHECK(strv_contains(&a, "--no-pager"));
	CHECK(strv_contains(&env, "GIT_CONFIG_NOSYSTEM=1"));
	CHECK(strv_contains(&env, "GIT_CONFIG_GLOBAL=/dev/null"));
	CHECK(strv_contains(&env, "GIT_DIR=/x"));
	for (size_t i = 0; i < env.n; i++)
		CHECK(strncmp(env.v[i], "GIT_EXEC_PATH", 13) != 0);
	strv_free(&a);
	strv_free(&env);
	/* a `git config --get` as the user's git reads it: the user's files,
	 * once each (getenv takes the first of a name given twice) */
	struct git as_user = {.cwd = "/", .user_config = true};
	git_env(&as_user, &env);
	_cleanup_free_ char *home = xasprintf("HOME=%s", home_dir());
	CHECK(strv_contains(&env, home));
	CHECK(!strv_contains(&env, "HOME=/nonexistent"));
	CHECK(!strv_contains(&env, "GIT_CONFIG_GLOBAL=/dev/null"));
	CHECK(!strv_contains(&env, "GIT_CONFIG_NOSYSTEM=1"));
	strv_free(&env);
	/* a failing git names itself and escapes its message */
	struct jail_err e;
	const char *args[] = {"rev-parse", "--verify", "no\033such", NULL};
	struct git here = {.cwd = "/", .git_dir = "/nonexistent"};
	CHECK_INT(git_run(&here, args, NULL, 0, NULL, NULL, &e), -1);
	CHECK(strstr(e.msg, "git rev-parse failed") != NULL);
	CHECK(strchr(e.msg, '\033') == NULL);
}

/* A stream fed in pieces reaches git whole and in order (hash-object of 3 MB,
 * more than a pipe holds, fed as odd-sized pieces), and the environment carries
 * the malloc tunables. */
T(git_is_fed_in_pieces)
{
	struct strv env = {0};
	struct git g = {.cwd = "/"};
	git_env(&g, &env);
	bool tunables = false;
	for (size_t i = 0; i < env.n; i++)
		tunables |= strncmp(env.v[i], "GLIBC_TUNABLES=glibc.malloc.", 28) == 0;
	CHECK(tunables);
	strv_free(&env);
	size_t n = 3u << 20;
	char *data = xmalloc(n);
	for (size_t i = 0; i < n; i++)
		data[i] = (char)('a' + (i * 7 + i / 4099) % 26);
	struct jail_err e;
	const char *args[] = {"hash-object", "--stdin", NULL};
	struct strbuf whole = {0}, pieces = {0};
	CHECK_INT(git_run(&g, args, data, n, &whole, NULL, &e), 0);
	struct git_proc p = {.out_buf = &pieces};
	CHECK_INT(git_start(&g, args, &p, &e), 0);
	for (size_t off = 0, k = 1; off < n; off += k, k = k * 3 + 1)
		CHECK_INT(git_feed(&p, data + off, off + k > n ? n - off : k, &e), 0);
	CHECK_INT(git_finish(&p, NULL, &e), 0);
	CHECK(whole.len == 41 && pieces.len == 41);
	CHECK(whole.s && pieces.s && memcmp(whole.s, pieces.s, 41) == 0);
	/* and straight into a file */
	char path[] = "/tmp/jail-unit-gitfd.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	const char *ver[] = {"hash-object", "--stdin", NULL};
	CHECK_INT(git_run_to_fd(&g, ver, fd, &e), 0);  /* stdin empty: the empty blob */
	char buf[64] = "";
	CHECK(pread(fd, buf, sizeof(buf) - 1, 0) == 41);
	CHECK(strncmp(buf, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\n", 41) == 0);
	close(fd);
	unlink(path);
	free(data);
	sb_free(&whole);
	sb_free(&pieces);
}

T(terminal_output_is_escaped)
{
	struct strbuf b = {0};
	sanitize_for_terminal("ok\t\n\033[2J\xc2\x9b" "caf\xc3\xa9\xff", 16, &b);
	CHECK_STR(b.s, "ok\t\n\\x1b[2J\\xc2\\x9bcaf\xc3\xa9\\xff");
	sb_free(&b);
	const char *d = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\033]0;t\007\n";
	bool in_header = false;
	colorize_diff(d, strlen(d), &in_header, &b);
	CHECK(strstr(b.s, "\033[32m+new\\x1b]0;t\\x07\033[m") != NULL);
	CHECK(strstr(b.s, "\033[31m-old\033[m") != NULL);
	CHECK(strstr(b.s, "\033[1m+++ b/x\033[m") != NULL);
	sb_free(&b);
}

T(summary_and_message_escape_names)
{
	struct changeset cs = {0};
	struct change v[2] = {
		{.path = (char *)"ok.txt", .old_type = FT_NONE, .new_type = FT_FILE, .added = 3},
		{.path = (char *)"bad\033name", .new_type = FT_FILE, .reason = (char *)"control character in the name"},
	};
	cs.v = v;
	cs.n = 2;
	struct strbuf b = {0};
	summary_render(&cs, "/p/0001-x.patch", &b);
	CHECK(strstr(b.s, "1 file changed, +3 -0") != NULL);
	CHECK(strstr(b.s, "  A ok.txt +3 -0") != NULL);
	CHECK(strstr(b.s, "bad\\x1bname: control character") != NULL);
	CHECK(strstr(b.s, "patch: /p/0001-x.patch") != NULL);
	CHECK(strchr(b.s, '\033') == NULL);
	sb_free(&b);
	char *m = patch_message(&cs, "Add ok.txt (jail session default)");
	CHECK(strncmp(m, "Add ok.txt (jail session default)\n\n", 35) == 0);
	CHECK(strstr(m, "Left out of this patch:\n  bad\\x1bname") != NULL);
	free(m);
	struct changeset none = {0};
	summary_render(&none, NULL, &b);
	CHECK(b.len == 0);
	sb_free(&b);
}

T(left_out_files_of_one_directory_are_one_line)
{
	struct change v[8];
	memset(v, 0, sizeof(v));
	char *paths[] = {"a.txt", "node_modules/a/1.js", "node_modules/a/2.js",
	                       "node_modules/b/3.js", "node_modules/c.js", "x/1.pyc", "y/2.pyc", "z.c"};
	for (size_t i = 0; i < 8; i++) {
		v[i].path = paths[i];
		v[i].new_type = FT_FILE;
	}
	for (size_t i = 1; i < 5; i++)
		v[i].reason = (char *)"matches 'node_modules/'";
	v[5].reason = v[6].reason = (char *)"matches '*.pyc'";
	struct changeset cs = {.v = v, .n = 8};
	struct strbuf b = {0};
	summary_render(&cs, NULL, &b);
	CHECK(strstr(b.s, "left out (6):\n  node_modules/ (4 files): matches 'node_modules/'\n"
	                  "  x/1.pyc: matches '*.pyc'\n  y/2.pyc: matches '*.pyc'\n") != NULL);
	sb_free(&b);
}
