/* util.c — the error convention and small helpers used everywhere. */
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <pwd.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>

static char *xvasprintf(const char *fmt, va_list ap, size_t *len);

static int err_vset(struct jail_err *e, int errnum, const char *fmt, va_list ap)
{
	int n = vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	if (n < 0)
		n = 0;
	if (errnum && (size_t)n < sizeof(e->msg))
		snprintf(e->msg + n, sizeof(e->msg) - n, ": %s", strerror(errnum));
	e->errnum = errnum;
	return -1;
}

int jail_err_set(struct jail_err *e, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset(e, errnum, fmt, ap);
	va_end(ap);
	return -1;
}

int jail_err_sys(struct jail_err *e, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	va_start(ap, fmt);
	err_vset(e, saved, fmt, ap);
	va_end(ap);
	errno = saved;
	return -1;
}

int jail_err_wrap(struct jail_err *e, const char *fmt, ...)
{
	struct strbuf b = {0};
	va_list ap;
	va_start(ap, fmt);
	char *prefix = xvasprintf(fmt, ap, NULL);
	va_end(ap);
	sb_printf(&b, "%s: %s", prefix, e->msg);
	free(prefix);
	size_t n = b.len < sizeof(e->msg) - 1 ? b.len : sizeof(e->msg) - 1;
	memcpy(e->msg, b.s, n);
	e->msg[n] = '\0';
	sb_free(&b);
	return -1;
}

void freep(void *p) { free(*(void **)p); }
void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
		*fd = -1;  /* closed and forgotten: a second closep is a no-op, never
		            * the close of a number another thread has since opened */
	}
}
void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		abort();
	return p;
}
void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		abort();
	return p;
}
void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}
char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		abort();
	return d;
}
static char *xvasprintf(const char *fmt, va_list ap, size_t *len)
{
	char *s;
	int n = vasprintf(&s, fmt, ap);
	if (n < 0)
		abort();
	if (len)
		*len = (size_t)n;
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap, NULL);
	va_end(ap);
	return s;
}

void sb_append(struct strbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}
void sb_puts(struct strbuf *b, const char *s) { sb_append(b, s, strlen(s)); }
void sb_printf(struct strbuf *b, const char *fmt, ...)
{
	size_t n;
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap, &n);
	va_end(ap);
	sb_append(b, s, n);
	free(s);
}
char *sb_steal(struct strbuf *b)
{
	char *s = b->s ? b->s : xstrdup("");
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}
void sb_free(struct strbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

void strv_push_take(struct strv *l, char *s)
{
	if (l->n + 2 > l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->v = xrealloc(l->v, l->cap * sizeof(char *));
	}
	l->v[l->n++] = s;
	l->v[l->n] = NULL;
}
void strv_push(struct strv *l, const char *s) { strv_push_take(l, xstrdup(s)); }
void strv_free(struct strv *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}
bool strv_contains(const struct strv *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return true;
	return false;
}

int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

char *line_next(char **at)
{
	char *line = *at;
	if (!line || !*line)
		return NULL;
	char *nl = strchr(line, '\n');
	if (nl)
		*nl++ = '\0';
	*at = nl;
	return line;
}

int read_file_at(int dirfd, const char *path, size_t max, char **out, size_t *len,
                 struct jail_err *e)
{
	_cleanup_close_ int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return jail_err_sys(e, "open '%s'", path);
	return read_file_fd(fd, path, max, out, len, e);
}

int read_file_fd(int fd, const char *path, size_t max, char **out, size_t *len,
                struct jail_err *e)
{
	struct strbuf b = {0};
	char chunk[65536];
	for (;;) {
		ssize_t r = read(fd, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			sb_free(&b);
			return jail_err_sys(e, "read '%s'", path);
		}
		if (r == 0)
			break;
		if (b.len + (size_t)r > max) {
			sb_free(&b);
			return jail_err_set(e, EFBIG, "read '%s'", path);
		}
		sb_append(&b, chunk, (size_t)r);
	}
	if (len)
		*len = b.len;
	*out = sb_steal(&b);
	return 0;
}

int write_file_at(int dirfd, const char *path, const char *data, size_t n, mode_t mode,
                  struct jail_err *e)
{
	_cleanup_close_ int fd =
		openat(dirfd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return jail_err_sys(e, "open '%s' for writing", path);
	if (write_all(fd, data, n) < 0)
		return jail_err_sys(e, "write '%s'", path);
	return 0;
}

int replace_file(const char *path, const char *data, size_t n, mode_t mode, struct jail_err *e)
{
	return replace_file_at(AT_FDCWD, path, data, n, mode, e);
}

int replace_file_at(int dirfd, const char *name, const char *data, size_t n, mode_t mode,
                    struct jail_err *e)
{
	_cleanup_free_ char *tmp = xasprintf("%s.tmp", name);
	/* a new inode every time: a name left at tmp (a crash's, or a hard link
	 * to another file) is never written through */
	if (unlinkat(dirfd, tmp, 0) < 0 && errno != ENOENT)
		return jail_err_sys(e, "remove '%s'", tmp);
	_cleanup_close_ int fd =
		openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return jail_err_sys(e, "open '%s' for writing", tmp);
	if (write_all(fd, data, n) < 0) {
		int r = jail_err_sys(e, "write '%s'", tmp);
		unlinkat(dirfd, tmp, 0);
		return r;
	}
	if (renameat(dirfd, tmp, dirfd, name) < 0) {
		int r = jail_err_sys(e, "rename '%s'", tmp);
		unlinkat(dirfd, tmp, 0);
		return r;
	}
	return 0;
}

/* The whole path first: on a warm start it exists (one syscall, not one per
 * component); only a missing parent makes the walk up. */
int mkdir_p(const char *path, mode_t mode, struct jail_err *e)
{
	if (mkdir(path, mode) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return jail_err_sys(e, "create directory '%s'", path);
	_cleanup_free_ char *parent = xstrdup(path);
	char *slash = strrchr(parent, '/');
	while (slash && slash > parent && slash[1] == '\0') { /* "a/b/": the parent of b */
		*slash = '\0';
		slash = strrchr(parent, '/');
	}
	if (!slash || slash == parent)
		return jail_err_set(e, ENOENT, "create directory '%s'", path);
	*slash = '\0';
	if (mkdir_p(parent, mode, e) < 0)
		return -1;
	if (mkdir(path, mode) < 0 && errno != EEXIST)
		return jail_err_sys(e, "create directory '%s'", path);
	return 0;
}

DIR *opendir_at(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	DIR *d = fdopendir(fd);
	if (!d) {
		int err = errno;
		close(fd);
		errno = err;
	}
	return d;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid. */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned min;
	unsigned cp;
	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xE0) == 0xC0)
		len = 2, min = 0x80, cp = s[0] & 0x1F;
	else if ((s[0] & 0xF0) == 0xE0)
		len = 3, min = 0x800, cp = s[0] & 0x0F;
	else if ((s[0] & 0xF8) == 0xF0)
		len = 4, min = 0x10000, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

/* The code point of the valid UTF-8 sequence at s of length l. */
static unsigned utf8_code_point(const unsigned char *s, size_t l)
{
	unsigned cp = l == 1 ? s[0] : l == 2 ? s[0] & 0x1Fu : l == 3 ? s[0] & 0x0Fu : s[0] & 0x07u;
	for (size_t i = 1; i < l; i++)
		cp = (cp << 6) | (s[i] & 0x3Fu);
	return cp;
}

bool unicode_is_invisible(unsigned cp)
{
	return cp == 0x00AD || cp == 0x061C || cp == 0x180E ||  /* soft hyphen, ALM, MVS */
	       (cp >= 0x200B && cp <= 0x200F) ||                /* zero widths, LRM, RLM */
	       (cp >= 0x2028 && cp <= 0x202E) ||                /* separators, embeddings, overrides */
	       (cp >= 0x2060 && cp <= 0x2064) ||                /* word joiner, invisible operators */
	       (cp >= 0x2066 && cp <= 0x206F) ||                /* isolates, deprecated formats */
	       cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB) || /* BOM/ZWNBSP, annotations */
	       (cp >= 0xE0000 && cp <= 0xE007F);                /* tag characters */
}

size_t invisible_char_len(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t l = n ? utf8_seq_len(p, n) : 0;
	return l > 1 && unicode_is_invisible(utf8_code_point(p, l)) ? l : 0;
}

bool is_valid_utf8(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	while (n > 0) {
		size_t l = utf8_seq_len(p, n);
		if (!l)
			return false;
		p += l;
		n -= l;
	}
	return true;
}

char *escape_name(const char *s)
{
	struct strbuf b = {0};
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	sb_append(&b, "", 0);
	while (n > 0) {
		size_t l = utf8_seq_len(p, n);
		if (l == 1 && *p >= 0x20 && *p != 0x7f && *p != '\\') {
			sb_append(&b, (const char *)p, 1);
		} else if (l > 1 && !(l == 2 && p[0] == 0xC2 && p[1] < 0xA0) &&
		           !invisible_char_len((const char *)p, l)) {
			/* multi-byte, but not a C1 control (U+0080..U+009F) nor an
			 * invisible or bidirectional format character */
			sb_append(&b, (const char *)p, l);
		} else {
			if (!l)
				l = 1;
			for (size_t i = 0; i < l; i++)
				sb_printf(&b, "\\x%02x", p[i]);
		}
		p += l;
		n -= l;
	}
	return sb_steal(&b);
}

bool terminal_eight_bit(void)
{
	const char *names[] = {"LC_ALL", "LC_CTYPE", "LANG"}, *v = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(names) && !(v && *v); i++)
		v = getenv(names[i]);
	if (!v || !*v || !strcmp(v, "C") || !strcmp(v, "POSIX"))
		return false;
	return !strcasestr(v, "utf-8") && !strcasestr(v, "utf8");
}

size_t escape_controls(const char *s, size_t n, char *out, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	bool eight_bit = terminal_eight_bit();
	size_t w = 0;
	while (n > 0) {
		/* an 8-bit terminal reads bytes: each is a character or a control */
		size_t l = eight_bit && *p >= 0x80 ? 1 : utf8_seq_len(p, n);
		bool ok = l == 1 ? (*p >= 0x20 || *p == '\t') && *p != 0x7f && !(*p >= 0x80 && *p < 0xA0)
		                 : l > 1 && !(l == 2 && p[0] == 0xC2 && p[1] < 0xA0);
		if (!l)
			l = 1;
		if (w + (ok ? l : 4 * l) > cap)
			break;
		for (size_t i = 0; i < l; i++) {
			if (ok) {
				out[w++] = (char)p[i];
				continue;
			}
			out[w++] = '\\';
			out[w++] = 'x';
			out[w++] = hex[p[i] >> 4];
			out[w++] = hex[p[i] & 15];
		}
		p += l;
		n -= l;
	}
	return w;
}

const char *home_dir(void)
{
	const char *h = getenv("HOME");
	if (h && h[0] == '/')
		return h;
	struct passwd *pw = getpwuid(getuid());
	return pw && pw->pw_dir ? pw->pw_dir : "/";
}

char *expand_home(const char *path)
{
	if (path[0] == '~' && (path[1] == '/' || path[1] == '\0'))
		return xasprintf("%s%s", home_dir(), path + 1);
	return xstrdup(path);
}

void stat_stamp(const struct stat *st, char out[FILE_STAMP_MAX])
{
	snprintf(out, FILE_STAMP_MAX, "%lld.%09ld:%lld.%09ld:%llu:%lld", (long long)st->st_mtim.tv_sec,
	         st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec,
	         (unsigned long long)st->st_ino, (long long)st->st_size);
}

void file_stamp(int dirfd, const char *path, char out[FILE_STAMP_MAX])
{
	struct stat st;
	if (fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
		snprintf(out, FILE_STAMP_MAX, "none");
	else
		stat_stamp(&st, out);
}

char *realpath_existing(const char *path)
{
	_cleanup_free_ char *head = xstrdup(path);
	size_t n = strlen(head);
	for (;;) {
		char *real = realpath(head, NULL);
		if (real) {
			char *r = xasprintf("%s%s", strcmp(real, "/") ? real : "", path + n);
			free(real);
			return r;
		}
		char *slash = strrchr(head, '/');
		if (!slash || slash == head)
			return xstrdup(path);
		*slash = '\0';
		n = (size_t)(slash - head);
	}
}

bool path_at_or_below(const char *path, const char *dir)
{
	if (!path || !dir)
		return false;
	if (strcmp(dir, "/") == 0)
		return path[0] == '/';
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int open_in_root(int root, const char *path, int flags)
{
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	return (int)syscall(SYS_openat2, root, path, &how, sizeof(how));
}

double mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
