/* series.c — see series.h.  Every git run here is batched over all commits:
 * the cost grows with the commits and what they change, not with the project. */
#include "series.h"

#include "agentgit.h"
#include "applied.h"
#include "git.h"
#include "hostgit.h"
#include "pathspec.h"
#include "repodir.h"
#include "seriesmsg.h"
#include "submodule.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>

#define SERIES_MAX 1000     /* more commits than this: one patch */
/* More file content than this in the agent's commits: one patch.  The single
 * patch carries at most as much (export.c EXPORT_MAX_TOTAL).  Without it the
 * series grew without bound from a small .git, in memory (every blob is read
 * at once) and on disk: ten commits of five 4 MB text files, 800 KB of
 * objects, took 400 MB of memory and made 372 MB of patches. */
#define SERIES_MAX_BYTES (256ULL << 20)
/* More changed paths than this in the commits: one patch.  fast-import sets
 * each path with a scan of its directory, so a commit of 300,000 index entries
 * in one directory (git update-index, no files needed) kept the end-of-run
 * export busy for over ten minutes; 20,000 take about a second. */
#define SERIES_MAX_CHANGES 20000
#define PATHSPEC_MAX 2000   /* more paths: ask git for everything */

/* One path the series touches: its base version and where F stands now. */
struct entry {
	char *path;
	unsigned base_mode, mode;    /* 0: absent */
	char base_oid[65], oid[65];
	bool tracked, ignored;
	char *refused;               /* why host git will not look at it (hostgit.h) */
	bool moved;                  /* some patch changes it */
};

/* One change of one commit (first parent -> commit). */
struct cchange {
	size_t commit;
	char *path;
	unsigned mode;               /* 0: deleted */
	char oid[65];
};

struct blobinfo {
	char oid[65];
	long long size;
	bool binary, has_cr;
	char *target;                /* a symlink's target */
};

struct series_ctx {
	struct series *sr;
	struct export_ctx *x;
	const struct changeset *cs;
	const struct series_opts *o;
	char head[65];
	const char *base;            /* the commit the session started from */
	const char *start;           /* the base, or the commit a jail apply landed last */
	struct strv chain;           /* the agent's commits, oldest first */
	struct strbuf commits;       /* cat-file output of the chain */
	struct strv authors;         /* "NAME <EMAIL> TIME TZ" per commit */
	struct strv messages;        /* sanitized, per commit */
	struct cchange *ch;
	size_t nch;
	struct entry *u;
	size_t nu;
	struct blobinfo *b;
	size_t nb;
	struct strv subs;            /* the host's submodules */
	struct strv cr_paths;        /* paths with a '\r' side: binary patches */
	struct strv present;         /* sorted: every path a commit adds (repodir.h) */
	struct strv repo_cache;      /* repodir_above()'s */
	bool started;                /* the first series commit was written */
};

static int sgit(const struct scratch *s, const char *const *args, const char *in, size_t n,
                struct strbuf *out, struct jail_err *e)
{
	struct git g = {.cwd = s->dir, .git_dir = s->dir};
	return git_run(&g, args, in, n, out, NULL, e);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->path, ((const struct entry *)b)->path);
}

static struct entry *entry_find(const struct series_ctx *z, const char *path)
{
	_cleanup_free_ char *copy = xstrdup(path);
	struct entry key = {.path = copy};
	return z->nu ? bsearch(&key, z->u, z->nu, sizeof(*z->u), cmp_entry) : NULL;
}

static int cmp_blob(const void *a, const void *b)
{
	return strcmp(((const struct blobinfo *)a)->oid, ((const struct blobinfo *)b)->oid);
}

static struct blobinfo *blob_find(const struct series_ctx *z, const char *oid)
{
	struct blobinfo key;
	snprintf(key.oid, sizeof(key.oid), "%s", oid);
	return z->nb ? bsearch(&key, z->b, z->nb, sizeof(*z->b), cmp_blob) : NULL;
}

/* Not a series (this time): the single patch, and why in the summary. */
static int fall_back(struct series_ctx *z, const char *why)
{
	if (why)
		strv_push_take(&z->sr->notes, xasprintf("%s: exported as one patch", why));
	z->sr->active = false;
	return 0;
}

/* ---- the chain of commits ---- */

/* The first-parent chain from HEAD down to the base; 1 when it does not reach
 * the base (or is too long). */
static int read_chain(struct series_ctx *z, struct jail_err *e)
{
	struct strbuf out = {0};
	_cleanup_free_ char *neg = xasprintf("^%s", z->start);
	char max[32];
	snprintf(max, sizeof(max), "--max-count=%d", SERIES_MAX + 1);
	const char *args[] = {"rev-list", "--first-parent", "--parents", max, z->head, neg, NULL};
	if (sgit(&z->sr->sc, args, NULL, 0, &out, e) < 0)
		return -1;
	struct strv lines = {0};
	for (char *l = out.s, *nl; l && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		strv_push(&lines, l);
	}
	sb_free(&out);
	size_t hl = strlen(z->head);
	const char *want = z->head;
	int r = lines.n == 0 || lines.n > SERIES_MAX ? 1 : 0;
	for (size_t i = 0; r == 0 && i < lines.n; i++) {
		const char *l = lines.v[i];
		if (strncmp(l, want, hl) != 0 || l[hl] != ' ' || strlen(l) < 2 * hl + 1) {
			r = 1;  /* a root commit, or not the chain we follow */
			break;
		}
		want = l + hl + 1;
	}
	if (r == 0 && strncmp(want, z->start, hl) != 0)
		r = 1;
	for (size_t i = lines.n; r == 0 && i-- > 0;) {
		lines.v[i][hl] = '\0';
		strv_push(&z->chain, lines.v[i]);
	}
	strv_free(&lines);
	return r;
}

/* How many commits of the chain the host's own repository holds: the host's
 * commits (its branch moved while the agent worked, and the agent's git saw
 * the new ref through the overlay) are not the agent's to export. */
static int host_commits(struct series_ctx *z, size_t *n, struct jail_err *e)
{
	struct strbuf in = {0}, out = {0};
	for (size_t i = 0; i < z->chain.n; i++)
		sb_printf(&in, "%s\n", z->chain.v[i]);
	struct git g = {.cwd = z->x->project};
	const char *args[] = {"cat-file", "--batch-check=%(objecttype)", NULL};
	int r = git_run(&g, args, in.s, in.len, &out, NULL, e);
	*n = 0;
	for (const char *l = out.s; r == 0 && l && (l = strstr(l, "commit\n")); l += 7)
		(*n)++;
	sb_free(&in);
	sb_free(&out);
	return r;
}

/* "author NAME <EMAIL> TIME TZ" of a raw commit, made safe; NULL if malformed. */
static char *parse_author(const char *line, size_t n)
{
	const char *lt = memchr(line, '<', n), *gt = lt ? memchr(lt, '>', n - (size_t)(lt - line)) : NULL;
	if (!lt || !gt || lt == line)
		return NULL;
	long long when;
	char tz[8];
	int used = 0;
	_cleanup_free_ char *rest = xasprintf("%.*s", (int)(n - (size_t)(gt + 1 - line)), gt + 1);
	if (sscanf(rest, " %lld %7s%n", &when, tz, &used) != 2 || rest[used] || when < 0 ||
	    when > (1LL << 34) ||
	    strlen(tz) != 5 || (tz[0] != '+' && tz[0] != '-') || strspn(tz + 1, "0123456789") != 4)
		return NULL;
	_cleanup_free_ char *name = seriesmsg_ident_part(line, (size_t)(lt - line), false);
	_cleanup_free_ char *email = seriesmsg_ident_part(lt + 1, (size_t)(gt - lt - 1), true);
	if (!name || !email)
		return NULL;
	return xasprintf("%s <%s> %lld %s", name, email, when, tz);
}

/* A commit message is text a person reads: past MESSAGE_MAX it is cut (a
 * note says so).  The commits are read whole, and each message was held
 * twice more (sanitised, then fast-import's input): the agent's commits may
 * hold 1 GiB, and 8 of 60 MB made jail status peak at 1.5 GB.  Commits of
 * more than COMMITS_MAX together go out as the single patch. */
#define MESSAGE_MAX (64u << 10)
#define COMMITS_MAX (64ull << 20)

/* One raw commit: its author, parents and message. */
static void parse_commit(struct series_ctx *z, size_t i, const char *data, size_t len)
{
	struct series_commit *c = &z->sr->v[i];
	const char *body = memmem(data, len, "\n\n", 2);
	size_t hlen = body ? (size_t)(body - data) : len;
	char *author = NULL;
	int parents = 0;
	for (size_t k = 0; k < hlen;) {
		const char *l = data + k, *nl = memchr(l, '\n', hlen - k);
		size_t n = nl ? (size_t)(nl - l) : hlen - k;
		k += n + 1;
		if (n > 7 && strncmp(l, "parent ", 7) == 0)
			parents++;
		else if (n > 7 && strncmp(l, "author ", 7) == 0 && !author)
			author = parse_author(l + 7, n - 7);
	}
	c->merge = parents > 1;
	if (!author)
		author = xasprintf("%s %lld +0000", z->o->author, (long long)time(NULL));
	/* the agent chose it: the summary says whose name a patch lands under
	 * when it is not yours (a colleague's name forged on the agent's work) */
	const char *gt = strrchr(author, '>');
	size_t ident = gt ? (size_t)(gt + 1 - author) : strlen(author);
	const char *mine[] = {z->o->author, z->o->repo_author};
	bool yours = false;
	for (size_t k = 0; k < ARRAY_SIZE(mine); k++)
		yours |= mine[k] && strlen(mine[k]) == ident && strncmp(author, mine[k], ident) == 0;
	if (!yours)
		c->author = strndup(author, ident);
	strv_push_take(&z->authors, author);
	size_t mlen = body ? len - hlen - 2 : 0;
	char *msg = body ? seriesmsg_sanitize(body + 2, mlen < MESSAGE_MAX ? mlen : MESSAGE_MAX)
	                 : xstrdup("(no message)");
	if (mlen > MESSAGE_MAX) {
		char *cut = xasprintf("%s\n\n(jail cut this message here: %zu bytes more are in the "
		                      "agent's commit)", msg, mlen - MESSAGE_MAX);
		free(msg);
		msg = cut;
	}
	c->subject = xasprintf("%.*s", (int)strcspn(msg, "\n"), msg);
	strv_push_take(&z->messages, msg);
}

/* The chain's commit objects together, before they are read whole: 1 when
 * they hold more than COMMITS_MAX (their messages: what git's objects limit
 * lets through is 1 GiB, held while parsed). */
static int commits_too_large(struct series_ctx *z, struct jail_err *e)
{
	struct strbuf in = {0}, out = {0};
	for (size_t i = 0; i < z->chain.n; i++)
		sb_printf(&in, "%s\n", z->chain.v[i]);
	const char *args[] = {"cat-file", "--batch-check=%(objectsize)", NULL};
	int r = sgit(&z->sr->sc, args, in.s, in.len, &out, e);
	unsigned long long all = 0;
	for (const char *l = out.s; r == 0 && l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "")
		all += strtoull(l, NULL, 10);
	sb_free(&in);
	sb_free(&out);
	return r < 0 ? -1 : all > COMMITS_MAX;
}

static int parse_commits(struct series_ctx *z, struct jail_err *e)
{
	struct strbuf in = {0};
	for (size_t i = 0; i < z->chain.n; i++)
		sb_printf(&in, "%s\n", z->chain.v[i]);
	const char *args[] = {"cat-file", "--batch", NULL};
	int r = sgit(&z->sr->sc, args, in.s, in.len, &z->commits, e);
	sb_free(&in);
	if (r < 0)
		return -1;
	z->sr->n = z->chain.n;
	z->sr->v = xcalloc(z->chain.n, sizeof(*z->sr->v));
	size_t off = 0;
	for (size_t i = 0; i < z->chain.n; i++) {
		const char *h = z->commits.s + off, *nl = memchr(h, '\n', z->commits.len - off);
		unsigned long long size;
		char type[16];
		if (!nl || sscanf(h, "%*s %15s %llu", type, &size) != 2 || strcmp(type, "commit") ||
		    (size_t)(nl + 1 - z->commits.s) + size > z->commits.len)
			return jail_err_set(e, 0, "git cat-file: unexpected output reading a commit");
		snprintf(z->sr->v[i].oid, sizeof(z->sr->v[i].oid), "%s", z->chain.v[i]);
		parse_commit(z, i, nl + 1, (size_t)size);
		off = (size_t)(nl + 1 - z->commits.s) + size + 1;
	}
	sb_free(&z->commits);  /* all that is needed of them is parsed */
	return 0;
}

/* ---- what each commit changes ---- */

static void add_change(struct series_ctx *z, size_t commit, const char *rec, const char *path)
{
	/* ":OLDMODE NEWMODE OLDOID NEWOID STATUS" */
	unsigned om, nm;
	char oo[65], no[65];
	if (sscanf(rec, ":%o %o %64s %64s", &om, &nm, oo, no) != 4)
		return;
	if (!(z->nch % 64))
		z->ch = xrealloc(z->ch, (z->nch + 64) * sizeof(*z->ch));
	struct cchange *c = &z->ch[z->nch++];
	c->commit = commit;
	c->path = xstrdup(path);
	c->mode = nm;
	snprintf(c->oid, sizeof(c->oid), "%s", no);
}

/* Is path (in this repository) under the paths asked for?  A submodule's
 * paths are matched as the superproject names them. */
static bool asked_for(const struct series_ctx *z, const char *path)
{
	const struct strv *specs = z->o->pathspec;
	if (!specs || !specs->n)
		return true;
	if (!z->o->sub)
		return pathspec_match(specs, path);
	_cleanup_free_ char *full = xasprintf("%s/%s", z->o->sub, path);
	return pathspec_match(specs, full);
}

static int read_changes(struct series_ctx *z, struct jail_err *e)
{
	struct strbuf in = {0}, out = {0};
	for (size_t i = 0; i < z->chain.n; i++)
		sb_printf(&in, "%s %s\n", z->chain.v[i], i ? z->chain.v[i - 1] : z->start);
	const char *args[] = {"diff-tree", "-r", "-z", "--no-renames", "--stdin", NULL};
	int r = sgit(&z->sr->sc, args, in.s, in.len, &out, e);
	size_t commit = 0;
	/* "COMMIT\0" before each commit's records ":... STATUS\0PATH\0" */
	for (size_t i = 0; r == 0 && out.s && i < out.len;) {
		const char *rec = out.s + i;
		i += strlen(rec) + 1;
		if (rec[0] != ':') {
			for (commit = 0; commit < z->chain.n && strcmp(z->chain.v[commit], rec); commit++)
				;
			continue;
		}
		const char *path = i < out.len ? out.s + i : "";
		i += strlen(path) + 1;
		if (commit < z->chain.n && !asked_for(z, path))
			z->sr->v[commit].outside++;
		else if (commit < z->chain.n)
			add_change(z, commit, rec, path);
	}
	sb_free(&in);
	sb_free(&out);
	return r;
}

/* ---- the host's view of those paths (one git run each) ---- */

static void universe(struct series_ctx *z)
{
	struct strv all = {0};
	for (size_t i = 0; i < z->nch; i++)
		strv_push(&all, z->ch[i].path);
	for (size_t i = 0; i < z->cs->n; i++)
		strv_push(&all, z->cs->v[i].path);
	if (all.n)
		qsort(all.v, all.n, sizeof(char *), cmp_str);
	z->u = xcalloc(all.n ? all.n : 1, sizeof(*z->u));
	for (size_t i = 0; i < all.n; i++)
		if (!z->nu || strcmp(z->u[z->nu - 1].path, all.v[i]) != 0)
			z->u[z->nu++].path = xstrdup(all.v[i]);
	strv_free(&all);
}

/* args + every path (or none: then git lists everything) */
static int host_paths_run(struct series_ctx *z, const char *const *head, size_t nh,
                          struct strbuf *out, int *status, struct jail_err *e)
{
	struct strv args = {0};
	for (size_t i = 0; i < nh; i++)
		strv_push(&args, head[i]);
	for (size_t i = 0; z->nu <= PATHSPEC_MAX && i < z->nu; i++)
		strv_push(&args, z->u[i].path);
	struct git g = {.cwd = z->x->project, .literal_pathspecs = true};
	int r = git_run(&g, (const char *const *)args.v, NULL, 0, out, status, e);
	strv_free(&args);
	return r;
}

static int host_base(struct series_ctx *z, struct jail_err *e)
{
	struct strbuf out = {0};
	const char *head[] = {"ls-tree", "-r", "-z", z->base, "--"};
	int r = host_paths_run(z, head, ARRAY_SIZE(head), &out, NULL, e);
	for (size_t i = 0; r == 0 && out.s && i < out.len;) {
		char *rec = out.s + i, *tab = strchr(rec, '\t');
		i += strlen(rec) + 1;
		unsigned mode;
		char type[16], oid[65];
		struct entry *en = tab ? entry_find(z, tab + 1) : NULL;
		if (en && sscanf(rec, "%o %15s %64s", &mode, type, oid) == 3) {
			en->base_mode = en->mode = mode;
			snprintf(en->base_oid, sizeof(en->base_oid), "%s", oid);
			snprintf(en->oid, sizeof(en->oid), "%s", oid);
		}
	}
	sb_free(&out);
	return r;
}

/* After a jail apply, what landed is the old side: the applied versions. */
static void applied_entries(struct series_ctx *z)
{
	const struct applied *a = z->x->applied;
	for (size_t i = 0; a && i < a->n; i++) {
		struct entry *en = entry_find(z, a->v[i].path);
		if (!en)
			continue;
		en->base_mode = en->mode = a->v[i].mode;
		snprintf(en->base_oid, sizeof(en->base_oid), "%s", a->v[i].mode ? a->v[i].oid : "");
		snprintf(en->oid, sizeof(en->oid), "%s", en->base_oid);
	}
}

static int host_tracked_ignored(struct series_ctx *z, struct jail_err *e)
{
	struct strbuf out = {0};
	const char *head[] = {"ls-files", "-z", "--"};
	int r = host_paths_run(z, head, ARRAY_SIZE(head), &out, NULL, e);
	for (size_t i = 0; r == 0 && out.s && i < out.len;) {
		struct entry *en = entry_find(z, out.s + i);
		i += strlen(out.s + i) + 1;
		if (en)
			en->tracked = true;
	}
	sb_free(&out);
	/* a path below a symlink of the host's tree (the agent's commit made a
	 * directory of it) makes check-ignore die on the whole batch: such a path
	 * is left out with the reason, as in the working tree's export */
	struct strbuf memo = {0};
	struct strv ignored = {0}, refused = {0};
	char **cand = NULL;
	size_t ncand = 0;
	for (size_t i = 0; i < z->nu; i++) {
		struct entry *en = &z->u[i];
		if (en->tracked || en->base_mode)
			continue;
		if ((en->refused = host_path_refused(z->x->project_fd, en->path, &memo)))
			continue;
		cand = xrealloc(cand, ++ncand * sizeof(*cand));
		cand[ncand - 1] = en->path;
	}
	if (r == 0)
		r = host_check_ignore(z->x, cand, ncand, &ignored, &refused, e);
	for (size_t i = 0; r == 0 && i < ignored.n; i++) {
		struct entry *en = entry_find(z, ignored.v[i]);
		if (en)
			en->ignored = true;
	}
	for (size_t i = 0; r == 0 && i < refused.n; i++) {
		struct entry *en = entry_find(z, refused.v[i]);
		if (en && !en->refused)
			en->refused = xstrdup("host git refuses the path (git check-ignore exits 128 on it)");
	}
	sb_free(&memo);
	strv_free(&ignored);
	strv_free(&refused);
	free(cand);
	return r == 0 ? submodule_list(z->x, &z->subs, e) : -1;
}

/* ---- the new blobs: sizes, binary, '\r', symlink targets ---- */

static void blob_parse(struct series_ctx *z, const struct strbuf *out)
{
	for (size_t off = 0; out->s && off < out->len;) {
		const char *h = out->s + off, *nl = memchr(h, '\n', out->len - off);
		char oid[65], type[16];
		unsigned long long size;
		if (!nl || sscanf(h, "%64s %15s %llu", oid, type, &size) != 3 ||
		    (size_t)(nl + 1 - out->s) + size > out->len)
			break;
		const char *data = nl + 1;
		off = (size_t)(data - out->s) + size + 1;
		struct blobinfo *bi = blob_find(z, oid);
		if (!bi)
			continue;
		bi->size = (long long)size;
		bi->binary = memchr(data, '\0', size) != NULL;  /* anywhere: as export.c */
		bi->has_cr = memchr(data, '\r', size) != NULL;
		if (!memchr(data, '\0', size))
			bi->target = xasprintf("%.*s", (int)size, data);
	}
}

/* The sizes, binary-ness and link targets of the blobs the commits name; 1
 * (nothing read) when they hold more than SERIES_MAX_BYTES. */
static int read_blobs(struct series_ctx *z, struct jail_err *e)
{
	struct strv oids = {0};
	for (size_t i = 0; i < z->nch; i++)
		if (z->ch[i].mode && z->ch[i].mode != 0160000)
			strv_push(&oids, z->ch[i].oid);
	if (oids.n)
		qsort(oids.v, oids.n, sizeof(char *), cmp_str);
	z->b = xcalloc(oids.n ? oids.n : 1, sizeof(*z->b));
	struct strbuf in = {0}, sizes = {0}, out = {0};
	for (size_t i = 0; i < oids.n; i++)
		if (!z->nb || strcmp(z->b[z->nb - 1].oid, oids.v[i]) != 0) {
			snprintf(z->b[z->nb].oid, sizeof(z->b->oid), "%s", oids.v[i]);
			z->b[z->nb++].size = -1;
			sb_printf(&in, "%s\n", oids.v[i]);
		}
	strv_free(&oids);
	/* sizes first: a blob over the limit is never read */
	const char *check[] = {"cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)",
	                       NULL};
	int r = in.len ? sgit(&z->sr->sc, check, in.s, in.len, &sizes, e) : 0;
	sb_free(&in);
	unsigned long long total = 0;
	for (size_t i = 0; r == 0 && sizes.s && i < sizes.len;) {
		char *l = sizes.s + i, *nl = strchr(l, '\n');
		i += nl ? (size_t)(nl - l) + 1 : strlen(l);
		char oid[65], type[16];
		long long size;
		bool blob = sscanf(l, "%64s %15s %lld", oid, type, &size) == 3 && !strcmp(type, "blob");
		struct blobinfo *bi = blob ? blob_find(z, oid) : NULL;
		if (bi)
			bi->size = size;
		if (bi && size <= z->x->rules.max_size) {
			sb_printf(&in, "%s\n", oid);
			total += size > 0 ? (unsigned long long)size : 0;
		}
	}
	if (r == 0 && total > SERIES_MAX_BYTES) {  /* read nothing */
		sb_free(&in);
		sb_free(&sizes);
		return 1;
	}
	const char *batch[] = {"cat-file", "--batch", NULL};
	if (r == 0 && in.len)
		r = sgit(&z->sr->sc, batch, in.s, in.len, &out, e);
	if (r == 0)
		blob_parse(z, &out);
	sb_free(&in);
	sb_free(&sizes);
	sb_free(&out);
	return r;
}

/* ---- the filter, per change: the working-tree export's rules ---- */

/* A commit's symlink goes out only as the final export carries it (same path,
 * same target).  Where a link leads depends on the whole tree (linkcheck.h), and
 * only the final export judges it with that tree in view; a link that lives only
 * in the history, or there with another target, could lead out in the tree of a
 * patch in between, so it stays behind and the path keeps its base version. */
static char *link_verdict(const struct series_ctx *z, const char *path, const char *target)
{
	if (symlink_leaves_tree(path, target))
		return xstrdup("symlink pointing outside the project");
	const struct change *fin = NULL;
	for (size_t i = 0; i < z->cs->n && !fin; i++)
		if (strcmp(z->cs->v[i].path, path) == 0)
			fin = &z->cs->v[i];
	if (!fin || fin->reason || fin->new_type != FT_SYMLINK)
		return xstrdup("symlink the final export does not carry (see its reason there)");
	struct strbuf now = {0};
	struct jail_err e;
	bool same = read_entry(z->x->upper_fd, path, FT_SYMLINK, 4096, &now, &e) == 0 &&
	            strcmp(now.s, target) == 0;
	sb_free(&now);
	return same ? NULL : xstrdup("symlink with another target than the final export's");
}

static char *verdict(struct series_ctx *z, const struct cchange *c, const struct entry *en)
{
	const struct pathrules *rules = &z->x->rules;
	const char *p = path_name_problem(c->path);
	if (!p)
		p = path_git_refuses(c->path, c->mode == 0120000);
	if (p)
		return xstrdup(p);
	/* as in the working tree's export: a diff of it carries the host's content */
	if (export_path_hidden_now(z->x, c->path, en->base_mode != 0 || en->tracked))
		return xstrdup("hidden in the jail");
	const char *sub = submodule_of(&z->subs, c->path);
	if (c->mode == 0160000 || (sub && strcmp(sub, c->path) != 0))
		return xstrdup("a submodule's content: export it from the submodule");
	char *why = c->mode == 0120000 ? pathrules_denied_link(rules, c->path)
	                               : pathrules_denied(rules, c->path, false);
	if (why || !c->mode)
		return why;
	/* a deletion makes no repository: only what a commit adds is asked */
	_cleanup_free_ char *repo = repodir_above(z->x->upper_fd, z->x->project_fd, c->path,
	                                          &z->present, &z->repo_cache);
	if (repo) {
		_cleanup_free_ char *esc = escape_name(repo);
		return xasprintf("below '%s', " REPODIR_REASON, esc);
	}
	if (en->refused)
		return xstrdup(en->refused);
	if (!en->tracked && !en->base_mode && en->ignored)
		return xstrdup("ignored by git on the host");
	const struct blobinfo *bi = blob_find(z, c->oid);
	if (c->mode == 0120000) {
		if (!bi || !bi->target || path_name_problem(bi->target))
			return xstrdup("symlink target with control characters or invalid UTF-8");
		return link_verdict(z, c->path, bi->target);
	}
	if (c->mode != 0100644 && c->mode != 0100755)
		return xasprintf("mode %o: only files and symlinks are exported", c->mode);
	if (!bi || bi->size < 0)
		return xstrdup("not a blob");
	if (bi->size > rules->max_size)
		return xasprintf("larger than the size limit (%lld bytes > %lld; raise it with "
		                 "--max-size)", bi->size, rules->max_size);
	if (bi->binary && !rules->binary_ok)
		return xstrdup("binary content (export it with --allow-binary)");
	return NULL;
}

/* fast-import takes a C-quoted path: only '"' and '\' need escaping here. */
static void fi_path(struct strbuf *b, const char *path)
{
	sb_puts(b, "\"");
	for (const char *c = path; *c; c++) {
		if (*c == '"' || *c == '\\')
			sb_puts(b, "\\");
		sb_append(b, c, 1);
	}
	sb_puts(b, "\"");
}

/* Move F's entry to (mode, oid); one fast-import command if it changes. */
static bool move_to(struct strbuf *ops, struct entry *en, unsigned mode, const char *oid)
{
	if (en->mode == mode && (!mode || strcmp(en->oid, oid) == 0))
		return false;
	if (mode) {
		sb_printf(ops, "M %06o %s ", mode, oid);
	} else {
		sb_puts(ops, "D ");
	}
	fi_path(ops, en->path);
	sb_puts(ops, "\n");
	en->moved = true;
	en->mode = mode;
	snprintf(en->oid, sizeof(en->oid), "%s", mode ? oid : "");
	return true;
}

static void fi_commit(struct strbuf *b, const char *author, const char *msg)
{
	sb_printf(b, "commit refs/heads/series\nauthor %s\ncommitter %s\ndata %zu\n%s\n", author,
	          author, strlen(msg) + 1, msg);
}

/* Deletions before additions: a file may become a directory of its name. */
static void ops_sorted(struct strbuf *b, const struct strbuf *ops)
{
	for (int pass = 0; pass < 2; pass++)
		for (const char *l = ops->s, *nl; l && *l; l = nl + 1) {
			nl = strchr(l, '\n');
			if ((l[0] == 'D') == (pass == 0))
				sb_append(b, l, (size_t)(nl - l) + 1);
		}
}

static void series_commits(struct series_ctx *z, struct strbuf *fi)
{
	size_t k = 0;
	for (size_t i = 0; i < z->chain.n; i++) {
		struct series_commit *sc = &z->sr->v[i];
		struct strbuf ops = {0};
		for (; k < z->nch && z->ch[k].commit == i; k++) {
			struct cchange *c = &z->ch[k];
			struct entry *en = entry_find(z, c->path);
			char *why = verdict(z, c, en);
			if (why) {
				_cleanup_free_ char *esc = escape_name(c->path);
				strv_push_take(&sc->left_out, xasprintf("%s: %s", esc, why));
				free(why);
			}
			bool moved = why ? move_to(&ops, en, en->base_mode, en->base_oid)
			                 : move_to(&ops, en, c->mode, c->oid);
			sc->changes += moved;
			const struct blobinfo *bi = moved && !why && c->mode ? blob_find(z, c->oid) : NULL;
			if (bi && bi->has_cr && !strv_contains(&z->cr_paths, c->path))
				strv_push(&z->cr_paths, c->path);
		}
		if (!sc->changes) {
			sb_free(&ops);
			continue;
		}
		_cleanup_free_ char *msg = seriesmsg_finish(z->messages.v[i], &sc->left_out, z->o->trailer);
		fi_commit(fi, z->authors.v[i], msg);
		if (!z->started)
			sb_puts(fi, "from refs/heads/s0\n");
		z->started = true;
		ops_sorted(fi, &ops);
		sb_free(&ops);
		z->sr->active = true;
	}
}

/* ---- the uncommitted rest: F(last) -> the single patch's tree ---- */

static int cmp_change(const void *a, const void *b)
{
	return strcmp((const char *)a, ((const struct change *)b)->path);
}

/* The post tree's entry of path: "MODE blob OID" into mode and oid. */
static bool post_entry(const struct strbuf *tree, const char *path, unsigned *mode, char oid[65])
{
	for (size_t i = 0; tree->s && i < tree->len;) {
		const char *rec = tree->s + i, *tab = strchr(rec, '\t');
		i += strlen(rec) + 1;
		char type[16];
		if (tab && strcmp(tab + 1, path) == 0 && sscanf(rec, "%o %15s %64s", mode, type, oid) == 3)
			return true;
	}
	return false;
}

/* move_to(), noting the move in *moved (for the default subject). */
static bool rest_move(struct strbuf *ops, struct entry *en, unsigned mode, const char *oid,
                      struct changeset *moved)
{
	unsigned was = en->mode;
	if (!move_to(ops, en, mode, oid))
		return false;
	if (moved->n == moved->cap) {
		moved->cap = moved->cap ? moved->cap * 2 : 16;
		moved->v = xrealloc(moved->v, moved->cap * sizeof(*moved->v));
	}
	struct change *c = &moved->v[moved->n++];
	memset(c, 0, sizeof(*c));
	c->path = xstrdup(en->path);
	c->new_type = mode ? FT_FILE : FT_NONE;
	c->pre = was ? PRE_BASE : PRE_NONE;
	return true;
}

static int remainder_ops(struct series_ctx *z, struct strbuf *ops, struct changeset *moved,
                         struct jail_err *e)
{
	struct strbuf tree = {0};
	const struct changeset *cs = z->cs;
	if (changeset_included(cs) && (!z->o->post || patch_post_tree(z->o->post, &tree, e) < 0)) {
		sb_free(&tree);
		return z->o->post ? -1 : jail_err_set(e, 0, "the uncommitted changes were not built");
	}
	for (size_t i = 0; i < cs->n; i++) {
		const struct change *c = &cs->v[i];
		struct entry *en = entry_find(z, c->path);
		unsigned mode = 0;
		char oid[65] = "";
		if (c->reason)
			rest_move(ops, en, en->base_mode, en->base_oid, moved);
		else if (c->new_type == FT_NONE)
			rest_move(ops, en, 0, "", moved);
		else if (post_entry(&tree, c->path, &mode, oid) && rest_move(ops, en, mode, oid, moved) &&
		         c->has_cr)
			strv_push(&z->cr_paths, c->path);
	}
	/* a path the commits changed that the work tree holds as on the host */
	for (size_t i = 0; i < z->nu; i++)
		if (!cs->n || !bsearch(z->u[i].path, cs->v, cs->n, sizeof(*cs->v), cmp_change))
			rest_move(ops, &z->u[i], z->u[i].base_mode, z->u[i].base_oid, moved);
	sb_free(&tree);
	return 0;
}

static int cmp_moved(const void *a, const void *b)
{
	return strcmp(((const struct change *)a)->path, ((const struct change *)b)->path);
}

static int rest_commit(struct series_ctx *z, struct strbuf *fi, struct jail_err *e)
{
	struct strbuf ops = {0};
	struct changeset moved = {0};
	if (remainder_ops(z, &ops, &moved, e) < 0) {
		sb_free(&ops);
		changeset_free(&moved);
		return -1;
	}
	if (moved.n)
		qsort(moved.v, moved.n, sizeof(*moved.v), cmp_moved);
	if (ops.len) {
		_cleanup_free_ char *subject = z->o->subject ? xstrdup(z->o->subject)
		                                             : seriesmsg_default_subject(&moved, z->o->session);
		_cleanup_free_ char *raw = patch_message(z->cs, subject);
		_cleanup_free_ char *clean = seriesmsg_sanitize(raw, strlen(raw));
		_cleanup_free_ char *msg = seriesmsg_finish(clean, NULL, z->o->trailer);
		_cleanup_free_ char *author = xasprintf("%s %lld +0000", z->o->author, (long long)time(NULL));
		fi_commit(fi, author, msg);
		if (!z->started)
			sb_puts(fi, "from refs/heads/s0\n");
		ops_sorted(fi, &ops);
		z->sr->remainder = true;
	}
	changeset_free(&moved);
	sb_free(&ops);
	return 0;
}

/* ---- building and writing ---- */

static void fi_base(struct series_ctx *z, struct strbuf *fi)
{
	sb_puts(fi, "feature done\ncommit refs/heads/s0\ncommitter jail <jail@localhost> 0 +0000\n"
	            "data 5\nbase\n");
	for (size_t i = 0; i < z->nu; i++)
		if (z->u[i].base_mode) {
			sb_printf(fi, "M %06o %s ", z->u[i].base_mode, z->u[i].base_oid);
			fi_path(fi, z->u[i].path);
			sb_puts(fi, "\n");
		}
}

static int format_patches(struct series_ctx *z, struct jail_err *e)
{
	struct scratch *sc = &z->sr->sc;
	struct strbuf attrs = {0}, out = {0};
	for (size_t i = 0; i < z->cr_paths.n; i++) {
		patch_attr_pattern(&attrs, "", z->cr_paths.v[i]);
		sb_puts(&attrs, " -diff\n");
	}
	_cleanup_free_ char *info = xasprintf("%s/info", sc->dir);
	_cleanup_free_ char *apath = xasprintf("%s/info/attributes", sc->dir);
	_cleanup_free_ char *dir = xasprintf("%s/out", sc->dir);
	bool attrs_written = attrs.len > 0;
	int r = attrs_written && (mkdir_p(info, 0700, e) < 0 ||
	                          write_file_at(AT_FDCWD, apath, attrs.s, attrs.len, 0600, e) < 0)
	                ? -1 : 0;
	sb_free(&attrs);
	const char *args[] = {"format-patch", "-o", dir, "--full-index", "--binary", "-M",
	                      "--no-signature", "--no-color", "--subject-prefix=PATCH",
	                      "refs/heads/s0..refs/heads/series", NULL};
	if (r == 0)
		r = sgit(sc, args, NULL, 0, &out, e);
	/* the attributes are the mbox's alone: series_diff() shows those files
	 * as the text they are */
	if (r == 0 && attrs_written && unlink(apath) < 0)
		r = jail_err_sys(e, "remove '%s'", apath);
	for (char *l = out.s, *nl; r == 0 && l && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		strv_push(&z->sr->files, l);
	}
	sb_free(&out);
	return r;
}

static int write_sc_alternates(struct series_ctx *z, const char *host_objects, struct jail_err *e)
{
	_cleanup_free_ char *path = xasprintf("%s/objects/info/alternates", z->sr->sc.dir);
	_cleanup_free_ char *text = z->o->post && z->o->post->dir
	                                    ? xasprintf("%s\n%s/objects\n", host_objects, z->o->post->dir)
	                                    : xasprintf("%s\n", host_objects);
	return write_file_at(AT_FDCWD, path, text, strlen(text), 0600, e);
}

/* The agent's HEAD, when it names commits beyond the base; 1 when not. */
static int find_head(struct series_ctx *z, struct agentgit *g, struct jail_err *e)
{
	int r = z->o->super ? agentgit_open_sub(g, z->o->super, z->o->sub, z->o->session_dir, e)
	                    : agentgit_open(g, z->x->project, z->o->session_dir, e);
	if (r == 0)
		r = agentgit_head(g, strlen(z->base), z->head, &z->sr->what, e);
	if (r < 0) {
		_cleanup_free_ char *why = xasprintf("the agent's repository was refused (%s)", e->msg);
		fall_back(z, why);
		return 1;
	}
	if (r > 0 || strcmp(z->head, z->base) == 0 ||
	    (z->o->series_head && strcmp(z->head, z->o->series_head) == 0))
		return 1;
	/* after a jail apply: the commits since the last one it landed, on top of
	 * what landed (applied.h); a single patch did not land commits */
	const struct applied *a = z->x->applied;
	z->start = z->o->series_head ? z->o->series_head : z->base;
	if (a && a->n && !z->o->series_head) {
		fall_back(z, "the agent committed after a jail apply of one patch");
		return 1;
	}
	return 0;
}

/* A control file that a commit changes and a later one puts back is not in
 * the end result (cs), but git am lands it in the history, where a checkout,
 * bisect or rebase brings it back: it is flagged as the end result's are. */
static void history_flags(struct series_ctx *z)
{
	for (size_t i = 0; i < z->sr->touched.n; i++) {
		const char *path = z->sr->touched.v[i], *why = path_flag_reason(path, false);
		bool in_result = false;
		for (size_t k = 0; why && !in_result && k < z->cs->n; k++)
			in_result = !z->cs->v[k].reason && (z->cs->v[k].flags & CF_REVIEW) &&
			            strcmp(z->cs->v[k].path, path) == 0;
		if (why && !in_result)
			strv_push_take(&z->sr->flagged, xasprintf("%s: %s", path, why));
	}
}

/* A path the series leaves out as hidden (verdict): a hidden file the
 * host holds, so its old content never reaches a patch. */
static bool path_left_out_hidden(const void *ctx, const char *path)
{
	return export_path_hidden_now(ctx, path, true);
}

static int build(struct series_ctx *z, struct agentgit *g, struct jail_err *e)
{
	const struct series_opts *o = z->o;
	if (scratch_create_another(&z->sr->raw, o->scratch_dir, e) < 0 ||
	    scratch_create_another(&z->sr->sc, o->scratch_dir, e) < 0 ||
	    write_sc_alternates(z, g->host_objects, e) < 0)
		return -1;
	/* from the base: index-pack --strict wants every parent, also of commits
	 * landed before (the host holds its own copies of those, not these) */
	const struct withheld_ids w = {.ids = &z->x->withheld, .hidden = path_left_out_hidden,
	                               .ctx = z->x};
	if (agentgit_import(g, z->sr->raw.dir, z->sr->sc.dir, z->head, z->base, &w, e) < 0)
		return fall_back(z, e->msg);
	int r = read_chain(z, e);
	if (r != 0)
		return r < 0 ? -1 : fall_back(z, "the agent's history does not stand on the session's "
		                                 "base or on the commits jail apply landed (a reset, "
		                                 "rebase or amend below it)");
	size_t on_host = 0;
	if (host_commits(z, &on_host, e) < 0)
		return -1;
	if (on_host == z->chain.n)
		return 0;  /* the agent made none of them */
	if (on_host)
		return fall_back(z, "the agent's commits stand on commits made on the host during the "
		                    "session");
	if ((r = commits_too_large(z, e)) != 0)
		return r < 0 ? -1 : fall_back(z, "the agent's commit objects hold more than 64 MiB "
		                                 "(their messages)");
	if (parse_commits(z, e) < 0 || read_changes(z, e) < 0)
		return -1;
	if (z->nch > SERIES_MAX_CHANGES)
		return fall_back(z, "the agent's commits change more than 20,000 paths");
	universe(z);
	if (host_base(z, e) < 0 || host_tracked_ignored(z, e) < 0 || (r = read_blobs(z, e)) < 0)
		return -1;
	if (r == 1)
		return fall_back(z, "the agent's commits hold more than 256 MiB of files (what one "
		                    "patch carries)");
	applied_entries(z);
	for (size_t i = 0; i < z->nch; i++)
		if (z->ch[i].mode)  /* folded: names as other file systems read them */
			strv_push_take(&z->present, path_fold(z->ch[i].path));
	if (z->present.n)
		qsort(z->present.v, z->present.n, sizeof(char *), cmp_str);
	struct strbuf fi = {0};
	fi_base(z, &fi);
	series_commits(z, &fi);
	r = rest_commit(z, &fi, e);
	sb_puts(&fi, "done\n");
	const char *args[] = {"fast-import", "--quiet", "--done", NULL};
	z->sr->active = z->started || z->sr->remainder;
	if (r == 0 && z->sr->active)
		r = sgit(&z->sr->sc, args, fi.s, fi.len, NULL, e);
	sb_free(&fi);
	if (r == 0 && z->sr->active)
		r = format_patches(z, e);
	for (size_t i = 0; r == 0 && z->sr->active && i < z->nu; i++)
		if (z->u[i].moved)
			strv_push(&z->sr->touched, z->u[i].path);
	if (r == 0)
		history_flags(z);
	snprintf(z->sr->head, sizeof(z->sr->head), "%s", z->head);
	for (size_t i = 0; r == 0 && i < z->sr->n; i++)
		if (z->sr->v[i].merge)
			strv_push_take(&z->sr->notes, xasprintf("merge '%s': linearized by first parent (the "
			                                        "merged branch's changes are in its patch)",
			                                        z->sr->v[i].subject));
	return r;
}

static void ctx_free(struct series_ctx *z)
{
	strv_free(&z->chain);
	sb_free(&z->commits);
	strv_free(&z->authors);
	strv_free(&z->messages);
	for (size_t i = 0; i < z->nch; i++)
		free(z->ch[i].path);
	free(z->ch);
	for (size_t i = 0; i < z->nu; i++) {
		free(z->u[i].path);
		free(z->u[i].refused);
	}
	free(z->u);
	for (size_t i = 0; i < z->nb; i++)
		free(z->b[i].target);
	free(z->b);
	strv_free(&z->subs);
	strv_free(&z->cr_paths);
	strv_free(&z->present);
	strv_free(&z->repo_cache);
}

int series_build(struct series *sr, struct export_ctx *x, const struct changeset *cs,
                 const struct series_opts *o, struct jail_err *e)
{
	memset(sr, 0, sizeof(*sr));
	const char *base = o->base ? o->base : x->base;
	if (!x->is_repo || (x->prefix && x->prefix[0]) || !base)
		return 0;
	struct series_ctx z = {.sr = sr, .x = x, .cs = cs, .o = o, .base = base};
	struct agentgit g;
	int r = find_head(&z, &g, e);
	if (r == 0)
		r = build(&z, &g, e);
	else
		r = 0;
	agentgit_close(&g);
	ctx_free(&z);
	scratch_destroy(&sr->raw);
	return r < 0 ? jail_err_wrap(e, "the agent's commits") : 0;
}

int series_write(const struct series *sr, int dfd, const char *dir, struct strv *paths,
                 struct jail_err *e)
{
	for (size_t i = 0; i < sr->files.n; i++) {
		const char *name = strrchr(sr->files.v[i], '/');
		name = name ? name + 1 : sr->files.v[i];
		_cleanup_free_ char *data = NULL;
		size_t len = 0;
		if (read_file_at(AT_FDCWD, sr->files.v[i], 1ULL << 32, &data, &len, e) < 0 ||
		    replace_file_at(dfd, name, data, len, 0644, e) < 0)
			return -1;
		strv_push_take(paths, xasprintf("%s/%s", dir, name));
	}
	return 0;
}

int series_diff(const struct series *sr, const char *prefix, struct strbuf *out,
                struct jail_err *e)
{
	_cleanup_free_ char *src = xasprintf("--src-prefix=a/%s", prefix ? prefix : "");
	_cleanup_free_ char *dst = xasprintf("--dst-prefix=b/%s", prefix ? prefix : "");
	/* each patch as git am lands it: its author, date and message, its diff */
	const char *args[] = {"log", "-p", "-r", "-M", "--reverse", "--no-color", "--date=rfc",
	                      "--format=medium",
	                      src, dst, "refs/heads/s0..refs/heads/series", NULL};
	return sgit(&sr->sc, args, NULL, 0, out, e);
}

size_t series_flags_render(const struct series *sr, const char *indent, struct strbuf *out)
{
	for (size_t i = 0; i < sr->flagged.n; i++) {
		_cleanup_free_ char *esc = escape_name(sr->flagged.v[i]);
		sb_printf(out, "%s%s (in the agent's commits, not in the end result)\n", indent, esc);
	}
	return sr->flagged.n;
}

void series_summary(const struct series *sr, struct strbuf *out)
{
	if (sr->active) {
		size_t kept = 0;
		for (size_t i = 0; i < sr->n; i++)
			kept += sr->v[i].changes > 0;
		sb_printf(out, "series: %zu patch%s from the agent's %zu commit%s on %s%s\n",
		          sr->files.n, sr->files.n == 1 ? "" : "es", sr->n, sr->n == 1 ? "" : "s",
		          sr->what ? sr->what : "HEAD",
		          sr->remainder ? ", then its uncommitted changes" : "");
		size_t f = 0;
		for (size_t i = 0; i < sr->n; i++) {
			const struct series_commit *c = &sr->v[i];
			_cleanup_free_ char *subj = escape_name(c->subject);
			if (!c->changes && !c->left_out.n && c->outside) {
				sb_printf(out, "  dropped: %.12s %s (it changes none of the paths asked "
				               "for)\n", c->oid, subj);
			} else if (!c->changes) {
				sb_printf(out, "  dropped: %.12s %s (every change was left out)\n", c->oid, subj);
			} else {
				const char *name = f < sr->files.n ? strrchr(sr->files.v[f], '/') : NULL;
				f++;
				_cleanup_free_ char *who = c->author ? escape_name(c->author) : NULL;
				sb_printf(out, "  %s: %s%s%s%s\n", name ? name + 1 : "?", subj,
				          who ? " (author: " : "", who ? who : "", who ? ")" : "");
			}
			for (size_t k = 0; k < c->left_out.n; k++)
				sb_printf(out, "    left out %s\n", c->left_out.v[k]);
			if (c->changes && c->outside)
				sb_printf(out, "    not in it: %zu change%s outside the paths asked for\n",
				          c->outside, c->outside == 1 ? "" : "s");
		}
		if (sr->remainder && f < sr->files.n)
			sb_printf(out, "  %s: uncommitted changes\n", strrchr(sr->files.v[f], '/') + 1);
		(void)kept;
		if (sr->flagged.n)
			sb_puts(out, "series: flagged for review:\n");
		(void)series_flags_render(sr, "  ", out);
	}
	for (size_t i = 0; i < sr->notes.n; i++) {
		_cleanup_free_ char *esc = escape_name(sr->notes.v[i]);
		sb_printf(out, "series: %s\n", esc);
	}
}

void series_free(struct series *sr)
{
	for (size_t i = 0; i < sr->n; i++) {
		free(sr->v[i].subject);
		free(sr->v[i].author);
		strv_free(&sr->v[i].left_out);
	}
	free(sr->v);
	free(sr->what);
	strv_free(&sr->notes);
	strv_free(&sr->files);
	strv_free(&sr->touched);
	strv_free(&sr->flagged);
	scratch_destroy(&sr->raw);
	scratch_destroy(&sr->sc);
	memset(sr, 0, sizeof(*sr));
}
