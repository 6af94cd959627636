/* namematch.c — hide.c's rules, read once for a walk of many names
 * (namematch.h).  Pure code. */
#include "namematch.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* One name pattern (no '/'): a plain name, "lit*", "*lit", "*lit*" are
 * compared on the lower-cased name; anything else goes to fnmatch. */
enum name_kind { K_EXACT, K_PREFIX, K_SUFFIX, K_INFIX, K_GLOB };

struct name_pat {
	enum name_kind kind;
	char *lit;   /* the lower-cased literal (K_GLOB: none) */
	size_t len;
	char *glob;  /* the name pattern as written */
	char *path;  /* a pattern with '/': the whole of it (glob is its last name) */
};

struct namematch {
	struct name_pat *secret;
	size_t n_secret;
	const struct strv *hide, *show;
};

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static void compile(struct name_pat *p, const char *name)
{
	size_t n = strlen(name);
	bool lead = n > 0 && name[0] == '*', trail = n > 1 && name[n - 1] == '*';
	const char *body = name + lead;
	size_t blen = n - lead - (n > 1 && trail);
	p->glob = xstrdup(name);
	if (strcspn(body, "*?[\\") < blen) {
		p->kind = K_GLOB;
		return;
	}
	p->kind = lead && trail ? K_INFIX : lead ? K_SUFFIX : trail ? K_PREFIX : K_EXACT;
	p->lit = xasprintf("%.*s", (int)blen, body);
	for (size_t i = 0; i < blen; i++)
		p->lit[i] = ascii_lower(p->lit[i]);
	p->len = blen;
}

struct namematch *namematch_new(const struct jail_config *cfg)
{
	struct namematch *m = xcalloc(1, sizeof(*m));
	m->hide = &cfg->hide;
	m->show = &cfg->show_ignored;
	if (cfg->hide_ignored == HIDE_NONE || !cfg->secret_names.n)
		return m;
	m->secret = xcalloc(cfg->secret_names.n, sizeof(*m->secret));
	for (size_t i = 0; i < cfg->secret_names.n; i++) {
		_cleanup_free_ char *pat = xstrdup(cfg->secret_names.v[i]);
		size_t n = strlen(pat);
		while (n > 1 && pat[n - 1] == '/')
			pat[--n] = '\0';
		struct name_pat *p = &m->secret[m->n_secret++];
		const char *slash = strrchr(pat, '/');
		if (slash)
			p->path = xstrdup(pat);
		compile(p, slash ? slash + 1 : pat);
	}
	return m;
}

void namematch_free(struct namematch *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n_secret; i++) {
		free(m->secret[i].lit);
		free(m->secret[i].glob);
		free(m->secret[i].path);
	}
	free(m->secret);
	free(m);
}

/* `low`: the name lower-cased, `len` its length; `name` as it is. */
static bool name_matches(const struct name_pat *p, const char *name, const char *low,
                         size_t len)
{
	/* the first byte compared apart: most names differ there, and a call
	 * of memcmp for each of 40 patterns and 100,000 names shows */
	switch (p->kind) {
	case K_EXACT:
		return len == p->len && (!len || low[0] == p->lit[0]) &&
		       memcmp(low, p->lit, len) == 0;
	case K_PREFIX:
		return len >= p->len && (!p->len || low[0] == p->lit[0]) &&
		       memcmp(low, p->lit, p->len) == 0;
	case K_SUFFIX:
		return len >= p->len && (!p->len || low[len - 1] == p->lit[p->len - 1]) &&
		       memcmp(low + len - p->len, p->lit, p->len) == 0;
	case K_INFIX:
		return memmem(low, len, p->lit, p->len) != NULL;
	case K_GLOB:
	default:
		return fnmatch(p->glob, name, FNM_CASEFOLD) == 0;
	}
}

/* As hide.c's secret_match: a name pattern matches the last name, one with
 * '/' the end of the path at a name's start. */
static bool secret_shaped(const struct namematch *m, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = strlen(base);
	char low[256];
	bool fast = len < sizeof(low); /* else longer than a name can be: fnmatch */
	for (size_t i = 0; fast && i < len; i++)
		low[i] = ascii_lower(base[i]);
	for (size_t i = 0; i < m->n_secret; i++) {
		const struct name_pat *p = &m->secret[i];
		if (fast ? !name_matches(p, base, low, len)
		         : fnmatch(p->glob, base, FNM_CASEFOLD) != 0)
			continue;
		if (!p->path)
			return true;
		for (const char *c = path; c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL)
			if (fnmatch(p->path, c, FNM_PATHNAME | FNM_CASEFOLD) == 0)
				return true;
	}
	return false;
}

bool namematch_any(const struct strv *patterns, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t i = 0; i < patterns->n; i++) {
		const char *pat = patterns->v[i];
		size_t n = strlen(pat);
		if (fnmatch(pat, path, FNM_PATHNAME) == 0 || fnmatch(pat, base, 0) == 0 ||
		    (strncmp(path, pat, n) == 0 && path[n] == '/'))
			return true;
	}
	return false;
}

bool namematch_hides(const struct namematch *m, const char *path)
{
	return namematch_any(m->hide, path);
}

enum name_verdict namematch_judge(const struct namematch *m, const char *path)
{
	if (namematch_any(m->hide, path))
		return NAME_COVER;
	if (namematch_any(m->show, path))
		return NAME_SHOWN;
	return m->n_secret && secret_shaped(m, path) ? NAME_COVER : NAME_KEEP;
}
