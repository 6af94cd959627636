/* fuzz_export.c — libFuzzer harness for the export's pure code that reads what
 * the agent wrote: path rules (names, patterns, symlink targets) and the
 * terminal filters of `jail diff`.  Build and run: tests/fuzz/run.sh [SECONDS];
 * given files as arguments it replays them (crash files). */
#include "pathrules.h"
#include "patch.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	(void)path_flag_reason(path);
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
	colorize_diff((const char *)data, size, &b);
	sb_free(&b);
	free(escape_name(path));
	free(buf);
	return 0;
}
