/* Unit tests: util.c and sha256.c. */
#include "t.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>

T(sha256_known_vectors)
{
	char hex[65];
	sha256_hex("", 0, hex);
	CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_hex("abc", 3, hex);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	sha256_hex(two, strlen(two), hex);
	CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

T(escape_name_makes_controls_visible)
{
	char *s = escape_name("a\nb\x1b[31m\\c");
	CHECK_STR(s, "a\\x0ab\\x1b[31m\\x5cc");
	free(s);
	s = escape_name("caf\xc3\xa9 \xff");
	CHECK_STR(s, "caf\xc3\xa9 \\xff");
	free(s);
	s = escape_name("\xc2\x9b" "x"); /* C1 CSI */
	CHECK_STR(s, "\\xc2\\x9bx");
	free(s);
	s = escape_name(".git\xe2\x80\x8c/a\xe2\x80\xae" "b"); /* ZWNJ, RLO */
	CHECK_STR(s, ".git\\xe2\\x80\\x8c/a\\xe2\\x80\\xaeb");
	free(s);
}

/* jail's own lines pass escape_controls (log.c): no byte in them can drive
 * the terminal, and what escape_name made reads the same. */
static void expect_controls(const char *in, size_t cap, const char *want)
{
	char out[256];
	size_t n = escape_controls(in, strlen(in), out, cap);
	out[n] = '\0';
	CHECK_STR(out, want);
}

T(escape_controls_leaves_no_control_byte)
{
	expect_controls("a\tb\x1b]52;c;x\x07\r\nc", 200, "a\tb\\x1b]52;c;x\\x07\\x0d\\x0ac");
	expect_controls("\xc2\x9b" "6n\x9d\x7f \xc3\xa9\xff", 200,
	                "\\xc2\\x9b6n\\x9d\\x7f \xc3\xa9\\xff");
	expect_controls("name \\x1b kept, \xe5\x9b\xbd", 200, "name \\x1b kept, \xe5\x9b\xbd");
	/* cut before what does not fit, never inside an escape or a character */
	expect_controls("ab\x1b", 5, "ab");
	expect_controls("a\xe5\x9b\xbd", 3, "a");
}

/* a terminal in an 8-bit encoding reads 0x9B inside U+00DB (C3 9B) as CSI */
T(escape_controls_on_an_eight_bit_terminal_escapes_every_c1_byte)
{
	const char *saved = getenv("LC_ALL");
	_cleanup_free_ char *keep = saved ? xstrdup(saved) : NULL;
	setenv("LC_ALL", "de_DE.ISO-8859-1", 1);
	expect_controls("\xc3\x9b" "2J\xc3\x9d\xe5\x9b\xbd\xc3\xa9", 200,
	                "\xc3\\x9b2J\xc3\\x9d\xe5\\x9b\xbd\xc3\xa9");
	setenv("LC_ALL", "de_DE.UTF-8", 1);
	expect_controls("\xc3\x9b", 200, "\xc3\x9b");
	if (keep)
		setenv("LC_ALL", keep, 1);
	else
		unsetenv("LC_ALL");
}

T(utf8_validation)
{
	CHECK(is_valid_utf8("plain", 5));
	CHECK(is_valid_utf8("\xe2\x82\xac", 3));
	CHECK(!is_valid_utf8("\xc0\xaf", 2));          /* overlong */
	CHECK(!is_valid_utf8("\xed\xa0\x80", 3));      /* surrogate */
	CHECK(!is_valid_utf8("\xe2\x82", 2));          /* truncated */
}

T(error_wrap_keeps_errno_text)
{
	struct jail_err e;
	CHECK_INT(jail_err_set(&e, ENOENT, "open '%s'", "/x"), -1);
	CHECK_STR(e.msg, "open '/x': No such file or directory");
	jail_err_wrap(&e, "session %s", "s1");
	CHECK_STR(e.msg, "session s1: open '/x': No such file or directory");
	CHECK_INT(e.errnum, ENOENT);
}

T(strv_and_strbuf)
{
	struct strv l = {0};
	strv_push(&l, "a");
	strv_push(&l, "b");
	CHECK(strv_contains(&l, "b"));
	CHECK(!strv_contains(&l, "c"));
	CHECK(l.v[2] == NULL);
	strv_free(&l);
	struct strbuf b = {0};
	sb_printf(&b, "%d-%s", 7, "x");
	sb_puts(&b, "!");
	char *s = sb_steal(&b);
	CHECK_STR(s, "7-x!");
	free(s);
}

/* rm_rf_at() removes a tree deeper than the fds it may open and longer than
 * PATH_MAX, with directories of mode 000 and 0500 on the way (issue 20). */
T(rm_rf_at_any_depth_with_few_fds)
{
	char tmpl[] = "/tmp/jail-unit-rm.XXXXXX";
	CHECK(mkdtemp(tmpl) != NULL);
	int top = open(tmpl, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int fd = dup(top), ro = -1;
	for (int i = 0; i < 3000 && fd >= 0; i++) {  /* 3000 x "dd/": beyond PATH_MAX */
		CHECK(mkdirat(fd, "dd", 0700) == 0);
		int sub = openat(fd, "dd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (i % 2 == 0)
			close(openat(fd, "f", O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
		if (i == 1000)
			ro = dup(sub);
		close(fd);
		fd = sub;
	}
	close(fd);
	/* made read-only once its subtree exists: an ordinary user could not
	 * have created it otherwise */
	CHECK(fchmod(ro, 0500) == 0);
	close(ro);
	CHECK(fchmodat(top, "dd", 0, 0) == 0);
	struct rlimit old, few = {40, 40};
	getrlimit(RLIMIT_NOFILE, &old);
	few.rlim_max = old.rlim_max;
	setrlimit(RLIMIT_NOFILE, &few);
	struct jail_err e = {0};
	int r = rm_rf_at(top, "dd", &e);
	setrlimit(RLIMIT_NOFILE, &old);
	if (r < 0)
		fprintf(stderr, "  rm_rf_at: %s\n", e.msg);
	CHECK(r == 0);
	struct stat st;
	CHECK(fstatat(top, "dd", &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT);
	CHECK(unlinkat(top, "f", 0) == 0);
	close(top);
	CHECK(rmdir(tmpl) == 0);
}

T(mkdir_p_makes_missing_parents_and_accepts_existing)
{
	char root[] = "/tmp/jail-unit-mkdirp-XXXXXX";
	CHECK(mkdtemp(root) != NULL);
	struct jail_err e;
	struct stat st;
	char *deep = xasprintf("%s/a/b/c/", root);
	CHECK(mkdir_p(deep, 0700, &e) == 0);
	CHECK(stat(deep, &st) == 0 && S_ISDIR(st.st_mode));
	CHECK(mkdir_p(deep, 0700, &e) == 0); /* exists: fine */
	char *file = xasprintf("%s/f", root);
	int fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	close(fd);
	char *under = xasprintf("%s/f/x/y", root);
	CHECK(mkdir_p(under, 0700, &e) < 0 && e.errnum == ENOTDIR);
	char *cmd = xasprintf("rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
	free(deep), free(file), free(under), free(cmd);
}

/* A name left at the temporary file (a hard link to another file, a symlink)
 * is replaced, never written through. */
T(replace_file_never_writes_through_the_tmp_name)
{
	char root[] = "/tmp/jail-unit-replace-XXXXXX";
	CHECK(mkdtemp(root) != NULL);
	struct jail_err e;
	char *victim = xasprintf("%s/victim", root);
	char *path = xasprintf("%s/running", root);
	char *tmp = xasprintf("%s/running.tmp", root);
	CHECK(write_file_at(AT_FDCWD, victim, "keep", 4, 0600, &e) == 0);
	CHECK(link(victim, tmp) == 0);
	CHECK(replace_file(path, "new", 3, 0600, &e) == 0);
	char *got = NULL;
	CHECK(read_file_at(AT_FDCWD, victim, 64, &got, NULL, &e) == 0 && strcmp(got, "keep") == 0);
	free(got);
	CHECK(read_file_at(AT_FDCWD, path, 64, &got, NULL, &e) == 0 && strcmp(got, "new") == 0);
	free(got);
	CHECK(symlink(victim, tmp) == 0);
	CHECK(replace_file(path, "again", 5, 0600, &e) == 0);
	CHECK(read_file_at(AT_FDCWD, victim, 64, &got, NULL, &e) == 0 && strcmp(got, "keep") == 0);
	free(got);
	char *cmd = xasprintf("rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
	free(victim), free(path), free(tmp), free(cmd);
}
