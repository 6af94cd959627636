/* crcache.c — the base blobs' carriage returns, kept per session (crcache.h). */
#include "crcache.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE 43          /* 40 hex digits, ' ', '0' or '1', '\n' */
#define CACHE_MAX (8u << 20)

static bool valid_line(const char *l)
{
	for (int i = 0; i < 40; i++)
		if (!((l[i] >= '0' && l[i] <= '9') || (l[i] >= 'a' && l[i] <= 'f')))
			return false;
	return l[40] == ' ' && (l[41] == '0' || l[41] == '1') && l[42] == '\n';
}

static int cmp_line(const void *key, const void *line)
{
	return memcmp(key, line, 40);
}

void crcache_apply(const char *session_dir, struct changeset *cs)
{
	_cleanup_free_ char *path = xasprintf("%s/base-cr", session_dir);
	_cleanup_free_ char *data = NULL;
	size_t len = 0;
	struct jail_err ignored;
	if (read_file_at(AT_FDCWD, path, CACHE_MAX, &data, &len, &ignored) < 0 || len % LINE)
		return;
	for (size_t i = 0; i < len; i += LINE)  /* sorted, or bsearch could miss */
		if (!valid_line(data + i) || (i && memcmp(data + i - LINE, data + i, 40) >= 0))
			return;
	for (size_t i = 0; i < cs->n; i++) {
		struct change *c = &cs->v[i];
		if (c->reason || c->pre != PRE_BASE || strlen(c->base_oid) != 40)
			continue;
		const char *l = bsearch(c->base_oid, data, len / LINE, LINE, cmp_line);
		if (!l)
			continue;
		c->base_cr_known = true;
		c->base_cr = l[41] == '1';
		c->has_cr |= c->base_cr && (c->base_mode & 0170000) == 0100000;  /* as patch.c */
	}
}

static int cmp_oid(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void crcache_store(const char *session_dir, const struct changeset *cs)
{
	size_t n = 0;
	char **v = xcalloc(cs->n ? cs->n : 1, sizeof(*v));
	for (size_t i = 0; i < cs->n; i++) {
		const struct change *c = &cs->v[i];
		if (!c->reason && c->pre == PRE_BASE && strlen(c->base_oid) == 40)
			v[n++] = xasprintf("%s %c\n", c->base_oid, c->base_cr ? '1' : '0');
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_oid);
	struct strbuf b = {0};
	for (size_t i = 0; i < n; i++)
		if (!i || memcmp(v[i - 1], v[i], 40) != 0)  /* one blob at several paths */
			sb_append(&b, v[i], LINE);
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	_cleanup_free_ char *path = xasprintf("%s/base-cr", session_dir);
	struct jail_err ignored;
	if (replace_file(path, b.s ? b.s : "", b.len, 0600, &ignored) < 0) {
		/* the next export reads the blobs again */
	}
	sb_free(&b);
}
