/* diffstat.c — git's diffstat, made from the patch git printed (diffstat.h). */
#include "diffstat.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- display width, as git's utf8_strwidth counts it ---- */

/* One code point's columns; -1: a range whose widths this table does not
 * hold (git's own table is generated from Unicode data; only blocks whose
 * widths are the same in every version of it are here). */
static int cp_width(unsigned cp)
{
	static const struct {
		unsigned lo, hi;
		int w;
	} known[] = {
		{0xA0, 0x2FF, 1},     {0x300, 0x36F, 0},     {0x370, 0x482, 1},
		{0x483, 0x489, 0},    {0x3041, 0x3096, 2},   {0x30A1, 0x30FA, 2},
		{0x4E00, 0x9FFF, 2},  {0xAC00, 0xD7A3, 2},   {0xFF01, 0xFF60, 2},
	};
	if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0))
		return 0;  /* git: -1, which adds nothing */
	if (cp < 0x7F)
		return 1;
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (cp >= known[i].lo && cp <= known[i].hi)
			return known[i].w;
	return -1;
}

/* The code point at *s (git's rules of valid UTF-8: no overlong form, no
 * surrogate, no U+FFFE/U+FFFF, nothing above U+10FFFF); false if invalid. */
static bool next_cp(const unsigned char **s, unsigned *cp)
{
	const unsigned char *p = *s;
	size_t n = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3
	                                 : (p[0] & 0xF8) == 0xF0 ? 4 : 0;
	if (!n)
		return false;
	for (size_t k = 1; k < n; k++)
		if ((p[k] & 0xC0) != 0x80)
			return false;  /* the NUL ends it here too */
	unsigned v = n == 1 ? p[0] : n == 2 ? p[0] & 0x1Fu : n == 3 ? p[0] & 0x0Fu : p[0] & 0x07u;
	for (size_t k = 1; k < n; k++)
		v = v << 6 | (p[k] & 0x3Fu);
	static const unsigned min[] = {0, 0, 0x80, 0x800, 0x10000};
	if (v < min[n] || (v >= 0xD800 && v <= 0xDFFF) || v == 0xFFFE || v == 0xFFFF ||
	    v > 0x10FFFF)
		return false;
	*cp = v, *s = p + n;
	return true;
}

int diffstat_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	long w = 0;
	while (*p) {
		unsigned cp;
		if (!next_cp(&p, &cp))
			return (int)strlen(s);  /* git: not UTF-8, so its length */
		int c = cp_width(cp);
		if (c < 0)
			return -1;
		w += c;
	}
	return (int)w;
}

/* ---- the stat, as diff.c prints it ---- */

/* "a => b" with the common leading directories and trailing part braced:
 * "dir/{a => b}/rest" (pprint_rename); quoted names are not shortened. */
static void rename_name(struct strbuf *b, const char *a, const char *n)
{
	if (a[0] == '"' || n[0] == '"') {
		sb_printf(b, "%s => %s", a, n);
		return;
	}
	size_t la = strlen(a), ln = strlen(n), pfx = 0;
	for (size_t i = 0; a[i] && a[i] == n[i]; i++)
		if (a[i] == '/')
			pfx = i + 1;
	/* the suffix may reach one into the prefix (its '/'), never beyond */
	size_t sfx = 0, back = pfx ? 1 : 0;
	for (size_t i = la, j = ln; i + back >= pfx && j + back >= pfx; i--, j--) {
		if (a[i] != n[j])
			break;
		if (a[i] == '/')
			sfx = la - i;
		if (i == 0 || j == 0)
			break;
	}
	size_t mid_a = la > pfx + sfx ? la - pfx - sfx : 0;
	size_t mid_n = ln > pfx + sfx ? ln - pfx - sfx : 0;
	bool brace = pfx + sfx > 0;
	if (brace) {
		sb_append(b, a, pfx);
		sb_puts(b, "{");
	}
	sb_append(b, a + pfx, mid_a);
	sb_puts(b, " => ");
	sb_append(b, n + pfx, mid_n);
	if (brace) {
		sb_puts(b, "}");
		sb_append(b, a + la - sfx, sfx);
	}
}

static char *print_name(const struct ds_file *f)
{
	struct strbuf b = {0};
	if (f->from)
		rename_name(&b, f->from, f->name);
	else
		sb_puts(&b, f->name);
	return sb_steal(&b);
}

static int decimal_width(unsigned long long v)
{
	int w = 1;
	for (; v >= 10; v /= 10)
		w++;
	return w;
}

/* A '+'/'-' count scaled to the graph, at least one for any change. */
static long long scale(long long it, long long width, long long max)
{
	return it ? 1 + it * (width - 1) / max : 0;
}

struct layout {
	int name_width, number_width, graph_width;
	unsigned long long max_change;
};

/* The widths show_stats() gives the name, the count and the graph. */
static void lay_out(const struct diffstat *d, char **names, int width, struct layout *l)
{
	long long max_len = 0, bin_width = 0;
	l->number_width = 0;
	l->max_change = 0;
	for (size_t i = 0; i < d->n; i++) {
		const struct ds_file *f = &d->v[i];
		long long len = diffstat_width(names[i]);
		max_len = len > max_len ? len : max_len;
		if (f->binary) {
			long long w = 14 + decimal_width(f->added) + decimal_width(f->deleted);
			bin_width = w > bin_width ? w : bin_width;
			l->number_width = 3;  /* aligned with "Bin" */
			continue;
		}
		if (f->added + f->deleted > l->max_change)
			l->max_change = f->added + f->deleted;
	}
	if (decimal_width(l->max_change) > l->number_width)
		l->number_width = decimal_width(l->max_change);
	int nw = l->number_width;
	if (width < 16 + 6 + nw)
		width = 16 + 6 + nw;
	long long graph = l->max_change + 4 > (unsigned long long)bin_width ? (long long)l->max_change
	                                                                   : bin_width - 4;
	long long name = max_len;
	if (name + nw + 6 + graph > width) {
		if (graph > width * 3 / 8 - nw - 6) {
			graph = width * 3 / 8 - nw - 6;
			if (graph < 6)
				graph = 6;
		}
		if (name > width - nw - 6 - graph)
			name = width - nw - 6 - graph;
		else
			graph = width - nw - 6 - name;
	}
	l->name_width = (int)name;
	l->graph_width = (int)graph;
}

static void stat_line(const struct ds_file *f, const char *name, const struct layout *l,
                      struct strbuf *out)
{
	const char *prefix = "";
	int len = l->name_width, name_len = diffstat_width(name);
	if (len < name_len) {
		/* cut by columns counted as bytes, then at a '/' (as git does) */
		prefix = "...";
		len -= 3;
		name += name_len - len;
		const char *slash = strchr(name, '/');
		name = slash ? slash : name;
	}
	int padding = len - diffstat_width(name);
	padding = padding < 0 ? 0 : padding;
	sb_printf(out, " %s%s%*s | ", prefix, name, padding, "");
	if (f->binary) {
		sb_printf(out, "%*s", l->number_width, "Bin");
		if (f->added || f->deleted)
			sb_printf(out, " %llu -> %llu bytes", f->deleted, f->added);
		sb_puts(out, "\n");
		return;
	}
	long long add = (long long)f->added, del = (long long)f->deleted;
	long long gw = l->graph_width, max = (long long)l->max_change;
	if ((unsigned long long)gw <= l->max_change) {
		long long total = scale(add + del, gw, max);
		if (total < 2 && add && del)
			total = 2;
		if (add < del) {
			add = scale(add, gw, max);
			del = total - add;
		} else {
			del = scale(del, gw, max);
			add = total - del;
		}
	}
	sb_printf(out, "%*llu%s", l->number_width, f->added + f->deleted,
	          f->added + f->deleted ? " " : "");
	for (long long k = 0; k < add; k++)
		sb_puts(out, "+");
	for (long long k = 0; k < del; k++)
		sb_puts(out, "-");
	sb_puts(out, "\n");
}

static void totals(const struct diffstat *d, struct strbuf *out)
{
	unsigned long long ins = 0, del = 0;
	for (size_t i = 0; i < d->n; i++)
		if (!d->v[i].binary)
			ins += d->v[i].added, del += d->v[i].deleted;
	sb_printf(out, " %zu file%s changed", d->n, d->n == 1 ? "" : "s");
	if (ins || !del)
		sb_printf(out, ", %llu insertion%s(+)", ins, ins == 1 ? "" : "s");
	if (del || !ins)
		sb_printf(out, ", %llu deletion%s(-)", del, del == 1 ? "" : "s");
	sb_puts(out, "\n");
}

static void summary_line(const struct ds_file *f, const char *pname, struct strbuf *out)
{
	bool modes = f->old_mode && f->new_mode && f->old_mode != f->new_mode;
	switch (f->status) {
	case 'D':
		sb_printf(out, " delete mode %06o %s\n", f->old_mode, f->name);
		break;
	case 'A':
		sb_printf(out, " create mode %06o %s\n", f->new_mode, f->name);
		break;
	case 'R':
		sb_printf(out, " rename %s (%d%%)\n", pname, f->similarity);
		if (modes)
			sb_printf(out, " mode change %06o => %06o\n", f->old_mode, f->new_mode);
		break;
	default:
		if (modes)
			sb_printf(out, " mode change %06o => %06o %s\n", f->old_mode, f->new_mode,
			          f->name);
	}
}

int diffstat_render(const struct diffstat *d, int width, struct strbuf *out)
{
	if (!d->n)
		return 0;
	char **names = xcalloc(d->n, sizeof(*names));
	int r = 0;
	for (size_t i = 0; i < d->n && r == 0; i++) {
		names[i] = print_name(&d->v[i]);
		/* the graph's arithmetic is git's int: keep far from its limit */
		if (diffstat_width(names[i]) < 0 || d->v[i].added + d->v[i].deleted > (1ull << 24))
			r = -1;
	}
	if (r == 0) {
		struct layout l;
		lay_out(d, names, width, &l);
		for (size_t i = 0; i < d->n; i++)
			stat_line(&d->v[i], names[i], &l, out);
		totals(d, out);
		for (size_t i = 0; i < d->n; i++)
			summary_line(&d->v[i], names[i], out);
	}
	for (size_t i = 0; i < d->n; i++)
		free(names[i]);
	free(names);
	return r;
}

void diffstat_free(struct diffstat *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].name);
		free(d->v[i].from);
		free(d->v[i].oids);
	}
	free(d->v);
	*d = (struct diffstat){0};
}

char *diffstat_unquote(const char *q)
{
	if (q[0] != '"')
		return xstrdup(q);
	struct strbuf b = {0};
	sb_append(&b, "", 0);
	const char *p = q + 1;
	for (; *p && *p != '"'; p++) {
		if (*p != '\\') {
			sb_append(&b, p, 1);
			continue;
		}
		p++;
		static const char from[] = "abtnvfr\"\\", to[] = "\a\b\t\n\v\f\r\"\\";
		const char *k = *p ? strchr(from, *p) : NULL;
		char c;
		if (k) {
			c = to[k - from];
		} else if (p[0] >= '0' && p[0] <= '3' && p[1] >= '0' && p[1] <= '7' && p[2] >= '0' &&
		           p[2] <= '7') {
			c = (char)((p[0] - '0') << 6 | (p[1] - '0') << 3 | (p[2] - '0'));
			p += 2;
		} else {
			break;
		}
		sb_append(&b, &c, 1);
	}
	if (p[0] != '"' || p[1]) {
		sb_free(&b);
		return NULL;
	}
	return sb_steal(&b);
}

/* ---- reading the patch ---- */

#define LINE_MAX_KEPT 65536  /* a longer header line: not sure of it */

/* Lines of a file read in chunks: each line's first LINE_MAX_KEPT bytes, the
 * rest skipped (a diff's line may be of any length; its first byte says what
 * it is). */
struct lines {
	int fd;
	char *buf;          /* LINE_MAX_KEPT * 2 + 1 */
	size_t start, end;
	bool eof, skipping;
};

/* The next line, without its '\n' and NUL-terminated in place; *cut when it
 * was longer than kept, *open when the file ended without its '\n'.  0 at
 * the end, -1 on a read error. */
static int next_line(struct lines *r, char **line, size_t *len, bool *cut, bool *open,
                     struct jail_err *e)
{
	*cut = *open = false;
	for (;;) {
		char *at = r->buf + r->start;
		size_t have = r->end - r->start;
		char *nl = memchr(at, '\n', have);
		if (r->skipping) {
			r->start = nl ? (size_t)(nl + 1 - r->buf) : r->end;
			r->skipping = !nl;
			if (nl)
				continue;
		} else if (nl || have >= LINE_MAX_KEPT || (r->eof && have)) {
			*line = at;
			*len = nl ? (size_t)(nl - at) : have < LINE_MAX_KEPT ? have : LINE_MAX_KEPT;
			*cut = !nl && have >= LINE_MAX_KEPT;
			*open = !nl && !*cut;
			r->skipping = *cut;  /* the byte after the kept part is not '\n' */
			r->start += *len + (nl ? 1 : 0);
			at[*len] = '\0';
			return 1;
		} else if (r->eof) {
			return 0;
		}
		if (r->eof)
			return 0;
		have = r->end - r->start;
		memmove(r->buf, r->buf + r->start, have);
		r->start = 0, r->end = have;
		ssize_t got = read(r->fd, r->buf + r->end, LINE_MAX_KEPT * 2 - r->end);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return jail_err_sys(e, "read the patch");
		r->eof = got == 0;
		r->end += (size_t)got;
	}
}

enum scan_state {
	S_MESSAGE,   /* before the first "diff --git" */
	S_HEADER,    /* a file's extended header lines */
	S_PLUS,      /* after "--- ", "+++ " next */
	S_HUNKS,     /* after a hunk (or "+++ "): "@@", the next file or the end */
	S_HUNK,      /* inside a hunk: old/new lines left */
	S_BIN_HEAD,  /* a binary patch's "literal N" or "delta N" */
	S_BIN_DATA,  /* its base85 lines, up to an empty one */
	S_DONE_FILE, /* both binary hunks read */
};

struct scan {
	struct diffstat *d;
	enum scan_state st;
	char *diff_line;        /* the current file's "diff --git " rest */
	char *rename_from, *rename_to;
	unsigned index_mode;
	char *index_oids;       /* "OLD NEW" */
	int bin_hunks;
	bool bin_delta;
	unsigned long long old_left, new_left;
};

/* The rest of s after prefix, or NULL. */
static const char *skip_prefix(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);
	return strncmp(s, prefix, n) == 0 ? s + n : NULL;
}

static struct ds_file *cur(struct scan *z)
{
	return &z->d->v[z->d->n - 1];
}

static bool parse_mode(const char *s, unsigned *mode)
{
	unsigned v = 0;
	if (strlen(s) != 6)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '7')
			return false;
		v = v << 3 | (unsigned)(*s - '0');
	}
	*mode = v;
	return v != 0;
}

static bool parse_num(const char **s, unsigned long long *v)
{
	const char *p = *s;
	unsigned long long n = 0;
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > (1ull << 60))
			return false;
		n = n * 10 + (unsigned long long)(*p - '0');
	}
	*v = n, *s = p;
	return true;
}

/* The one path of "a/P b/P" (both quoted, or neither), as quoted; NULL when
 * the two do not match. */
static char *same_path(const char *s)
{
	size_t n = strlen(s);
	if (n < 7 || n % 2 == 0)
		return NULL;
	size_t half = (n - 1) / 2;
	const char *a = s, *b = s + half + 1;
	if (s[half] != ' ')
		return NULL;
	bool q = a[0] == '"';
	size_t skip = q ? 3 : 2;
	if (memcmp(a, q ? "\"a/" : "a/", skip) != 0 || memcmp(b, q ? "\"b/" : "b/", skip) != 0 ||
	    memcmp(a + skip, b + skip, half - skip) != 0)
		return NULL;
	if (q && a[half - 1] != '"')
		return NULL;
	return q ? xasprintf("\"%.*s", (int)(half - skip), a + skip) : xasprintf("%.*s", (int)(half - skip), a + skip);
}

/* The current file's header is over: its names and what it is.  false: not
 * sure of it. */
static bool end_header(struct scan *z)
{
	struct ds_file *f = cur(z);
	if (z->rename_from || z->rename_to) {
		if (!z->rename_from || !z->rename_to || f->status != 'R')
			return false;
		f->from = steal_ptr(&z->rename_from);
		f->name = steal_ptr(&z->rename_to);
	} else {
		if (f->status == 'R' || !(f->name = same_path(z->diff_line)))
			return false;
	}
	free(z->diff_line);
	z->diff_line = NULL;
	if (f->status == 'M' && !f->old_mode && !f->new_mode && !z->index_mode)
		return false;  /* a change git shows says what its mode is */
	if ((f->old_mode != 0) != (f->new_mode != 0) && f->status != 'A' && f->status != 'D')
		return false;
	/* a typechange goes as a deletion and a creation of one path: its stat
	 * line is one, of the two sides diffed; not made here */
	if (z->d->n > 1 && strcmp(z->d->v[z->d->n - 2].name, f->name) == 0)
		return false;
	return true;
}

static bool begin_file(struct scan *z, const char *rest)
{
	struct diffstat *d = z->d;
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 64;
		d->v = xrealloc(d->v, d->cap * sizeof(*d->v));
	}
	d->v[d->n++] = (struct ds_file){.status = 'M'};
	free(z->index_oids);
	z->index_oids = NULL;
	z->index_mode = 0;
	z->diff_line = xstrdup(rest);
	z->st = S_HEADER;
	return true;
}

/* The file before is complete: a header alone is an empty file, a mode
 * change or a pure rename (binary or not: the caller knows, set_binary). */
static bool end_file(struct scan *z)
{
	if (z->st == S_MESSAGE)
		return true;
	if (z->st == S_HEADER) {
		if (!end_header(z))
			return false;
		struct ds_file *f = cur(z);
		static const char empty[] = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
		/* a created or deleted file without a hunk is the empty blob */
		if (f->status == 'A' || f->status == 'D')
			return z->index_oids && strstr(z->index_oids, empty);
		return f->status == 'R' ? z->index_oids == NULL : !!f->old_mode;
	}
	return z->st == S_HUNKS || z->st == S_DONE_FILE;
}

static bool header_line(struct scan *z, const char *l)
{
	struct ds_file *f = cur(z);
	const char *v;
	unsigned long long n;
	if ((v = skip_prefix(l, "old mode ")))
		return parse_mode(v, &f->old_mode);
	if ((v = skip_prefix(l, "new mode ")))
		return parse_mode(v, &f->new_mode);
	if ((v = skip_prefix(l, "deleted file mode ")))
		return f->status == 'M' && (f->status = 'D') && parse_mode(v, &f->old_mode);
	if ((v = skip_prefix(l, "new file mode ")))
		return f->status == 'M' && (f->status = 'A') && parse_mode(v, &f->new_mode);
	if ((v = skip_prefix(l, "similarity index "))) {
		if (f->status != 'M' || !parse_num(&v, &n) || strcmp(v, "%") != 0 || n > 100)
			return false;
		f->status = 'R';
		f->similarity = (int)n;
		return true;
	}
	if ((v = skip_prefix(l, "rename from ")))
		return !z->rename_from && *v && (z->rename_from = xstrdup(v));
	if ((v = skip_prefix(l, "rename to ")))
		return !z->rename_to && *v && (z->rename_to = xstrdup(v));
	if ((v = skip_prefix(l, "index "))) {
		const char *dots = strstr(v, "..");
		const char *sp = dots ? strchr(dots, ' ') : NULL;
		if (!dots || z->index_oids || (sp && !parse_mode(sp + 1, &z->index_mode)))
			return false;
		size_t nl = sp ? (size_t)(sp - v) : strlen(v);
		z->index_oids = xasprintf("%.*s %.*s", (int)(dots - v), v, (int)(nl - (size_t)(dots + 2 - v)),
		                          dots + 2);
		return true;
	}
	if (skip_prefix(l, "--- ")) {
		z->st = S_PLUS;
		return end_header(z);
	}
	if (strcmp(l, "GIT binary patch") == 0) {
		f->binary = f->content = true;
		z->st = S_BIN_HEAD;
		z->bin_hunks = 0;
		return end_header(z) && z->index_oids;
	}
	return false;
}

/* "@@ -A[,B] +C[,D] @@...": the lines the hunk holds on each side. */
static bool hunk_head(struct scan *z, const char *l)
{
	unsigned long long start, o = 1, nw = 1;
	const char *p = l + 4;
	if (!parse_num(&p, &start) || (*p == ',' && (p++, !parse_num(&p, &o))))
		return false;
	if (strncmp(p, " +", 2) != 0)
		return false;
	p += 2;
	if (!parse_num(&p, &start) || (*p == ',' && (p++, !parse_num(&p, &nw))))
		return false;
	if (strncmp(p, " @@", 3) != 0 || o + nw == 0)
		return false;
	z->old_left = o, z->new_left = nw;
	z->st = S_HUNK;
	cur(z)->content = true;
	return true;
}

static bool hunk_line(struct scan *z, char c)
{
	struct ds_file *f = cur(z);
	if (c == '\\')
		return true;  /* "\ No newline at end of file" */
	bool old = c == ' ' || c == '-', nw = c == ' ' || c == '+';
	if ((!old && !nw) || (old && !z->old_left) || (nw && !z->new_left))
		return false;
	z->old_left -= old, z->new_left -= nw;
	f->deleted += c == '-', f->added += c == '+';
	if (!z->old_left && !z->new_left)
		z->st = S_HUNKS;
	return true;
}

static bool bin_line(struct scan *z, const char *l)
{
	struct ds_file *f = cur(z);
	if (z->st == S_BIN_DATA) {
		if (*l)
			return true;
		z->st = ++z->bin_hunks == 2 ? S_DONE_FILE : S_BIN_HEAD;
		return true;
	}
	const char *v;
	unsigned long long n;
	bool lit = (v = skip_prefix(l, "literal ")) != NULL;
	if (!lit && !(v = skip_prefix(l, "delta ")))
		return false;
	if (!parse_num(&v, &n) || *v)
		return false;
	/* the first is the new side's, the second the old side's */
	if (lit && z->bin_hunks == 0)
		f->added = n;
	else if (lit)
		f->deleted = n;
	else
		f->size_unknown = true;
	if (f->size_unknown && !f->oids)
		f->oids = xstrdup(z->index_oids);
	z->st = S_BIN_DATA;
	return true;
}

static bool take_line(struct scan *z, const char *l, size_t len, bool cut)
{
	const char *rest;
	switch (z->st) {
	case S_HUNK:
		return hunk_line(z, l[0]);
	case S_BIN_DATA:
		return bin_line(z, l);
	default:
		break;
	}
	if (cut || strlen(l) != len)  /* a header line is whole, without NUL */
		return z->st == S_MESSAGE;
	if ((rest = skip_prefix(l, "diff --git "))) {
		if (z->st != S_MESSAGE && z->st != S_HEADER && z->st != S_HUNKS &&
		    z->st != S_DONE_FILE)
			return false;
		return end_file(z) && begin_file(z, rest);
	}
	switch (z->st) {
	case S_MESSAGE:
		return true;
	case S_HEADER:
		return header_line(z, l);
	case S_PLUS:
		z->st = S_HUNKS;
		return skip_prefix(l, "+++ ") != NULL;
	case S_HUNKS:
		return l[0] == '\\' || (skip_prefix(l, "@@ -") && hunk_head(z, l));
	case S_BIN_HEAD:
		return bin_line(z, l);
	default:
		return false;
	}
}

int diffstat_scan(int fd, struct diffstat *d, struct jail_err *e)
{
	struct lines r = {.fd = fd, .buf = xmalloc(LINE_MAX_KEPT * 2 + 1)};
	struct scan z = {.d = d, .st = S_MESSAGE};
	int sure = 1, got;
	char *line = NULL;
	size_t len = 0;
	bool cut, open;
	while (sure && (got = next_line(&r, &line, &len, &cut, &open, e)) > 0)
		sure = !open && take_line(&z, line, len, cut);
	if (sure && got == 0)
		sure = end_file(&z);
	free(r.buf);
	free(z.diff_line);
	free(z.rename_from);
	free(z.rename_to);
	free(z.index_oids);
	if (sure && got < 0)
		return -1;
	return sure ? 0 : 1;
}

bool diffstat_git_widths(const char *version)
{
	unsigned major = 0, minor = 0;
	if (sscanf(version, "git version %u.%u", &major, &minor) != 2)
		return false;
	return major == 2 && minor >= 39 && minor <= 53;
}
