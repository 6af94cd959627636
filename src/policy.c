/* policy.c — read the INI layers into one struct jail_config.
 *
 * inih does the INI syntax; a reader of our own feeds it one line at a time from
 * text already in memory, so that we know the line number of every value (the
 * handler of the packaged inih gets none), can refuse a line inih would
 * truncate, and can reject unknown sections even when they are empty.  Leading
 * blanks are dropped before inih sees a line: an indented line is an ordinary
 * line, never the continuation of the previous value.  A line must show as it
 * reads (check_line_text): a project's file is trusted after a person read it.
 */
#include "policy.h"
#include "log.h"
#include "policy_keys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <ini.h>
#include <string.h>
#include <sys/stat.h>

extern const char embedded_default_policy[];
#define EMBEDDED_NAME "<embedded default.ini>"
#define MAX_INCLUDE_DEPTH 16
#define MAX_POLICY_SIZE (1 << 20)

struct parse {
	struct policy *p;
	const char *file;    /* name for errors and provenance */
	const char *text;
	size_t len;
	size_t pos;
	int line;
	bool failed;
	struct jail_err *e;
};

#define FIELD(p, k, T) ((T *)((char *)&(p)->cfg + (k)->off))
#define CFIELD(p, k, T) ((const T *)((const char *)&(p)->cfg + (k)->off))

void policy_init(struct policy *p)
{
	memset(p, 0, sizeof(*p));
	config_init(&p->cfg);
	p->origin = xcalloc(policy_key_count(), sizeof(char *));
	p->item_origin = xcalloc(policy_key_count(), sizeof(struct strv));
}

void policy_free(struct policy *p)
{
	for (size_t i = 0; p->origin && i < policy_key_count(); i++) {
		free(p->origin[i]);
		strv_free(&p->item_origin[i]);
	}
	free(p->origin);
	free(p->item_origin);
	config_free(&p->cfg);
	strv_free(&p->layers);
	strv_free(&p->done);
	strv_free(&p->stack);
	free(p->description);
	memset(p, 0, sizeof(*p));
}

static size_t key_index(const struct policy_key *k)
{
	for (size_t i = 0; i < policy_key_count(); i++)
		if (policy_key(i) == k)
			return i;
	abort();
}

/* Set the parse's error, once: "file:line: message". */
static int parse_fail(struct parse *ps, const char *fmt, ...) PRINTF(2, 3);
static int parse_fail(struct parse *ps, const char *fmt, ...)
{
	if (ps->failed)
		return 0;
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* values can come from a file not yet trusted: print them escaped */
	_cleanup_free_ char *file = escape_name(ps->file);
	_cleanup_free_ char *esc = escape_name(msg);
	jail_err_set(ps->e, 0, "%s:%d: %s", file, ps->line, esc);
	ps->failed = true;
	return 0;  /* inih: zero is an error */
}

/* Check a [section] line before inih takes it. */
static void check_section_line(struct parse *ps, const char *l, size_t n)
{
	const char *close = memchr(l, ']', n);
	if (!close)
		return (void)parse_fail(ps, "expected ']' to close the section name");
	size_t tail = strspn(close + 1, " \t");
	if (close + 1 + tail < l + n && close[1 + tail] != ';' && close[1 + tail] != '#')
		return (void)parse_fail(ps, "text after the section name");
	_cleanup_free_ char *name = strndup(l + 1, (size_t)(close - l - 1));
	char *s = name + strspn(name, " \t");
	size_t sl = strlen(s);
	while (sl && (s[sl - 1] == ' ' || s[sl - 1] == '\t'))
		s[--sl] = '\0';
	if (!policy_section_known(s)) {
		_cleanup_free_ char *esc = escape_name(s);
		parse_fail(ps, "unknown section [%s]; sections are fs, home, env, secrets, net, "
		               "export, syscalls, limits (see jail.ini(5))", esc);
	}
}

/* Text that would not show to a person as jail reads it: a control character
 * (a carriage return or an escape sequence draws one value over another in
 * `cat`: "mode = open ;\rmode = none" shows "mode = none"; a NUL ended the
 * file for jail), a C1 control, an invisible or bidirectional character (which
 * reorders a line), bytes that are not UTF-8.  A tab is text. */
static int check_line_text(struct parse *ps, const char *l, size_t n)
{
	if (!is_valid_utf8(l, n))
		return parse_fail(ps, "bytes that are not UTF-8; write the file in UTF-8");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)l[i];
		bool ctl = (c < 0x20 && c != '\t') || c == 0x7f ||
		           (c == 0xc2 && i + 1 < n && (unsigned char)l[i + 1] < 0xa0);
		if (ctl || invisible_char_len(l + i, n - i))
			return parse_fail(ps, "a control, invisible or bidirectional character at column "
			                  "%zu, which can hide text from a reader; remove it", i + 1);
	}
	return 1;
}

/* inih's reader: the next line, leading blanks dropped; NULL at the end or once
 * something is wrong (inih then stops). */
static char *policy_reader(char *buf, int num, void *stream)
{
	struct parse *ps = stream;
	if (ps->failed || ps->pos >= ps->len)
		return NULL;
	const char *l = ps->text + ps->pos;
	const char *nl = memchr(l, '\n', ps->len - ps->pos);
	size_t n = nl ? (size_t)(nl - l) : ps->len - ps->pos;
	ps->pos += n + (nl != NULL);
	ps->line++;
	if (ps->line == 1 && n >= 3 && memcmp(l, "\xef\xbb\xbf", 3) == 0)
		l += 3, n -= 3;  /* a UTF-8 byte order mark, as some editors write */
	while (n && (*l == ' ' || *l == '\t'))
		l++, n--;
	if (n && l[n - 1] == '\r')
		n--;
	if (!check_line_text(ps, l, n))
		return NULL;
	if ((int)n > num - 3) {
		parse_fail(ps, "line longer than %d characters; split a list over several '+=' lines", num - 3);
		return NULL;
	}
	if (n && *l == '[')
		check_section_line(ps, l, n);
	else if (n && *l != ';' && *l != '#' && l[strcspn(l, "=:\n")] != '=')
		parse_fail(ps, "expected 'key = value', 'key += value' or '[section]'");
	if (ps->failed)
		return NULL;
	memcpy(buf, l, n);
	buf[n] = '\n';
	buf[n + 1] = '\0';
	return buf;
}

static char *origin_here(const struct parse *ps) { return xasprintf("%s:%d", ps->file, ps->line); }

static void list_clear(struct policy *p, const struct policy_key *k)
{
	strv_free(FIELD(p, k, struct strv));
	strv_free(&p->item_origin[key_index(k)]);
}

static void list_add(struct policy *p, const struct policy_key *k, char *value, const char *origin)
{
	strv_push_take(FIELD(p, k, struct strv), value);
	strv_push(&p->item_origin[key_index(k)], origin);
}

static void list_drop(struct policy *p, const struct policy_key *k, size_t i)
{
	struct strv *l = FIELD(p, k, struct strv), *o = &p->item_origin[key_index(k)];
	free(l->v[i]);
	free(o->v[i]);
	memmove(&l->v[i], &l->v[i + 1], (l->n - i) * sizeof(char *));  /* with the NULL */
	memmove(&o->v[i], &o->v[i + 1], (o->n - i) * sizeof(char *));
	l->n--;
	o->n--;
}

static bool is_bind_key(const struct policy_key *k)
{
	return strcmp(k->section, "fs") == 0 &&
	       (strcmp(k->name, "ro") == 0 || strcmp(k->name, "rw") == 0 || strcmp(k->name, "cow") == 0);
}

/* fs.ro, fs.rw and fs.cow say how one host path is seen, one way only: a path
 * named by a later layer leaves the other two lists (--ro X over a policy's
 * rw = X is read-only; the rw bind used to win whatever the order).  Both
 * ways on the command line is an error: the order of flags is not kept. */
static int bind_claim(struct policy *p, const struct policy_key *k, const char *path,
                      const char *origin, struct jail_err *e)
{
	if (!is_bind_key(k))
		return 0;
	for (size_t i = 0; i < policy_key_count(); i++) {
		const struct policy_key *o = policy_key(i);
		if (o == k || !is_bind_key(o))
			continue;
		const struct strv *l = CFIELD(p, o, struct strv);
		for (size_t j = 0; j < l->n; j++) {
			if (strcmp(l->v[j], path) != 0)
				continue;
			if (strcmp(origin, "command line") == 0 &&
			    strcmp(p->item_origin[i].v[j], "command line") == 0) {
				_cleanup_free_ char *esc = escape_name(path);
				return jail_err_set(e, 0, "%s and %s both name '%s'; give the path once, "
				                    "with the access you want", o->flag, k->flag, esc);
			}
			list_drop(p, o, j--);
		}
	}
	return 0;
}

/* One item of a list value through the key's check. */
static int add_item(struct parse *ps, const struct policy_key *k, const char *item)
{
	struct jail_err ce = {0};
	char *norm = NULL;
	if (k->check(item, &norm, &ce) < 0) {
		/* a check shared with the flags may name the flag: the key names it here */
		const char *m = ce.msg;
		if (m[0] == '-' && m[1] == '-' && strchr(m, ' '))
			m = strchr(m, ' ') + 1;
		return parse_fail(ps, "%s.%s: %s", k->section, k->name, m);
	}
	_cleanup_free_ char *o = origin_here(ps);
	if (bind_claim(ps->p, k, norm, o, ps->e) < 0) {  /* (a file never fails here) */
		free(norm);
		ps->failed = true;
		return 0;
	}
	list_add(ps->p, k, norm, o);
	return 1;
}

static int set_list(struct parse *ps, const struct policy_key *k, const char *value, bool append)
{
	if (!append) {
		list_clear(ps->p, k);
		free(ps->p->origin[key_index(k)]);
		ps->p->origin[key_index(k)] = origin_here(ps);
	}
	if (!k->split)
		return *value ? add_item(ps, k, value) : 1;
	_cleanup_free_ char *copy = xstrdup(value);
	char *save = NULL;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		tok += strspn(tok, " \t");
		size_t n = strlen(tok);
		while (n && (tok[n - 1] == ' ' || tok[n - 1] == '\t'))
			tok[--n] = '\0';
		if (!n)
			return parse_fail(ps, "%s.%s: an empty item in the list", k->section, k->name);
		if (!add_item(ps, k, tok))
			return 0;
	}
	return 1;
}

/* A secret NAME = SOURCE replaces an earlier secret of the same NAME. */
static void secret_put(struct policy *p, const struct policy_key *k, char *entry, const char *origin)
{
	struct strv *l = FIELD(p, k, struct strv);
	struct strv *o = &p->item_origin[key_index(k)];
	size_t nl = strcspn(entry, "=");
	for (size_t i = 0; i < l->n; i++) {
		if (strncmp(l->v[i], entry, nl) == 0 && l->v[i][nl] == '=') {
			free(l->v[i]);
			l->v[i] = entry;
			free(o->v[i]);
			o->v[i] = xstrdup(origin);
			return;
		}
	}
	list_add(p, k, entry, origin);
}

static int set_secret(struct parse *ps, const struct policy_key *k, const char *name,
                      const char *value, bool append)
{
	if (append)
		return parse_fail(ps, "[secrets] %s: '+=' does not apply; a secret has one source", name);
	struct jail_err ce = {0};
	_cleanup_free_ char *in = xasprintf("%s=%s", name, value);
	char *norm = NULL;
	if (check_secret(in, &norm, &ce) < 0)
		return parse_fail(ps, "%s", ce.msg);
	_cleanup_free_ char *o = origin_here(ps);
	secret_put(ps->p, k, norm, o);
	return 1;
}

static const char *const net_modes[] = {"none", "allow", "open"};
static const char *const home_modes[] = {"fresh", "persistent"};
static const char *const hide_modes[] = {"all", "secrets", "none"};

static int parse_enum(const char *v, const char *const *names, size_t n, int *out)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v, names[i]) == 0)
			return *out = (int)i, 0;
	return -1;
}

/* A number, or "none" (0) for the limits. */
static int parse_scalar(const struct policy_key *k, const char *v, void *field)
{
	char *end;
	if (strcmp(v, "none") == 0 && (k->type == K_COUNT || k->type == K_CPUS ||
	                               (k->type == K_SIZE && strcmp(k->section, "limits") == 0))) {
		if (k->type == K_CPUS)
			*(double *)field = 0;
		else
			*(long long *)field = 0;
		return 0;
	}
	switch (k->type) {
	case K_BOOL: return policy_parse_bool(v, field);
	case K_SIZE: return policy_parse_size(v, field);
	case K_NET: return parse_enum(v, net_modes, ARRAY_SIZE(net_modes), field);
	case K_HOME: return parse_enum(v, home_modes, ARRAY_SIZE(home_modes), field);
	case K_HIDE: return parse_enum(v, hide_modes, ARRAY_SIZE(hide_modes), field);
	case K_COUNT:
		errno = 0;
		*(long long *)field = strtoll(v, &end, 10);
		return errno || end == v || *end || *(long long *)field <= 0 ? -1 : 0;
	case K_CPUS:
		errno = 0;
		*(double *)field = strtod(v, &end);
		return errno || end == v || *end || !(*(double *)field > 0) || *(double *)field > 4096 ? -1 : 0;
	default: return -1;
	}
}

static int set_scalar(struct parse *ps, const struct policy_key *k, const char *value, bool append)
{
	if (append)
		return parse_fail(ps, "%s.%s takes one value; use '=' ('+=' is for lists)", k->section, k->name);
	if (k->type == K_STRING) {
		char *norm = NULL;
		struct jail_err ce = {0};
		if (*value && k->check(value, &norm, &ce) < 0)
			return parse_fail(ps, "%s.%s: %s", k->section, k->name, ce.msg);
		free(*FIELD(ps->p, k, char *));
		*FIELD(ps->p, k, char *) = norm;
	} else {
		union { long long ll; double d; bool b; int i; } tmp;
		if (parse_scalar(k, value, &tmp) < 0)
			return parse_fail(ps, "%s.%s = %s: expected %s", k->section, k->name, value, k->arg);
		switch (k->type) {
		case K_BOOL: *FIELD(ps->p, k, bool) = tmp.b; break;
		case K_SIZE: case K_COUNT: *FIELD(ps->p, k, long long) = tmp.ll; break;
		case K_CPUS: *FIELD(ps->p, k, double) = tmp.d; break;
		case K_NET: *FIELD(ps->p, k, enum net_mode) = (enum net_mode)tmp.i; break;
		case K_HOME: *FIELD(ps->p, k, enum home_mode) = (enum home_mode)tmp.i; break;
		case K_HIDE: *FIELD(ps->p, k, enum hide_mode) = (enum hide_mode)tmp.i; break;
		default: break;
		}
	}
	free(ps->p->origin[key_index(k)]);
	ps->p->origin[key_index(k)] = origin_here(ps);
	return 1;
}

static int include_policy(struct parse *ps, const char *value);

/* Keys before any [section]: include and description. */
static int set_toplevel(struct parse *ps, const char *name, const char *value, bool append)
{
	if (strcmp(name, "description") == 0 && !append) {
		if (ps->p->stack.n > 1)  /* the description of the file itself, not of its includes */
			return 1;
		free(ps->p->description);
		ps->p->description = xstrdup(value);
		return 1;
	}
	if (strcmp(name, "include") == 0)
		return include_policy(ps, value);
	_cleanup_free_ char *esc = escape_name(name);
	return parse_fail(ps, "unknown key '%s' before any section (only include and description)", esc);
}

static int on_value(void *user, const char *section, const char *name, const char *value)
{
	struct parse *ps = user;
	if (ps->failed)
		return 0;
	_cleanup_free_ char *key = xstrdup(name);
	size_t n = strlen(key);
	bool append = n > 0 && key[n - 1] == '+';
	if (append) {
		key[--n] = '\0';
		while (n && (key[n - 1] == ' ' || key[n - 1] == '\t'))
			key[--n] = '\0';
	}
	if (!*section)
		return set_toplevel(ps, key, value, append);
	const struct policy_key *k = policy_key_find(section, key);
	if (!k) {
		_cleanup_free_ char *esc = escape_name(key);
		return parse_fail(ps, "unknown key '%s' in [%s] (see jail.ini(5))", esc, section);
	}
	switch (k->type) {
	case K_LIST: return set_list(ps, k, value, append);
	case K_SECRETS: return set_secret(ps, k, key, value, append);
	default: return set_scalar(ps, k, value, append);
	}
}

int policy_load_text(struct policy *p, const char *name, const char *text, struct jail_err *e)
{
	return policy_load_buf(p, name, text, strlen(text), e);
}

int policy_load_buf(struct policy *p, const char *name, const char *text, size_t len,
                    struct jail_err *e)
{
	if (strv_contains(&p->done, name))
		return 0;
	struct parse ps = {.p = p, .file = name, .text = text, .len = len, .e = e};
	strv_push(&p->stack, name);
	int rc = ini_parse_stream(policy_reader, &ps, on_value, &ps);
	free(p->stack.v[--p->stack.n]);
	p->stack.v[p->stack.n] = NULL;
	if (ps.failed)
		return -1;
	if (rc != 0) {
		ps.line = rc > 0 ? rc : ps.line;
		parse_fail(&ps, "cannot parse this line");
		return -1;
	}
	strv_push(&p->done, name);
	strv_push(&p->layers, name);
	return 0;
}

char *policy_config_dir(void)
{
	const char *x = getenv("XDG_CONFIG_HOME");
	if (x && x[0] == '/')
		return xasprintf("%s/jail", x);
	return xasprintf("%s/.config/jail", home_dir());
}

void policy_search_dirs(struct strv *out)
{
	_cleanup_free_ char *conf = policy_config_dir();
	strv_push_take(out, xasprintf("%s/policies", conf));
	/* a build tree or the test suite names its own directory; a relative
	 * one would name a directory of wherever jail runs (a cloned repository's
	 * policies/), and is ignored like a relative XDG_CONFIG_HOME */
	const char *extra = getenv("JAIL_POLICY_PATH");
	if (extra && extra[0] == '/')
		strv_push(out, extra);
	strv_push(out, JAIL_DATADIR "/policies");
	/* Installed under another prefix than the one it was built for
	 * (`make && make install PREFIX=/usr`): BINDIR/../share/jail/policies.
	 * Run from a build tree (build/jail): the source tree's policies/. */
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			static const char *const rel[] = {"../share/jail/policies", "../policies"};
			for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
				_cleanup_free_ char *dflt = xasprintf("%s/%s/default.ini", exe, rel[i]);
				if (access(dflt, R_OK) == 0)
					strv_push_take(out, xasprintf("%s/%s", exe, rel[i]));
			}
		}
	}
}

static bool policy_name_ok(const char *name)
{
	size_t n = strlen(name);
	return n > 0 && n <= 64 && name[0] != '.' && name[0] != '-' &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

char *policy_find(const char *name, struct jail_err *e)
{
	if (!policy_name_ok(name)) {
		_cleanup_free_ char *esc = escape_name(name);
		jail_err_set(e, 0, "policy '%s': a name is letters, digits, '.', '_', '-'", esc);
		return NULL;
	}
	struct strv dirs = {0};
	policy_search_dirs(&dirs);
	struct strbuf tried = {0};
	for (size_t i = 0; i < dirs.n; i++) {
		char *path = xasprintf("%s/%s.ini", dirs.v[i], name);
		if (access(path, F_OK) == 0) {
			strv_free(&dirs);
			sb_free(&tried);
			return path;
		}
		free(path);
		sb_printf(&tried, "%s%s", i ? ", " : "", dirs.v[i]);
	}
	jail_err_set(e, 0, "policy '%s' not found in %s; see 'jail policy list'", name, tried.s);
	strv_free(&dirs);
	sb_free(&tried);
	return NULL;
}

/* Read a policy file below dir (not through a symlink at its name: the
 * caller decides about links) that is a regular file of at most
 * MAX_POLICY_SIZE: a fifo would block the start, a device never end. */
static int read_policy_at(int dir, const char *name, const char *shown, char **text,
                          size_t *len, struct jail_err *e)
{
	_cleanup_free_ char *esc = escape_name(shown);
	_cleanup_close_ int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		return jail_err_sys(e, "policy file '%s'", esc);
	if (!S_ISREG(st.st_mode))
		return jail_err_set(e, 0, "policy file '%s' is not a regular file (a symlink, fifo or "
		                          "device?); remove it or make it one", esc);
	if (st.st_size > MAX_POLICY_SIZE)
		return jail_err_set(e, 0, "policy file '%s' is larger than %d KiB, which no policy "
		                          "is; remove it", esc, MAX_POLICY_SIZE >> 10);
	if (read_file_fd(fd, esc, MAX_POLICY_SIZE, text, len, e) < 0)
		return e->errnum == EFBIG ? jail_err_set(e, 0, "policy file '%s' grew larger than "
		                                         "%d KiB while read", esc, MAX_POLICY_SIZE >> 10)
		                          : jail_err_wrap(e, "policy file '%s'", esc);
	return 0;
}

/* Read a policy file (through symlinks: it is the user's own). */
static int read_policy_file(const char *path, char **real, char **text, size_t *len,
                            struct jail_err *e)
{
	*real = realpath(path, NULL);
	if (!*real) {
		_cleanup_free_ char *esc = escape_name(path);
		return jail_err_sys(e, "policy file '%s'", esc);
	}
	if (read_policy_at(AT_FDCWD, *real, *real, text, len, e) < 0) {
		free(steal_ptr(real));
		return -1;
	}
	return 0;
}

int policy_load_named(struct policy *p, const char *name, struct jail_err *e)
{
	if (strcmp(name, "default") == 0)
		return policy_load_text(p, EMBEDDED_NAME, embedded_default_policy, e);
	_cleanup_free_ char *path = strchr(name, '/') ? xstrdup(name) : policy_find(name, e);
	if (!path)
		return -1;
	_cleanup_free_ char *real = NULL, *text = NULL;
	size_t len = 0;
	if (read_policy_file(path, &real, &text, &len, e) < 0)
		return -1;
	if (strv_contains(&p->stack, real))
		return jail_err_set(e, 0, "policy '%s' includes itself", real);
	return policy_load_buf(p, real, text, len, e);
}

/* include = NAME[, NAME...]: read each at this point of the file. */
static int include_policy(struct parse *ps, const char *value)
{
	_cleanup_free_ char *copy = xstrdup(value);
	char *save = NULL;
	for (char *tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		if (strchr(tok, '/') || !policy_name_ok(tok))
			return parse_fail(ps, "include = %s: expected a policy name (see 'jail policy list')", tok);
		if (ps->p->stack.n >= MAX_INCLUDE_DEPTH)
			return parse_fail(ps, "include = %s: includes nested deeper than %d", tok, MAX_INCLUDE_DEPTH);
		struct jail_err ie = {0};
		_cleanup_free_ char *path = strcmp(tok, "default") ? policy_find(tok, &ie) : xstrdup(EMBEDDED_NAME);
		if (!path)
			return parse_fail(ps, "include: %s", ie.msg);
		_cleanup_free_ char *real = strcmp(tok, "default") ? realpath(path, NULL) : xstrdup(path);
		if (real && strv_contains(&ps->p->stack, real)) {
			struct strbuf chain = {0};
			for (size_t i = 0; i < ps->p->stack.n; i++)
				sb_printf(&chain, "%s -> ", ps->p->stack.v[i]);
			sb_puts(&chain, real);
			parse_fail(ps, "include cycle: %s", chain.s);
			sb_free(&chain);
			return 0;
		}
		if (policy_load_named(ps->p, tok, ps->e) < 0) {
			ps->failed = true;  /* the included file's error stands */
			return 0;
		}
	}
	return 1;
}

char *policy_trust_record(const char *project)
{
	char hex[65];
	sha256_hex(project, strlen(project), hex);
	hex[16] = '\0';
	_cleanup_free_ char *conf = policy_config_dir();
	return xasprintf("%s/trust/%s", conf, hex);
}

int policy_trusted(const char *project, const char *text, size_t len)
{
	_cleanup_free_ char *rec = policy_trust_record(project);
	_cleanup_free_ char *have = NULL;
	struct jail_err ignored = {0};
	if (read_file_at(AT_FDCWD, rec, 4096, &have, NULL, &ignored) < 0)
		return 0;
	char hex[65];
	sha256_hex(text, len, hex);
	_cleanup_free_ char *want = xasprintf("sha256:%s %s\n", hex, project);
	return strcmp(have, want) == 0;
}

int policy_read_project(const char *project, char **text, size_t *len, struct jail_err *e)
{
	*text = NULL;
	_cleanup_close_ int dir = open(project, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return jail_err_sys(e, "open project '%s'", project);
	struct stat st;
	if (fstatat(dir, ".jail.ini", &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		return jail_err_sys(e, "%s/.jail.ini", project);
	}
	/* A repository could point the name at a file of the user's. */
	if (!S_ISREG(st.st_mode))
		return jail_err_set(e, 0, "%s/.jail.ini is not a regular file (a symlink?); remove it or make it one",
		                    project);
	_cleanup_free_ char *shown = xasprintf("%s/.jail.ini", project);
	return read_policy_at(dir, ".jail.ini", shown, text, len, e);
}

static int load_user_file(struct policy *p, struct jail_err *e)
{
	_cleanup_free_ char *conf = policy_config_dir();
	_cleanup_free_ char *path = xasprintf("%s/jail.ini", conf);
	if (access(path, F_OK) < 0 && errno == ENOENT)
		return 0;
	_cleanup_free_ char *real = NULL, *text = NULL;
	size_t len = 0;
	if (read_policy_file(path, &real, &text, &len, e) < 0)
		return -1;
	return policy_load_buf(p, real, text, len, e);
}

static int load_project_file(struct policy *p, const char *project, struct jail_err *e)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	if (policy_read_project(project, &text, &len, e) < 0)
		return -1;
	if (!text)
		return 0;
	_cleanup_free_ char *esc = escape_name(project);
	if (!policy_trusted(project, text, len)) {
		_cleanup_free_ char *rec = policy_trust_record(project);
		log_warn("ignoring %s/.jail.ini: %s; read it, then run 'jail trust -D %s'", esc,
		         access(rec, F_OK) == 0 ? "it changed since it was trusted" : "not trusted", esc);
		p->project_ignored = true;
		return 0;
	}
	_cleanup_free_ char *name = xasprintf("%s/.jail.ini", project);
	return policy_load_buf(p, name, text, len, e);
}

/* Flags come last: scalars replace, list items append. */
static int apply_flag(struct policy *p, const struct cli *cli, const struct policy_key *k,
                      struct jail_err *e)
{
	const char *origin = "command line";
	const char *flag = k->flag ? k->flag : k->id;
	const void *src = (const char *)&cli->cfg + k->off;
	size_t i = key_index(k);
	if (k->type == K_LIST || k->type == K_SECRETS) {
		const struct strv *l = src;
		for (size_t j = 0; j < l->n; j++) {
			char *norm = NULL;
			if (k->check(l->v[j], &norm, e) < 0)
				return strncmp(e->msg, "--", 2) ? jail_err_wrap(e, "%s", flag) : -1;
			if (k->type == K_SECRETS) {
				secret_put(p, k, norm, origin);
			} else if (bind_claim(p, k, norm, origin, e) < 0) {
				free(norm);
				return -1;
			} else {
				list_add(p, k, norm, origin);
			}
		}
		return 0;
	}
	switch (k->type) {
	case K_STRING: {
		char *norm = NULL;
		if (*(char *const *)src && k->check(*(char *const *)src, &norm, e) < 0)
			return strncmp(e->msg, "--", 2) ? jail_err_wrap(e, "%s", flag) : -1;
		free(*FIELD(p, k, char *));
		*FIELD(p, k, char *) = norm;
		break;
	}
	case K_BOOL: *FIELD(p, k, bool) = *(const bool *)src; break;
	case K_SIZE: case K_COUNT: *FIELD(p, k, long long) = *(const long long *)src; break;
	case K_CPUS: *FIELD(p, k, double) = *(const double *)src; break;
	case K_NET: *FIELD(p, k, enum net_mode) = *(const enum net_mode *)src; break;
	case K_HOME: *FIELD(p, k, enum home_mode) = *(const enum home_mode *)src; break;
	case K_HIDE: *FIELD(p, k, enum hide_mode) = *(const enum hide_mode *)src; break;
	default: break;
	}
	free(p->origin[i]);
	p->origin[i] = xstrdup(origin);
	return 0;
}

int policy_load_all(struct policy *p, const struct cli *cli, const char *project,
                    struct jail_err *e)
{
	if (policy_load_text(p, EMBEDDED_NAME, embedded_default_policy, e) < 0)
		return -1;
	for (size_t i = 0; i < cli->cfg.policies.n; i++)
		if (policy_load_named(p, cli->cfg.policies.v[i], e) < 0)
			return -1;
	if (load_user_file(p, e) < 0)
		return -1;
	if (project && load_project_file(p, project, e) < 0)
		return -1;
	bool any = false;
	for (size_t i = 0; i < policy_key_count(); i++) {
		const struct policy_key *k = policy_key(i);
		if (!cli_sets(cli, k->id))
			continue;
		if (apply_flag(p, cli, k, e) < 0)
			return -1;
		any = true;
	}
	if (any)
		strv_push(&p->layers, "command line");
	return 0;
}

int policy_resolve(struct cli *cli, const char *project, struct jail_config *out,
                   struct jail_err *e)
{
	struct policy p;
	policy_init(&p);
	if (policy_load_all(&p, cli, project, e) < 0) {
		policy_free(&p);
		return -1;
	}
	*out = p.cfg;
	config_init(&p.cfg);
	policy_free(&p);
	/* what the invocation says, not the policy */
	struct jail_config *c = &cli->cfg;
	free(out->project);
	free(out->session);
	out->project = steal_ptr(&c->project);
	out->session = steal_ptr(&c->session);
	out->argv = c->argv;
	out->policies = c->policies;
	memset(&c->policies, 0, sizeof(c->policies));
	out->quiet = c->quiet;
	out->no_export = c->no_export;
	return 0;
}

static void print_line(FILE *f, const char *key, const char *op, const char *value, const char *origin)
{
	_cleanup_free_ char *v = escape_name(value);
	_cleanup_free_ char *o = escape_name(origin ? origin : "built-in");
	int n = fprintf(f, "%s %s%s%s", key, op, *v ? " " : "", v);
	fprintf(f, "%*s; %s\n", n < 39 ? 39 - n : 1, "", o);
}

static char *format_size(long long v)
{
	static const char units[] = "TGMK";
	for (int i = 0; i < 4; i++) {
		long long m = 1LL << (10 * (4 - i));
		if (v && v % m == 0)
			return xasprintf("%lld%c", v / m, units[i]);
	}
	return xasprintf("%lld", v);
}

static char *format_scalar(const struct policy *p, const struct policy_key *k)
{
	const void *f = (const char *)&p->cfg + k->off;
	bool limit = strcmp(k->section, "limits") == 0;
	switch (k->type) {
	case K_STRING: return xstrdup(*(char *const *)f ? *(char *const *)f : "");
	case K_BOOL: return xstrdup(*(const bool *)f ? "true" : "false");
	case K_SIZE: return limit && !*(const long long *)f ? xstrdup("none") : format_size(*(const long long *)f);
	case K_COUNT: return !*(const long long *)f ? xstrdup("none") : xasprintf("%lld", *(const long long *)f);
	case K_CPUS: return !*(const double *)f ? xstrdup("none") : xasprintf("%g", *(const double *)f);
	case K_NET: return xstrdup(net_modes[*(const enum net_mode *)f]);
	case K_HOME: return xstrdup(home_modes[*(const enum home_mode *)f]);
	case K_HIDE: return xstrdup(hide_modes[*(const enum hide_mode *)f]);
	default: return xstrdup("");
	}
}

/* A secret's source without anything that could be the secret: a command line
 * may carry a token, so only its kind is shown. */
static void print_secret(FILE *f, const char *entry, const char *origin)
{
	_cleanup_free_ char *name = strndup(entry, strcspn(entry, "="));
	const char *src = entry + strlen(name) + 1;
	if (strncmp(src, "broker:cmd:", 11) == 0) {
		const char *fr = strstr(src, " for ");
		while (fr && strstr(fr + 1, " for "))
			fr = strstr(fr + 1, " for ");
		_cleanup_free_ char *shown = xasprintf("broker:cmd:<redacted>%s", fr ? fr : "");
		print_line(f, name, "=", shown, origin);
		return;
	}
	print_line(f, name, "=", strncmp(src, "cmd:", 4) == 0 ? "cmd:<redacted>" : src, origin);
}

static void print_key(const struct policy *p, const struct policy_key *k, FILE *f)
{
	size_t i = key_index(k);
	if (k->type == K_SECRETS) {
		const struct strv *l = CFIELD(p, k, struct strv);
		for (size_t j = 0; j < l->n; j++)
			print_secret(f, l->v[j], p->item_origin[i].v[j]);
	} else if (k->type == K_LIST) {
		const struct strv *l = CFIELD(p, k, struct strv);
		if (l->n == 0)
			print_line(f, k->name, "=", "", p->origin[i]);
		for (size_t j = 0; j < l->n; j++)
			print_line(f, k->name, j ? "+=" : "=", l->v[j], p->item_origin[i].v[j]);
	} else {
		_cleanup_free_ char *v = format_scalar(p, k);
		print_line(f, k->name, "=", v, p->origin[i]);
	}
}

void policy_print(const struct policy *p, FILE *f)
{
	fprintf(f, "; the effective policy; layers, later wins:\n");
	for (size_t i = 0; i < p->layers.n; i++) {
		_cleanup_free_ char *esc = escape_name(p->layers.v[i]);
		fprintf(f, ";   %s\n", esc);
	}
	if (p->project_ignored)
		fprintf(f, ";   (the project's .jail.ini is not trusted and was ignored)\n");
	for (size_t s = 0; policy_sections[s]; s++) {
		fprintf(f, "\n[%s]\n", policy_sections[s]);
		for (size_t i = 0; i < policy_key_count(); i++)
			if (strcmp(policy_key(i)->section, policy_sections[s]) == 0)
				print_key(p, policy_key(i), f);
	}
}
