/* gitcreds.c — the project's git config, without its credentials. */
#include "gitcreds.h"

#include "log.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

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

int gitcreds_withhold(const char *git_dir, const char *upper_git_dir, struct jail_err *e)
{
	_cleanup_close_ int dir = open(git_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return 0;  /* no .git directory: nothing to withhold */
	_cleanup_free_ char *upper_config = xasprintf("%s/config", upper_git_dir);
	struct stat st;
	if (lstat(upper_git_dir, &st) == 0 && !S_ISDIR(st.st_mode))
		return 0;  /* the agent removed .git in this session */
	if (lstat(upper_config, &st) == 0 || errno != ENOENT)
		return 0;  /* the session's copy (or the agent's change) stands */
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	struct jail_err ignored;
	if (read_file_at(dir, "config", CONFIG_MAX, &text, &len, &ignored) < 0)
		return 0;
	unsigned n = 0;
	_cleanup_free_ char *clean = gitcreds_redact(text, len, &n);
	explicit_bzero(text, len);
	if (!clean)
		return 0;
	struct stat dst, cst;
	if (fstat(dir, &dst) < 0 || fstatat(dir, "config", &cst, 0) < 0)
		return jail_err_sys(e, "stat %s/config", git_dir);
	if (mkdir(upper_git_dir, dst.st_mode & 07777) < 0 && errno != EEXIST)
		return jail_err_sys(e, "create '%s'", upper_git_dir);
	if (write_file_at(AT_FDCWD, upper_config, clean, strlen(clean), cst.st_mode & 0777, e) < 0)
		return -1;
	_cleanup_free_ char *esc = escape_name(git_dir);
	log_info("%s/config: %u credential%s (a token in a URL, an auth header) withheld from "
	         "the jail; it sees a copy without them", esc, n, n == 1 ? "" : "s");
	return 0;
}
