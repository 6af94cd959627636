/* gitidentity.c — the jail's ~/.gitconfig: the user's name and email only.
 *
 * The host's git config can hold credential helpers, aliases that run commands,
 * includes and url rewrites; the agent needs none of them, only an identity for
 * its commits.  git itself reads the value (so include files and XDG locations
 * work as the user expects), through the hardened git runner (argv, no system
 * config, only HOME), from cwd "/" so no repository's config is involved. */
#include "hide.h"
#include "secrets.h"

#include <string.h>
#include <sys/wait.h>

static char *git_get(const char *key)
{
	_cleanup_free_ char *k = xstrdup(key);
	char *argv[] = {(char *)"git", (char *)"config", (char *)"--global", (char *)"--includes",
	                (char *)"--get", k, NULL};
	struct strbuf b = {0};
	int status = 0;
	struct jail_err e = {0};
	if (spawn_capture(argv, "/", 4096, &b, &status, &e) < 0) {
		sb_free(&b);
		return NULL;
	}
	sb_append(&b, "", 0);
	size_t len = b.len;
	char *out = sb_steal(&b);
	while (len && (out[len - 1] == '\n' || out[len - 1] == '\r'))
		out[--len] = '\0';
	bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && len > 0 && strlen(out) == len &&
	          is_valid_utf8(out, len);
	for (size_t i = 0; ok && i < len; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			ok = false;
	if (!ok)
		free(steal_ptr(&out));
	return out;
}

/* A git config value in double quotes: only '"' and '\' need escaping once
 * control characters are excluded. */
static void put_value(struct strbuf *b, const char *key, const char *v)
{
	sb_printf(b, "\t%s = \"", key);
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			sb_append(b, "\\", 1);
		sb_append(b, v, 1);
	}
	sb_puts(b, "\"\n");
}

char *gitidentity_gitconfig(void)
{
	_cleanup_free_ char *name = git_get("user.name");
	_cleanup_free_ char *email = git_get("user.email");
	if (!name && !email)
		return NULL;
	struct strbuf b = {0};
	sb_puts(&b, "# written by jail: the identity of the host's git config, nothing else\n[user]\n");
	if (name)
		put_value(&b, "name", name);
	if (email)
		put_value(&b, "email", email);
	return sb_steal(&b);
}
