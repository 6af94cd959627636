/* gitcreds.c — the project's git config, without its credentials. */
#include "gitcreds.h"

#include "log.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONFIG_MAX (4 << 20)

/* Drop the userinfo of every URL in [s, end): "scheme://user:pw@host" keeps
 * "scheme://host". */
static void strip_userinfo(struct strbuf *out, const char *s, const char *end, unsigned *n)
{
	while (s < end) {
		const char *sep = memmem(s, (size_t)(end - s), "://", 3);
		if (!sep) {
			sb_append(out, s, (size_t)(end - s));
			return;
		}
		const char *auth = sep + 3;
		size_t span = strcspn(auth, "/?#\" \t\r\n");
		if (auth + span > end)
			span = (size_t)(end - auth);
		const char *at = memrchr(auth, '@', span);
		sb_append(out, s, (size_t)(auth - s));
		if (at) {
			(*n)++;
			auth = at + 1;
		}
		s = auth;
	}
}

/* A key whose whole value is a credential. */
static bool secret_key(const char *key, size_t len)
{
	static const char *const words[] = {"extraheader", "password", "token", "secret"};
	char low[64];
	if (len >= sizeof(low))
		return false;
	for (size_t i = 0; i < len; i++)
		low[i] = (char)tolower((unsigned char)key[i]);
	low[len] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (strstr(low, words[i]))
			return true;
	return false;
}

static void redact_line(struct strbuf *out, const char *s, const char *end, unsigned *n)
{
	const char *p = s;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	const char *eq = memchr(p, '=', (size_t)(end - p));
	if (*p != '[' && *p != '#' && *p != ';' && eq) {
		const char *k = eq;
		while (k > p && (k[-1] == ' ' || k[-1] == '\t'))
			k--;
		if (secret_key(p, (size_t)(k - p))) {
			(*n)++;
			sb_append(out, s, (size_t)(p - s));
			sb_printf(out, "# %.*s: withheld by jail\n", (int)(k - p), p);
			return;
		}
	}
	strip_userinfo(out, s, end, n);
	sb_append(out, "\n", 1);
}

char *gitcreds_redact(const char *text, size_t len, unsigned *withheld)
{
	struct strbuf out = {0};
	*withheld = 0;
	for (const char *s = text, *end = text + len; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end;
		redact_line(&out, s, eol, withheld);
		s = nl ? nl + 1 : end;
	}
	if (!*withheld) {
		sb_free(&out);
		return NULL;
	}
	return sb_steal(&out);
}

/* upper/rel made as lower/rel is (its mode), its parents first. */
static int ensure_like(const char *lower, const char *upper, const char *rel, struct jail_err *e)
{
	_cleanup_free_ char *r = xstrdup(rel);
	for (char *p = r;; p++) {
		bool end = *p == '\0';
		if (*p == '/' || end) {
			*p = '\0';
			_cleanup_free_ char *lo = xasprintf("%s%s%s", lower, *r ? "/" : "", r);
			_cleanup_free_ char *up = xasprintf("%s%s%s", upper, *r ? "/" : "", r);
			struct stat st;
			if (stat(lo, &st) < 0)
				return jail_err_sys(e, "stat '%s'", lo);
			if (mkdir(up, st.st_mode & 07777) < 0 && errno != EEXIST)
				return jail_err_sys(e, "create '%s'", up);
			if (end)
				return 0;
			*p = '/';
		}
	}
}

/* The config of the repository at lower/rel, redacted into upper/rel. */
static int withhold_config(const char *lower, const char *upper, const char *rel, unsigned *total,
                           struct jail_err *e)
{
	const char *sep = *rel ? "/" : "";
	_cleanup_free_ char *up_dir = xasprintf("%s%s%s", upper, sep, rel);
	_cleanup_free_ char *up_config = xasprintf("%s/config", up_dir);
	struct stat st;
	if (lstat(up_dir, &st) == 0 && !S_ISDIR(st.st_mode))
		return 0;  /* the agent removed it in this session */
	if (lstat(up_config, &st) == 0 || errno != ENOENT)
		return 0;  /* the session's copy (or the agent's change) stands */
	_cleanup_free_ char *lo_config = xasprintf("%s%s%s/config", lower, sep, rel);
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	struct jail_err ignored;
	if (read_file_at(AT_FDCWD, lo_config, CONFIG_MAX, &text, &len, &ignored) < 0)
		return 0;
	unsigned n = 0;
	_cleanup_free_ char *clean = gitcreds_redact(text, len, &n);
	explicit_bzero(text, len);
	if (!clean)
		return 0;
	if (stat(lo_config, &st) < 0)
		return jail_err_sys(e, "stat '%s'", lo_config);
	if (ensure_like(lower, upper, rel, e) < 0 ||
	    write_file_at(AT_FDCWD, up_config, clean, strlen(clean), st.st_mode & 0777, e) < 0)
		return -1;
	*total += n;
	return 0;
}

#define MODULES_DEPTH 8

/* The repositories of submodules below lower/rel/modules (a name may hold
 * slashes: a directory without a config is a step of one). */
static int withhold_modules(const char *lower, const char *upper, const char *rel, int depth,
                            unsigned *total, struct jail_err *e)
{
	if (depth >= MODULES_DEPTH)
		return 0;
	_cleanup_free_ char *path = xasprintf("%s/%s", lower, rel);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d)
		return 0;
	fd = -1;  /* the DIR has it */
	int r = 0;
	struct dirent *de;
	while (r == 0 && (de = readdir(d))) {
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		_cleanup_free_ char *sub = xasprintf("%s/%s", rel, de->d_name);
		_cleanup_free_ char *cfg = xasprintf("%s/%s/config", lower, sub);
		if (access(cfg, F_OK) == 0) {
			_cleanup_free_ char *mods = xasprintf("%s/modules", sub);
			r = withhold_config(lower, upper, sub, total, e);
			if (r == 0)
				r = withhold_modules(lower, upper, mods, depth + 1, total, e);
		} else {
			r = withhold_modules(lower, upper, sub, depth + 1, total, e);
		}
	}
	closedir(d);
	return r;
}

int gitcreds_withhold(const char *git_dir, const char *upper_git_dir, struct jail_err *e)
{
	struct stat st;
	if (stat(git_dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;  /* no .git directory: nothing to withhold */
	if (lstat(upper_git_dir, &st) == 0 && !S_ISDIR(st.st_mode))
		return 0;  /* the agent removed .git in this session */
	unsigned n = 0;
	if (withhold_config(git_dir, upper_git_dir, "", &n, e) < 0 ||
	    withhold_modules(git_dir, upper_git_dir, "modules", 0, &n, e) < 0)
		return -1;
	if (!n)
		return 0;
	_cleanup_free_ char *esc = escape_name(git_dir);
	log_info("%s: %u credential%s (a token in a URL, an auth header) withheld from the "
	         "jail's copy of its git config", esc, n, n == 1 ? "" : "s");
	return 0;
}
