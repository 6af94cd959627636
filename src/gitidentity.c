/* gitidentity.c — the jail's ~/.gitconfig: the user's name and email only;
 * and the user's global ignore rules, for ~/.config/git/ignore inside.
 *
 * The host's git config can hold credential helpers, aliases that run commands,
 * includes and url rewrites; the agent needs none of them, only an identity for
 * its commits.  git itself reads the value (so include files and XDG locations
 * work as the user expects), through the hardened git runner, from cwd "/" so
 * no repository's config is involved. */
#include "git.h"
#include "secrets.h"
#include "session.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

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

/* user.name and user.email of one config file, as git reads it (includes
 * followed): one git run asks for both (each run costs start-up time). */
static void read_identity(const char *file, char **name, char **email)
{
	if (access(file, R_OK) < 0)
		return;
	struct git g = {.cwd = "/"};
	struct strbuf out = {0};
	struct jail_err e;
	int status = 1;
	const char *args[] = {"config", "--file", file, "--includes", "--null", "--get-regexp",
	                      "^user\\.(name|email)$", NULL};
	if (git_run(&g, args, NULL, 0, &out, &status, &e) < 0 || status != 0 || !out.s) {
		sb_free(&out);
		return;
	}
	/* records "key\nvalue\0"; the last of a key wins, as in git */
	for (size_t i = 0; i < out.len;) {
		char *rec = out.s + i, *nl = strchr(rec, '\n');
		i += strlen(rec) + 1;
		if (!nl)
			continue;
		*nl = '\0';
		char **slot = strcmp(rec, "user.name") == 0 ? name : strcmp(rec, "user.email") == 0 ? email : NULL;
		char *v = xstrdup(nl + 1);
		if (slot && value_ok(v)) {
			free(*slot);
			*slot = v;
		} else {
			free(v);
		}
	}
	sb_free(&out);
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

static char *identity_from_git(const char *home_cfg, const char *xdg_cfg)
{
	_cleanup_free_ char *name = NULL, *email = NULL;
	/* the XDG file first: ~/.gitconfig wins, as for git itself */
	read_identity(xdg_cfg, &name, &email);
	read_identity(home_cfg, &name, &email);
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

/* A value of the user's git config that costs git runs (a quarter of jail's
 * start-up each), kept in the state root (<name>.cache) with the stamps of
 * both config files; not when either includes others: a change to an
 * included file would not change the stamps.  NULL: none. */
static char *config_cached(const char *name, char *(*read)(const struct git_user_paths *u))
{
	struct git_user_paths u;
	git_user_paths(&u);
	char s1[FILE_STAMP_MAX], s2[FILE_STAMP_MAX];
	file_stamp(AT_FDCWD, u.home_config, s1);
	file_stamp(AT_FDCWD, u.xdg_config, s2);
	_cleanup_free_ char *key = xasprintf("jail-%s-1 %s %s\n", name, s1, s2);
	_cleanup_free_ char *root = state_root();
	_cleanup_free_ char *cache = xasprintf("%s/%s.cache", root, name);
	_cleanup_free_ char *old = NULL;
	struct jail_err e;
	size_t kl = strlen(key);
	if (read_file_at(AT_FDCWD, cache, 1 << 16, &old, NULL, &e) == 0 &&
	    strncmp(old, key, kl) == 0) {
		git_user_paths_free(&u);
		return old[kl] ? xstrdup(old + kl) : NULL;
	}
	char *value = read(&u);
	bool includes = git_config_has_includes(u.home_config) ||
	                git_config_has_includes(u.xdg_config);
	git_user_paths_free(&u);
	if (includes)
		return value;
	_cleanup_free_ char *data = xasprintf("%s%s", key, value ? value : "");
	_cleanup_free_ char *tmp = xasprintf("%s.%d", cache, (int)getpid());
	if (mkdir_p(root, 0700, &e) == 0 &&
	    write_file_at(AT_FDCWD, tmp, data, strlen(data), 0600, &e) == 0 && rename(tmp, cache) < 0)
		unlink(tmp);
	return value;
}

static char *identity_read(const struct git_user_paths *u)
{
	return identity_from_git(u->home_config, u->xdg_config);
}

char *gitidentity_gitconfig(void)
{
	return config_cached("identity", identity_read);
}

static char *author_read(const struct git_user_paths *u)
{
	_cleanup_free_ char *name = NULL, *email = NULL;
	read_identity(u->xdg_config, &name, &email);
	read_identity(u->home_config, &name, &email);
	if (!name || !email || strpbrk(name, "<>") || strpbrk(email, "<>"))
		return NULL;
	return xasprintf("%s <%s>", name, email);
}

/* The user's "Name <email>" for the commits jail writes (the squashed patch,
 * the uncommitted rest of a series): git's own reading of the host's config,
 * as the jail's ~/.gitconfig gets it, kept as that is (no git run at an
 * export or diff while the files are unchanged).  NULL when name or email
 * is unset. */
char *gitidentity_author(void)
{
	return config_cached("author", author_read);
}

#define USER_IGNORE_MAX (1 << 20)

/* core.excludesFile as the user's config sets it (git's default, the XDG
 * ignore file, is the caller's: whether it exists is not the config's). */
static char *excludes_read(const struct git_user_paths *u)
{
	char *path = git_user_excludes_file();
	if (path && strcmp(path, u->xdg_ignore) == 0) {
		free(path);
		return NULL;
	}
	return path;
}

char *gitidentity_user_ignore(size_t *len)
{
	struct git_user_paths u;
	git_user_paths(&u);
	bool asks_git = git_config_mentions(u.home_config, "excludesfile") ||
	                git_config_mentions(u.xdg_config, "excludesfile");
	char *set = asks_git ? config_cached("excludes", excludes_read) : NULL;
	_cleanup_free_ char *path = set ? set : xstrdup(u.xdg_ignore);
	git_user_paths_free(&u);
	/* a regular file only, not through a last link and without waiting on
	 * a fifo: with --rw over its directory the agent could have put either
	 * there, to have another file of the user's copied in, or the start hang */
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > USER_IGNORE_MAX)
		return NULL;
	char *data = NULL;
	struct jail_err e;
	if (read_file_fd(fd, path, USER_IGNORE_MAX, &data, len, &e) < 0)
		return NULL;
	return data;
}
