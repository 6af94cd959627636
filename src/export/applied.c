/* applied.c — see applied.h. */
#include "applied.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>

/* By path; of one path's records the later last (settle() keeps it). */
static int cmp_entry(const void *a, const void *b)
{
	const struct applied_entry *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_key(const void *key, const void *elem)
{
	return strcmp(key, ((const struct applied_entry *)elem)->path);
}

static struct applied_entry *find(const struct applied *a, const char *path)
{
	return a->n ? bsearch(path, a->v, a->n, sizeof(*a->v), cmp_key) : NULL;
}

/* A record, appended: settle() sorts them once.  (Sorting after each one,
 * 20,000 paths that `jail apply` landed made every later status take 9 s,
 * the number of paths squared.) */
static void add(struct applied *a, const char *path, unsigned mode, const char *oid)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 64;
		a->v = xrealloc(a->v, a->cap * sizeof(*a->v));
	}
	struct applied_entry *e = &a->v[a->n];
	e->path = xstrdup(path);
	e->mode = mode;
	e->seq = a->n++;
	snprintf(e->oid, sizeof(e->oid), "%s", oid);
}

/* Sorted by path, one record a path: the one added last. */
static void settle(struct applied *a)
{
	if (a->n)
		qsort(a->v, a->n, sizeof(*a->v), cmp_entry);
	size_t keep = 0;
	for (size_t i = 0; i < a->n; i++) {
		if (i + 1 < a->n && strcmp(a->v[i].path, a->v[i + 1].path) == 0) {
			free(a->v[i].path);
			continue;
		}
		a->v[keep] = a->v[i];
		a->v[keep].seq = keep;
		keep++;
	}
	a->n = keep;
}

void applied_parse(struct applied *a, const char *data, size_t len, const char *prefix)
{
	size_t pl = strlen(prefix);
	for (size_t i = 0; i < len;) {
		const char *rec = data + i;
		size_t n = strnlen(rec, len - i);
		i += n + 1;
		const char *tab = memchr(rec, '\t', n);
		char type[16] = "blob", oid[65];
		unsigned mode;
		if (!tab)
			continue;
		/* ls-tree: "MODE TYPE OID"; our file: "MODE OID" */
		size_t spaces = 0;
		for (const char *p = rec; p < tab; p++)
			spaces += *p == ' ';
		if (spaces == 2 ? sscanf(rec, "%o %15s %64s", &mode, type, oid) != 3
		                : sscanf(rec, "%o %64s", &mode, oid) != 2)
			continue;
		_cleanup_free_ char *path = strndup(tab + 1, n - (size_t)(tab + 1 - rec));
		if (strcmp(type, "blob") != 0 || strncmp(path, prefix, pl) != 0 || !path[pl])
			continue;
		if (mode == 0 || strspn(oid, "0123456789abcdef") == strlen(oid))
			add(a, path + pl, mode, mode ? oid : "-");
	}
	settle(a);
}

void applied_load(const char *session_dir, struct applied *a)
{
	memset(a, 0, sizeof(*a));
	_cleanup_free_ char *path = xasprintf("%s/applied", session_dir), *data = NULL;
	size_t len = 0;
	struct jail_err ignored;
	if (read_file_at(AT_FDCWD, path, 64u << 20, &data, &len, &ignored) == 0)
		applied_parse(a, data, len, "");
}

void applied_free(struct applied *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i].path);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

int applied_record(const char *session_dir, const char *name, const struct changeset *cs,
                   const char *prefix, const struct strbuf *ls_tree, struct jail_err *e)
{
	struct applied a, post = {0};
	applied_load(session_dir, &a);
	if (ls_tree->s)
		applied_parse(&post, ls_tree->s, ls_tree->len, prefix);
	for (size_t i = 0; i < cs->n; i++) {
		const struct change *c = &cs->v[i];
		struct applied_entry *p = c->reason ? NULL : find(&post, c->path);
		if (!c->reason && c->new_type == FT_NONE)
			add(&a, c->path, 0, "-");
		else if (p)
			add(&a, c->path, p->mode, p->oid);
	}
	settle(&a);
	struct strbuf b = {0};
	for (size_t i = 0; i < a.n; i++) {
		sb_printf(&b, "%o %s\t%s", a.v[i].mode, a.v[i].oid, a.v[i].path);
		sb_append(&b, "", 1);
	}
	_cleanup_free_ char *path = xasprintf("%s/%s", session_dir, name);
	int r = replace_file(path, b.s ? b.s : "", b.len, 0600, e);
	sb_free(&b);
	applied_free(&a);
	applied_free(&post);
	return r;
}

void applied_wanted(const struct applied *a, const struct changeset *cs, struct strv *oids)
{
	for (size_t i = 0; i < cs->n; i++) {
		const struct applied_entry *p = cs->v[i].reason ? NULL : find(a, cs->v[i].path);
		if (p && p->mode != 0)
			strv_push(oids, p->oid);
	}
}

void applied_adjust(const struct applied *a, struct changeset *cs,
                    bool (*oid_present)(void *ctx, const char *oid), void *ctx)
{
	size_t keep = 0;
	for (size_t i = 0; i < cs->n; i++) {
		struct change *c = &cs->v[i];
		const struct applied_entry *p = c->reason ? NULL : find(a, c->path);
		if (p && p->mode == 0 && c->new_type == FT_NONE) {
			free(c->path);  /* deleted, and that deletion landed already */
			free(c->reason);
			continue;
		}
		if (p && p->mode == 0) {
			c->pre = PRE_NONE;  /* re-created since: new again */
		} else if (p && oid_present(ctx, p->oid)) {
			c->pre = PRE_BASE;
			c->base_mode = p->mode;
			snprintf(c->base_oid, sizeof(c->base_oid), "%s", p->oid);
		}
		cs->v[keep++] = *c;
	}
	cs->n = keep;
}
