/* Unit tests: util.c and sha256.c. */
#include "t.h"
#include "util.h"

#include <errno.h>

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
