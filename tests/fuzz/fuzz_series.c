/* fuzz_series.c — libFuzzer harness for what the series export parses of the
 * agent's repository: HEAD and ref files, packed-refs, commit messages and
 * author names.  Build as fuzz_policy.c says, with this file instead. */
#include "agentgit.h"
#include "seriesmsg.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	char oid[65];
	char *ref = NULL;
	if (agentgit_parse_head(s, size, 40, oid, &ref) == 1) {
		if (!agentgit_refname_ok(ref))
			abort();
		(void)agentgit_packed_find(s, size, ref, 40, oid);
	}
	free(ref);
	char *m = seriesmsg_sanitize(s, size);
	/* nothing git am would parse may start a line of the body */
	const char *body = strstr(m, "\n\n");
	for (const char *l = body; l; l = strchr(l + 1, '\n'))
		if (!strncmp(l + 1, "---", 3) || !strncmp(l + 1, "diff -", 6) || !strncmp(l + 1, "From ", 5))
			abort();
	char *f = seriesmsg_finish(m, NULL, "p/s");
	free(f);
	free(m);
	free(seriesmsg_ident_part(s, size, false));
	free(seriesmsg_ident_part(s, size, true));
	return 0;
}
