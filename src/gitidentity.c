/* gitidentity.c — the jail's ~/.gitconfig: the user's name and email only.
 *
 * The host's git config can hold credential helpers, aliases that run commands,
 * includes and url rewrites; the agent needs none of them, only an identity for
 * its commits.  git itself reads the value (so include files and XDG locations
 * work as the user expects), through the hardened git runner, from cwd "/" so
 * no repository's config is involved. */
#include "git.h"
#include "secrets.h"

#include <string.h>

/* A name or address: one line of valid UTF-8 without control characters (the
 * trailing newline dropped here). */
static bool value_ok(char *v)
{
	size_t len = strlen(v);
	while (len && (v[len - 1] == '\n' || v[len - 1] == '\r'))
		v[--len] = '\0';
	if (!len || !is_valid_utf8(v, len))
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			return false;
	return true;
}

/* One value of the user's own git config files, as git reads it (includes
 * followed); ~/.gitconfig wins over the XDG file, as for git itself. */
static char *git_get(const char *key)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	_cleanup_free_ char *xdir = xdg && *xdg == '/' ? xstrdup(xdg)
	                                               : xasprintf("%s/.config", home_dir());
	_cleanup_free_ char *home_cfg = xasprintf("%s/.gitconfig", home_dir());
	_cleanup_free_ char *xdg_cfg = xasprintf("%s/git/config", xdir);
	const char *files[] = {home_cfg, xdg_cfg};
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		struct git g = {.cwd = "/"};
		struct strbuf out = {0};
		struct jail_err e;
		int status = 1;
		const char *args[] = {"config", "--file", files[i], "--includes", "--get", key, NULL};
		if (access(files[i], R_OK) == 0 && git_run(&g, args, NULL, 0, &out, &status, &e) == 0 &&
		    status == 0 && out.s) {
			char *v = sb_steal(&out);
			if (value_ok(v))
				return v;
			free(v);
		}
		sb_free(&out);
	}
	return NULL;
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
