/* brokerrules.c — the method and path rules of a brokered secret (see
 * brokerrules.h). */
#include "brokerrules.h"

#include <string.h>
#include <strings.h>

bool brokerrules_valid(const char *rule)
{
	const char *sp = strchr(rule, ' ');
	if (!sp || sp == rule)
		return false;
	if (!(sp - rule == 1 && rule[0] == '*'))
		for (const char *p = rule; p < sp; p++)
			if (*p < 'A' || *p > 'Z')
				return false;
	const char *pat = sp + 1;
	if (*pat != '/' && *pat != '*')
		return false;
	/* what a matched path never holds: a rule with it would match nothing */
	for (const char *p = pat; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f || strchr("?#\\;", *p))
			return false;
	return true;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A percent escape at p (p[0] == '%'): one of a letter, a digit, '-', '_',
 * '~' or a non-ASCII byte (a UTF-8 name) decodes to nothing a server could
 * read as structure; anything else ('/', '.', '%' for a second decoding,
 * '\', ';', '?', '#', a control byte) is refused. */
static bool escape_ok(const char *p, const char *end)
{
	if (end - p < 3 || hexval(p[1]) < 0 || hexval(p[2]) < 0)
		return false;
	int c = hexval(p[1]) * 16 + hexval(p[2]);
	return c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '-' || c == '_' || c == '~';
}

static bool dot_segment(const char *seg, const char *end)
{
	return (end - seg == 1 && seg[0] == '.') || (end - seg == 2 && seg[0] == '.' && seg[1] == '.');
}

/* One spelling only: see brokerrules.h. */
static const char *path_check(const char *p, const char *end)
{
	const char *seg = p + 1;
	for (const char *q = p; q < end; q++) {
		if (*q == '%' && !escape_ok(q, end))
			return "a target with a percent-encoded '/', '.' or other punctuation";
		if (*q == '\\' || *q == ';')
			return "a target with '\\' or ';' in its path";
		if (*q == '/' && q > p) {
			if (q == seg)
				return "a target with '//' in its path";
			if (dot_segment(seg, q))
				return "a target with a '.' or '..' segment";
			seg = q + 1;
		}
	}
	if (dot_segment(seg, end))
		return "a target with a '.' or '..' segment";
	return NULL;
}

int brokerrules_path(const char *t, const char *tend, const char **path, size_t *len,
                     const char **why)
{
	if (memchr(t, '#', (size_t)(tend - t))) {
		*why = "a target with a '#'";
		return -1;
	}
	if (tend - t == 1 && *t == '*') {
		*path = t;
		*len = 1;
		return 0;
	}
	const char *p = t;
	if ((size_t)(tend - t) > 8 && strncasecmp(t, "https://", 8) == 0) {
		p = t + 8;
		while (p < tend && *p != '/' && *p != '?')
			p++;
	}
	const char *q = memchr(p, '?', (size_t)(tend - p));
	const char *pend = q ? q : tend;
	if (p == pend) {  /* https://host or https://host?query */
		*path = "/";
		*len = 1;
		return 0;
	}
	if (*p != '/') {
		*why = "a target that is not a path";
		return -1;
	}
	if ((*why = path_check(p, pend)))
		return -1;
	*path = p;
	*len = (size_t)(pend - p);
	return 0;
}

/* Does pattern pat ('*': any run of characters) match all of [s, s+n)? */
static bool glob(const char *pat, const char *s, size_t n)
{
	const char *star = NULL;
	size_t i = 0, after_star = 0;
	while (i < n) {
		if (*pat == '*') {
			star = pat++;
			after_star = i;
		} else if (*pat && *pat == s[i]) {
			pat++;
			i++;
		} else if (star) {  /* let the last '*' take one more character */
			pat = star + 1;
			i = ++after_star;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return !*pat;
}

bool brokerrules_allow(const struct strv *rules, const char *method, size_t mlen,
                       const char *path, size_t plen)
{
	for (size_t i = 0; i < rules->n; i++) {
		const char *r = rules->v[i], *sp = strchr(r, ' ');
		bool any = sp - r == 1 && r[0] == '*';
		/* methods are case-sensitive (RFC 9110 9.1): "post" is not POST */
		if ((any || ((size_t)(sp - r) == mlen && memcmp(r, method, mlen) == 0)) &&
		    glob(sp + 1, path, plen))
			return true;
	}
	return false;
}
