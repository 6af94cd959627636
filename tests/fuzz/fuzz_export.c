/* fuzz_export.c — libFuzzer harness for the export's pure code that reads what
 * the agent wrote: path rules (names, patterns, symlink targets), symlink
 * resolution in a small tree (linkcheck.c), the terminal filters of `jail diff`
 * and the pty relay's filter.  Build and run: tests/fuzz/run.sh [SECONDS];
 * given files as arguments it replays them (crash files). */
#include "linkcheck.h"
#include "pathrules.h"
#include "patch.h"
#include "termfilter.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A project and an upper dir with links of both kinds, made once. */
static struct link_view *tree(void)
{
	static struct link_view v = {-1, -1, NULL, NULL, NULL};
	static char dir[] = "/tmp/jail-fuzz-links.XXXXXX";
	if (v.lower_fd >= 0 || !mkdtemp(dir))
		return &v;
	const char *mk[] = {"l", "l/a", "l/a/b", "u", "u/a", "u/d"};
	const char *ln[][2] = {{"..", "l/a/up"}, {"/etc", "l/abs"}, {"a/b", "l/ab"},
	                       {"..", "u/d/up"}, {"up/../x", "u/d/esc"}, {"loop", "u/loop"}};
	char p[128];
	for (size_t i = 0; i < sizeof(mk) / sizeof(mk[0]); i++)
		snprintf(p, sizeof(p), "%s/%s", dir, mk[i]), mkdir(p, 0755);
	for (size_t i = 0; i < sizeof(ln) / sizeof(ln[0]); i++)
		snprintf(p, sizeof(p), "%s/%s", dir, ln[i][1]), (void)!symlink(ln[i][0], p);
	snprintf(p, sizeof(p), "%s/l", dir);
	v.lower_fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(p, sizeof(p), "%s/u", dir);
	v.upper_fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return &v;
}

/* The length of the valid UTF-8 character at s (n bytes left), or 0. */
static size_t utf8_char(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	if (s[0] < 0xc2 || s[0] > 0xf4 || n < len)
		return 0;
	unsigned char lo = 0x80, hi = 0xbf;
	if (s[0] == 0xe0) lo = 0xa0;
	if (s[0] == 0xed) hi = 0x9f;
	if (s[0] == 0xf0) lo = 0x90;
	if (s[0] == 0xf4) hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* The pty filter in two reads: no raw C1 byte leaves it, the bound holds. */
static void term_filter_check(const uint8_t *data, size_t size)
{
	static struct term_filter f;
	memset(&f, 0, sizeof(f));
	f.eight_bit = size & 2;
	char *out = xmalloc(size + sizeof(f.hold) + TERM_RESET_MAX);
	size_t half = size / 2, n = term_filter_run(&f, (const char *)data, half, out);
	if (n > half + sizeof(f.hold))
		__builtin_trap();
	size_t m = term_filter_run(&f, (const char *)data + half, size - half, out + n);
	if (m > size - half + sizeof(f.hold))
		__builtin_trap();
	const unsigned char *o = (const unsigned char *)out;
	for (size_t i = 0; i < n + m; i++) {
		size_t len = f.eight_bit ? 0 : utf8_char(o + i, n + m - i);
		if (len)
			i += len - 1;
		else if (o[i] >= 0x80 && o[i] <= 0x9f)
			__builtin_trap(); /* a C1 control outside a valid character */
	}
	if (term_filter_reset(&f, out) > TERM_RESET_MAX)
		__builtin_trap();
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* input: PATTERN \0 PATH \0 TARGET (missing parts are empty) */
	char *buf = xmalloc(size + 3);
	memcpy(buf, data, size);
	buf[size] = buf[size + 1] = buf[size + 2] = '\0';
	const char *pattern = buf;
	const char *path = pattern + strlen(pattern) + 1;
	if (path > buf + size)
		path = buf + size + 1;
	const char *target = path + strlen(path) + 1;
	if (target > buf + size + 1)
		target = buf + size + 2;

	(void)pattern_match(pattern, path, size & 1);
	(void)path_name_problem(path);
	(void)path_in_git_dir(path);
	(void)symlink_leaves_tree(path, target);
	if (tree()->lower_fd >= 0)
		free(link_check(tree(), path, target));
	term_filter_check(data, size);
	(void)path_flag_reason(path, size & 2);
	(void)path_git_refuses(path, size & 2);
	(void)content_is_binary((const char *)data, size);

	static struct pathrules rules;
	static int init;
	if (!init) {
		struct jail_config cfg;
		config_init(&cfg);
		pathrules_init(&rules, &cfg);
		config_free(&cfg);
		init = 1;
	}
	free(pathrules_denied(&rules, path, false));

	struct strbuf b = {0};
	sanitize_for_terminal((const char *)data, size, &b);
	/* nothing that drives a terminal survives, except what we add ourselves */
	for (size_t i = 0; i < b.len; i++)
		if ((unsigned char)b.s[i] < 0x20 && b.s[i] != '\t' && b.s[i] != '\n')
			__builtin_trap();
	sb_free(&b);
	bool in_header = false;
	colorize_diff((const char *)data, size, &in_header, &b);
	sb_free(&b);
	free(escape_name(path));
	free(buf);
	return 0;
}
