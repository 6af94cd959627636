/* gitcreds.c — the project's git config, without its credentials. */
#include "gitcreds.h"

#include "log.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONFIG_MAX (4 << 20)

/* Drop the userinfo of every URL in [s, end): "scheme://user:pw@host" keeps
 * "scheme://host".  The authority ends where git's own credential parsing
 * ends it (credential_from_url: at '/', '?' or '#'). */
static void strip_userinfo(struct strbuf *out, const char *s, const char *end, unsigned *n)
{
	while (s < end) {
		const char *sep = memmem(s, (size_t)(end - s), "://", 3);
		if (!sep) {
			sb_append(out, s, (size_t)(end - s));
			return;
		}
		const char *auth = sep + 3;
		size_t span = 0;
		while (auth + span < end && !strchr("/?#", auth[span]))
			span++;
		const char *at = memrchr(auth, '@', span);
		sb_append(out, s, (size_t)(auth - s));
		if (at) {
			(*n)++;
			auth = at + 1;
		}
		s = auth;
	}
}

/* A key whose whole value is a credential; the credential section holds
 * helpers (an inline `!f() { echo password=...; }` carries the token itself)
 * and usernames, which the jail has no use for. */
static bool secret_key(const char *section, const char *key, size_t len)
{
	/* "pass": sendemail.smtpPass holds the SMTP password itself */
	static const char *const words[] = {"extraheader", "pass", "token", "secret", "apikey"};
	char low[64];
	if (len >= sizeof(low))
		return false;
	for (size_t i = 0; i < len; i++)
		low[i] = (char)tolower((unsigned char)key[i]);
	low[len] = '\0';
	if (strcmp(section, "credential") == 0)
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (strstr(low, words[i]))
			return true;
	return false;
}

/* The end of the logical line at s: git continues a value on the next line
 * after a backslash, and a quoted string may hold '#' and ';'. */
static const char *logical_end(const char *s, const char *end)
{
	bool quoted = false;
	for (const char *p = s; p < end; p++) {
		if (*p == '\n')
			return p;
		if (*p == '\\' && p + 1 < end)
			p++;  /* an escape, or a continuation when it is a newline */
		else if (*p == '"')
			quoted = !quoted;
		else if (!quoted && (*p == '#' || *p == ';')) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			return nl ? nl : end;
		}
	}
	return end;
}

/* A quoted or bare value (or subsection) as git reads it, from p up to
 * `stop` outside quotes (or the end): quotes dropped, escapes and
 * continuations resolved (\n, \t, \b in a value; in a subsection every
 * escaped character stands for itself).  Returns where it stopped. */
static const char *unquote(struct strbuf *v, const char *p, const char *end, const char *stop,
                           bool value)
{
	bool quoted = false;
	for (; p < end; p++) {
		char c = *p;
		if (c == '\\' && p + 1 < end) {
			c = *++p;
			if (c == '\n')
				continue;
			if (value)
				c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'b' ? '\b' : c;
		} else if (c == '"') {
			quoted = !quoted;
			continue;
		} else if (!quoted && strchr(stop, c)) {
			break;
		}
		sb_append(v, &c, 1);
	}
	return p;
}

/* s quoted for a config file. */
static void put_quoted(struct strbuf *out, const char *s)
{
	sb_puts(out, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_append(out, "\\", 1);
		if (*s == '\n')
			sb_puts(out, "\\n");
		else if (*s == '\t')
			sb_puts(out, "\\t");
		else
			sb_append(out, s, 1);
	}
	sb_puts(out, "\"");
}

/* The text of v with every URL's userinfo dropped, or NULL when it has none. */
static char *without_userinfo(const char *v, unsigned *n)
{
	struct strbuf b = {0};
	unsigned found = 0;
	strip_userinfo(&b, v, v + strlen(v), &found);
	if (!found) {
		sb_free(&b);
		return NULL;
	}
	*n += found;
	return b.s ? sb_steal(&b) : xstrdup("");
}

/* "[section "subsection"]" at p (up to end); *section: its name, lowercased.
 * Returns the position after ']' (end when there is none). */
static const char *redact_header(struct strbuf *out, const char *p, const char *end,
                                 char section[64], unsigned *n)
{
	const char *name = p + 1, *q = name;
	while (q < end && (isalnum((unsigned char)*q) || *q == '-' || *q == '.'))
		q++;
	size_t len = (size_t)(q - name) < 63 ? (size_t)(q - name) : 63;
	for (size_t i = 0; i < len; i++)
		section[i] = (char)tolower((unsigned char)name[i]);
	section[len] = '\0';
	struct strbuf sub = {0};
	const char *close = unquote(&sub, q, end, "]", false);
	const char *after = close < end ? close + 1 : end;
	_cleanup_free_ char *clean = sub.s ? without_userinfo(sub.s, n) : NULL;
	if (clean) {
		sb_printf(out, "[%.*s ", (int)(q - name), name);
		put_quoted(out, clean + strspn(clean, " \t"));
		sb_puts(out, "]");
	} else {
		sb_append(out, p, (size_t)(after - p));
	}
	if (sub.s)
		explicit_bzero(sub.s, sub.len);
	sb_free(&sub);
	return after;
}

/* One logical line [s, end) of a config, redacted into out. */
static void redact_line(struct strbuf *out, const char *s, const char *end, char section[64],
                        unsigned *n, struct strv *includes)
{
	const char *p = s;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	sb_append(out, s, (size_t)(p - s));
	if (p < end && *p == '[') {
		p = redact_header(out, p, end, section, n);
		s = p;  /* git takes a key on the header's line too */
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		sb_append(out, s, (size_t)(p - s));
	}
	const char *key = p;
	while (p < end && (isalnum((unsigned char)*p) || *p == '-'))
		p++;
	size_t klen = (size_t)(p - key);
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (!klen || p >= end || *p != '=') {
		sb_append(out, key, (size_t)(end - key));
		sb_puts(out, "\n");
		return;
	}
	if (secret_key(section, key, klen)) {
		(*n)++;
		sb_printf(out, "# %.*s: withheld by jail\n", (int)klen, key);
		return;
	}
	struct strbuf v = {0};
	const char *vs = p + 1;
	while (vs < end && (*vs == ' ' || *vs == '\t'))
		vs++;
	unquote(&v, vs, end, "#;", true);
	while (v.len && (v.s[v.len - 1] == ' ' || v.s[v.len - 1] == '\t'))
		v.s[--v.len] = '\0';  /* git drops the blanks before a comment or the end */
	if (includes && v.s && klen == 4 && strncasecmp(key, "path", 4) == 0 &&
	    (!strcmp(section, "include") || !strcmp(section, "includeif")))
		strv_push(includes, v.s);
	_cleanup_free_ char *clean = v.s ? without_userinfo(v.s, n) : NULL;
	if (clean) {
		sb_printf(out, "%.*s = ", (int)klen, key);
		put_quoted(out, clean);
		sb_puts(out, "\n");
	} else {
		sb_append(out, key, (size_t)(end - key));
		sb_puts(out, "\n");
	}
	if (v.s)
		explicit_bzero(v.s, v.len);
	sb_free(&v);
}

/* gitcreds_redact, and the files the text includes (include.path,
 * includeIf.*.path) into *includes when it is not NULL. */
static char *redact_text(const char *text, size_t len, unsigned *withheld, struct strv *includes)
{
	struct strbuf out = {0};
	char section[64] = "";
	*withheld = 0;
	for (const char *s = text, *end = text + len; s < end;) {
		const char *eol = logical_end(s, end);
		redact_line(&out, s, eol, section, withheld, includes);
		s = eol < end ? eol + 1 : end;
	}
	if (!*withheld) {
		if (out.s)
			explicit_bzero(out.s, out.len);
		sb_free(&out);
		return NULL;
	}
	return sb_steal(&out);
}

char *gitcreds_redact(const char *text, size_t len, unsigned *withheld)
{
	return redact_text(text, len, withheld, NULL);
}

/* An included file's path relative to git_dir (dir/name) when it lies inside
 * it, where the jail would see it as it is; else NULL (outside the project
 * the jail does not show it; in the project, hiding rules apply).  `from`:
 * the including file's directory, relative to git_dir.  Lexical, as git
 * joins a relative include with the including file's directory. */
static char *include_in_git_dir(const char *git_dir, const char *from, const char *path)
{
	_cleanup_free_ char *abs = NULL;
	if (path[0] == '~' && path[1] == '/')
		abs = xasprintf("%s%s", home_dir(), path + 1);
	else if (path[0] == '/')
		abs = xstrdup(path);
	else
		abs = xasprintf("%s/%s%s%s", git_dir, from, *from ? "/" : "", path);
	size_t gl = strlen(git_dir);
	if (strncmp(abs, git_dir, gl) != 0 || abs[gl] != '/')
		return NULL;
	/* the names below git_dir, with . and .. resolved; out of it: not ours */
	struct strbuf rel = {0};
	_cleanup_free_ char *copy = xstrdup(abs + gl + 1);
	char *save = NULL;
	for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			char *slash = rel.s ? strrchr(rel.s, '/') : NULL;
			if (!rel.len) {
				sb_free(&rel);
				return NULL;
			}
			rel.len = slash ? (size_t)(slash - rel.s) : 0;
			rel.s[rel.len] = '\0';
			continue;
		}
		sb_printf(&rel, "%s%s", rel.len ? "/" : "", c);
	}
	return rel.len ? sb_steal(&rel) : (sb_free(&rel), NULL);
}

/* Where one repository's files are: its git dir is lower/git_rel on the
 * host, and up_fd (a directory the session owns) is the upper layer over
 * lower, so its copy is up_fd/git_rel.  Below up_fd everything is the
 * agent's. */
struct repo {
	const char *lower;
	int up_fd;
	const char *git_rel;
	const char *git_dir;  /* lower/git_rel */
	struct strv *written; /* the copies written, relative to upper, or NULL */
};

static char *join(const char *a, const char *b)
{
	return xasprintf("%s%s%s", a, *a && *b ? "/" : "", b);
}

/* One step down the session's upper layer: dirfd/name, made as `lower` is
 * when missing, opened without following a link.  Takes dirfd. */
static int upper_step(int dirfd, const char *name, const char *lower, bool *gone,
                      struct jail_err *e)
{
	int next = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (next < 0 && errno == ENOENT) {
		if (stat(lower, &st) < 0 || (mkdirat(dirfd, name, st.st_mode & 07777) < 0 && errno != EEXIST)) {
			close(dirfd);
			return jail_err_sys(e, "create the session's copy of '%s'", lower);
		}
		next = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	int err = errno;
	close(dirfd);
	if (next < 0 && (err == ENOTDIR || err == ELOOP)) {
		*gone = true;
		return -1;
	}
	if (next < 0) {
		errno = err;
		return jail_err_sys(e, "open the session's copy of '%s'", lower);
	}
	return next;
}

/* The upper layer's copy of the directory lower/path, one name at a time
 * without following links: a link the agent left in its layer must not lead
 * the write onto the host.  Returns the fd; -1 with *gone when the agent
 * replaced a step (a file, a link, a whiteout: its change stands), or -1 with
 * e set. */
static int upper_dir(const struct repo *r, const char *path, bool *gone, struct jail_err *e)
{
	*gone = false;
	int fd = fcntl(r->up_fd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return jail_err_sys(e, "dup");
	_cleanup_free_ char *copy = xstrdup(path);
	_cleanup_free_ char *lo = xstrdup(r->lower);
	char *save = NULL;
	for (char *name = strtok_r(copy, "/", &save); fd >= 0 && name;
	     name = strtok_r(NULL, "/", &save)) {
		char *next_lo = xasprintf("%s/%s", lo, name);
		free(lo);
		lo = next_lo;
		fd = upper_step(fd, name, lo, gone, e);
	}
	return fd;
}

/* Write the redacted copy of git_dir/rel/file into the upper layer, unless
 * the session has one (or the agent changed it: its change stands).
 * Returns 1 when it wrote, 0 when not, -1 on error. */
static int write_copy(const struct repo *r, const char *rel, const char *file, const char *clean,
                      struct jail_err *e)
{
	_cleanup_free_ char *dir = join(r->git_dir, rel);
	_cleanup_free_ char *lo = join(dir, file);
	struct stat st;
	if (stat(lo, &st) < 0)
		return jail_err_sys(e, "stat '%s'", lo);
	bool gone = false;
	_cleanup_free_ char *path = join(r->git_rel, rel);
	_cleanup_close_ int dfd = upper_dir(r, path, &gone, e);
	if (dfd < 0)
		return gone ? 0 : -1;
	struct stat have;
	if (fstatat(dfd, file, &have, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
		return 0;
	_cleanup_close_ int fd = openat(dfd, file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	                                st.st_mode & 0777);
	if (fd < 0 || write_all(fd, clean, strlen(clean)) < 0)
		return jail_err_sys(e, "write the session's copy of '%s'", lo);
	if (r->written)
		strv_push_take(r->written, join(path, file));
	return 1;
}

/* git's own bound on nested includes */
#define INCLUDE_DEPTH 10

/* A config file of the repository (git_dir/rel/file), redacted into the
 * upper layer's copy, and the files it includes that lie in git_dir (the jail
 * shows them as they are). */
static int withhold_file(const struct repo *rp, const char *rel, const char *file, int depth,
                         unsigned *total, struct jail_err *e)
{
	_cleanup_free_ char *dir = join(rp->git_dir, rel);
	_cleanup_free_ char *lo_config = join(dir, file);
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	struct jail_err ignored;
	if (read_file_at(AT_FDCWD, lo_config, CONFIG_MAX, &text, &len, &ignored) < 0)
		return 0;
	unsigned n = 0;
	struct strv inc = {0};
	_cleanup_free_ char *clean = redact_text(text, len, &n, &inc);
	explicit_bzero(text, len);
	int r = clean ? write_copy(rp, rel, file, clean, e) : 0;
	if (r > 0)
		*total += n;
	r = r < 0 ? -1 : 0;
	for (size_t i = 0; r == 0 && depth < INCLUDE_DEPTH && i < inc.n; i++) {
		_cleanup_free_ char *in = include_in_git_dir(rp->git_dir, rel, inc.v[i]);
		char *slash = in ? strrchr(in, '/') : NULL;
		if (slash)
			*slash = '\0';
		if (in)
			r = withhold_file(rp, slash ? in : "", slash ? slash + 1 : in, depth + 1, total, e);
	}
	strv_free(&inc);
	return r;
}

/* The config files of the repository at git_dir/rel. */
static int withhold_config(const struct repo *rp, const char *rel, unsigned *total,
                           struct jail_err *e)
{
	if (withhold_file(rp, rel, "config", 0, total, e) < 0)
		return -1;
	return withhold_file(rp, rel, "config.worktree", 0, total, e);
}

#define MODULES_DEPTH 8

/* The host repository's directory git_dir/rel, for reading; NULL when it is
 * not a directory (a link is not followed). */
static DIR *open_git_subdir(const struct repo *rp, const char *rel)
{
	_cleanup_free_ char *path = join(rp->git_dir, rel);
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d && fd >= 0)
		close(fd);
	return d;
}

/* The repositories of submodules below git_dir/rel (modules/; a name may
 * hold slashes: a directory without a config is a step of one).  The walk
 * reads the host's repository; writes go through write_copy. */
static int withhold_modules(const struct repo *rp, const char *rel, int depth, unsigned *total,
                            struct jail_err *e)
{
	if (depth >= MODULES_DEPTH)
		return 0;
	DIR *d = open_git_subdir(rp, rel);
	if (!d)
		return 0;
	int r = 0;
	struct dirent *de;
	while (r == 0 && (de = readdir(d))) {
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		_cleanup_free_ char *sub = xasprintf("%s/%s", rel, de->d_name);
		_cleanup_free_ char *cfg = xasprintf("%s/%s/config", rp->git_dir, sub);
		if (access(cfg, F_OK) == 0) {
			_cleanup_free_ char *mods = xasprintf("%s/modules", sub);
			r = withhold_config(rp, sub, total, e);
			if (r == 0)
				r = withhold_modules(rp, mods, depth + 1, total, e);
		} else {
			r = withhold_modules(rp, sub, depth + 1, total, e);
		}
	}
	closedir(d);
	return r;
}

/* The linked worktrees' own config files (worktrees/NAME/config.worktree,
 * read with extensions.worktreeConfig): the jail shows them with the rest. */
static int withhold_worktrees(const struct repo *rp, unsigned *total, struct jail_err *e)
{
	DIR *d = open_git_subdir(rp, "worktrees");
	if (!d)
		return 0;
	int r = 0;
	struct dirent *de;
	while (r == 0 && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		_cleanup_free_ char *rel = xasprintf("worktrees/%s", de->d_name);
		r = withhold_file(rp, rel, "config.worktree", 0, total, e);
	}
	closedir(d);
	return r;
}

int gitcreds_withhold(const char *lower, const char *upper, const char *git_rel,
                      struct strv *written, struct jail_err *e)
{
	_cleanup_free_ char *git_dir = join(lower, git_rel);
	struct stat st;
	if (stat(git_dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;  /* no .git directory: nothing to withhold */
	_cleanup_close_ int up_fd = open(upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (up_fd < 0)
		return jail_err_sys(e, "open '%s'", upper);
	struct repo rp = {.lower = lower, .up_fd = up_fd, .git_rel = git_rel, .git_dir = git_dir,
	                  .written = written};
	unsigned n = 0;
	if (withhold_config(&rp, "", &n, e) < 0 || withhold_modules(&rp, "modules", 0, &n, e) < 0 ||
	    withhold_worktrees(&rp, &n, e) < 0)
		return -1;
	if (!n)
		return 0;
	_cleanup_free_ char *esc = escape_name(git_dir);
	log_info("%s: %u credential%s (a token in a URL, an auth header) withheld from the "
	         "jail's copy of its git config", esc, n, n == 1 ? "" : "s");
	return n > INT_MAX ? INT_MAX : (int)n;
}
