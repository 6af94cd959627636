/* hideobj.c — the loose git objects that hold a hidden file's content
 * (hideobj.h). */
#include "hideobj.h"

#include "git.h"
#include "hide.h"
#include "log.h"
#include "sha1.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

struct hash_run {
	int project_fd;
	const struct jail_config *cfg;
	size_t total;       /* bytes read so far */
	size_t looked;      /* names below hidden directories looked at */
	struct strv *out;
	struct strv known;  /* the last start's files, sorted: "rel\0stamp\0id\0id" */
	struct strv seen;   /* this start's, the same way */
	bool missed;        /* a file was read: the list is written again */
};

/* The ids cache's first line: a cache of another layout is read as none. */
#define IDS_CACHE_HEAD "withheld-ids 3\n"
/* A record's strings: path, stamp, SHA-1 id, SHA-256 id, LFS object, and
 * the two ids of the content with CRLF line ends made LF ("": none). */
#define RECORD_FIELDS 7

/* One file's record: its path first, so strcmp orders and finds by path. */
static char *record(const char *const f[RECORD_FIELDS], size_t *len)
{
	size_t n = 0;
	for (int i = 0; i < RECORD_FIELDS; i++)
		n += strlen(f[i]) + 1;
	char *rec = xmalloc(n), *at = rec;
	for (int i = 0; i < RECORD_FIELDS; i++)
		at = stpcpy(at, f[i]) + 1;
	*len = n;
	return rec;
}

/* A record's bytes: its strings with their NULs. */
static size_t record_len(const char *rec)
{
	size_t n = 0;
	for (int i = 0; i < RECORD_FIELDS; i++)
		n += strlen(rec + n) + 1;
	return n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void hex(const unsigned char *d, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[2 * n] = '\0';
}

/* "ab/cdef…" from a hex id */
static void push_object(struct strv *out, const char *id)
{
	strv_push_take(out, xasprintf("%.2s/%s", id, id + 2));
}

/* "ab/cd/abcdef…" (below lfs/objects) from the SHA-256 of the content */
static void push_lfs(struct strv *out, const char *oid)
{
	strv_push_take(out, xasprintf("%.2s/%.2s/%s", oid, oid + 2, oid));
}

/* A line of the caches: "ab/cdef…" (a git id of either length) or
 * "ab/cd/abcd…" (an LFS object). */
static bool stored_id(const char *line, size_t len)
{
	return ((len == 41 || len == 65) && line[2] == '/') ||
	       (len == 70 && line[2] == '/' && line[5] == '/');
}

/* The ids the last start hashed for rel, when the file's stamp is the same
 * (ctime cannot be set back: a rewrite changes it). */
static const char *known_ids(const struct hash_run *r, const char *rel, const char *stamp)
{
	char **hit = r->known.n ? bsearch(&rel, r->known.v, r->known.n, sizeof(char *), cmp_str)
	                        : NULL;
	if (!hit)
		return NULL;
	const char *st = *hit + strlen(*hit) + 1;
	if (strcmp(st, stamp) != 0)
		return NULL;
	const char *sha1 = st + strlen(st) + 1, *sha256 = sha1 + strlen(sha1) + 1;
	const char *lfs = sha256 + strlen(sha256) + 1, *lf1 = lfs + strlen(lfs) + 1;
	const char *lf256 = lf1 + strlen(lf1) + 1;
	push_object(r->out, sha1);
	push_object(r->out, sha256);
	push_lfs(r->out, lfs);
	if (*lf1) {
		push_object(r->out, lf1);
		push_object(r->out, lf256);
	}
	return *hit;
}

/* git's ids (SHA-1 and SHA-256, hex) of the blob of `data` as git stores a
 * text file: each CRLF line end made LF, as core.autocrlf or a text or eol
 * attribute (a `* text=auto` .gitattributes) makes `git add` and `git stash`
 * store it.  The ids stay "" when it has no CRLF (the blob is the file's). */
static void lf_blob_ids(const char *data, size_t n, char id1[41], char id256[65])
{
	size_t crs = 0;
	for (size_t i = 0; i + 1 < n; i++)
		crs += data[i] == '\r' && data[i + 1] == '\n';
	if (!crs)
		return;
	char head[40];
	int hl = snprintf(head, sizeof(head), "blob %zu", n - crs) + 1;
	size_t len = (size_t)hl + n - crs;
	_cleanup_free_ char *buf = malloc(len);
	if (!buf)
		return;
	memcpy(buf, head, (size_t)hl);
	char *o = buf + hl;
	for (size_t i = 0; i < n; i++)
		if (!(data[i] == '\r' && i + 1 < n && data[i + 1] == '\n'))
			*o++ = data[i];
	unsigned char d1[20];
	struct sha1 c;
	sha1_init(&c);
	sha1_update(&c, buf, len);
	sha1_final(&c, d1);
	hex(d1, sizeof(d1), id1);
	sha256_hex(buf, len, id256);
	explicit_bzero(buf, len);
}

/* The blob ids of one file's content, when it is a regular file small
 * enough; opened below the project, through no link. */
static void hash_file(struct hash_run *r, const char *rel)
{
	struct open_how how = {
		.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
		           RESOLVE_NO_XDEV,
	};
	/* O_PATH first: a fifo or device the host put there is never opened */
	struct open_how path_how = how;
	path_how.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC;
	_cleanup_close_ int pfd = (int)syscall(SYS_openat2, r->project_fd, rel, &path_how,
	                                       sizeof(path_how));
	struct stat st;
	/* (an empty file holds nothing: git's empty blob stays) */
	if (pfd < 0 || fstat(pfd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0 ||
	    (size_t)st.st_size > HIDEOBJ_FILE_MAX || r->total + (size_t)st.st_size > HIDEOBJ_TOTAL_MAX)
		return;
	char stamp[FILE_STAMP_MAX];
	stat_stamp(&st, stamp);
	const char *rec = known_ids(r, rel, stamp);
	if (rec) {
		r->total += (size_t)st.st_size;  /* the same budget as a read */
		size_t n = record_len(rec);
		char *copy = xmalloc(n);
		memcpy(copy, rec, n);
		strv_push_take(&r->seen, copy);
		return;
	}
	_cleanup_close_ int fd = (int)syscall(SYS_openat2, r->project_fd, rel, &how, sizeof(how));
	if (fd < 0)
		return;
	char head[40];
	int hl = snprintf(head, sizeof(head), "blob %lld", (long long)st.st_size) + 1;
	size_t cap = (size_t)hl + (size_t)st.st_size;
	_cleanup_free_ char *buf = malloc(cap);
	if (!buf)
		return;
	memcpy(buf, head, (size_t)hl);
	size_t len = (size_t)hl;
	while (len < cap) {
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (len != cap)
		return; /* it changed while read: what it held is not known */
	r->total += (size_t)st.st_size;
	/* the size in the header is the size read */
	unsigned char d1[20];
	char id[65];
	struct sha1 c;
	sha1_init(&c);
	sha1_update(&c, buf, len);
	sha1_final(&c, d1);
	char id1[41];
	hex(d1, sizeof(d1), id1);
	push_object(r->out, id1);
	sha256_hex(buf, len, id);
	push_object(r->out, id);
	/* git-lfs keeps a file it cleaned (staged once, stashed) whole, named
	 * by the SHA-256 of the content alone */
	char lfs[65];
	sha256_hex(buf + hl, (size_t)st.st_size, lfs);
	push_lfs(r->out, lfs);
	char lf1[41] = "", lf256[65] = "";
	lf_blob_ids(buf + hl, (size_t)st.st_size, lf1, lf256);
	if (*lf1) {
		push_object(r->out, lf1);
		push_object(r->out, lf256);
	}
	explicit_bzero(buf, len);
	size_t n;
	const char *f[RECORD_FIELDS] = {rel, stamp, id1, id, lfs, lf1, lf256};
	strv_push_take(&r->seen, record(f, &n));
	r->missed = true;
}

/* The files at and below node n (path rel) that are secrets: a
 * secret-shaped name or one in a directory of such a name (secrets/prod.json),
 * or one fs.hide names.  (Not every ignored file: build output would cost
 * every start a read of it.) */
static void hash_below(struct hash_run *r, const struct hide_node *n, const char *rel,
                       bool secret, size_t from, int depth)
{
	/* (the directories in rel's first `from` bytes were judged on the way) */
	secret = secret || hide_secret_name_after(r->cfg, rel, from) ||
	         hide_by_rule(r->cfg, false, rel);
	if (!n->dir) {
		if (secret)
			hash_file(r, rel);
		return;
	}
	if (n->live || depth >= HIDETREE_DEPTH)
		return;
	for (size_t i = 0; i < n->n_kids && r->looked < HIDEOBJ_NAMES_MAX; i++, r->looked++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", rel, n->kids[i]->name);
		hash_below(r, n->kids[i], p, secret, strlen(rel) + 1, depth + 1);
	}
}

/* The last start's records (its file, jail's own: a record cut short ends
 * the list), sorted by path. */
static void load_known(const char *cache, struct strv *known)
{
	_cleanup_free_ char *data = NULL;
	size_t len = 0;
	struct jail_err ignored;
	size_t hl = strlen(IDS_CACHE_HEAD);
	if (!cache || read_file_at(AT_FDCWD, cache, 8u << 20, &data, &len, &ignored) < 0 ||
	    len < hl || memcmp(data, IDS_CACHE_HEAD, hl) != 0)
		return;
	for (size_t at = hl; at < len;) {
		size_t n = 0;
		int fields = 0;
		while (fields < RECORD_FIELDS && at + n < len) {
			const char *nul = memchr(data + at + n, '\0', len - at - n);
			if (!nul)
				break;
			n = (size_t)(nul - (data + at)) + 1;
			fields++;
		}
		if (fields < RECORD_FIELDS)
			break;
		char *rec = xmalloc(n);
		memcpy(rec, data + at, n);
		strv_push_take(known, rec);
		at += n;
	}
	if (known->n)
		qsort(known->v, known->n, sizeof(char *), cmp_str);
}

static void save_seen(const char *cache, const struct hash_run *r)
{
	if (!cache || (!r->missed && r->seen.n == r->known.n))
		return;
	struct strbuf b = {0};
	sb_puts(&b, IDS_CACHE_HEAD);
	for (size_t i = 0; i < r->seen.n; i++)
		sb_append(&b, r->seen.v[i], record_len(r->seen.v[i]));
	struct jail_err e = {0};
	if (replace_file(cache, b.s ? b.s : "", b.len, 0600, &e) < 0)
		log_debug("keep the hidden files' ids: %s", e.msg);
	sb_free(&b);
}

/* For each of `paths`, whether it is a secret's own (a secret-shaped name
 * or below a directory of one, or one fs.hide names).  git lists the paths
 * of a directory together (30,000 *.o of a build in place): the directories
 * above a path found not to be one are not judged again for the next. */
static bool *secrets_own(const struct jail_config *cfg, const struct strv *paths)
{
	bool *own = xcalloc(paths->n + 1, sizeof(*own));
	_cleanup_free_ char *judged = NULL;
	size_t judged_len = 0;
	for (size_t i = 0; i < paths->n; i++) {
		const char *p = paths->v[i];
		bool same = judged && !strncmp(p, judged, judged_len) && p[judged_len] == '/';
		own[i] = hide_secret_name_after(cfg, p, same ? judged_len + 1 : 0) ||
		         hide_by_rule(cfg, false, p);
		if (own[i])
			continue;
		const char *last = strrchr(p, '/');
		free(judged);
		judged = last ? strndup(p, (size_t)(last - p)) : NULL;
		judged_len = last ? (size_t)(last - p) : 0;
	}
	return own;
}

void hideobj_collect(int project_fd, const struct jail_config *cfg, struct hide_node *tree,
                     const struct strv *paths, const char *cache, struct strv *out)
{
	struct hash_run r = {.project_fd = project_fd, .cfg = cfg, .out = out};
	load_known(cache, &r.known);
	/* the secrets' own paths first (secrets/, .env), then the other hidden
	 * directories, looked through for secret-shaped names: each pass with
	 * a budget of names of its own (a large node_modules/ before secrets/
	 * in the list took it all, and secrets/prod.json was not read) */
	_cleanup_free_ bool *own = secrets_own(cfg, paths);
	for (int pass = 0; pass < 2; pass++) {
		r.looked = 0;
		for (size_t i = 0; tree && i < paths->n; i++) {
			const char *p = paths->v[i], *slash = strrchr(p, '/');
			const struct hide_node *n = own[i] == (pass == 0) ? hidetree_lookup(tree, p) : NULL;
			/* (secrets_own judged the directories above p) */
			size_t from = slash ? (size_t)(slash - p) + 1 : 0;
			if (n)
				hash_below(&r, n, p, own[i], from, 0);
		}
	}
	save_seen(cache, &r);
	if (out->n)
		qsort(out->v, out->n, sizeof(char *), cmp_str);
	log_debug("view: %zu object ids of hidden content (%zu bytes of it, %s)", out->n, r.total,
	          r.missed ? "some hashed" : "as the last start found");
	strv_free(&r.known);
	strv_free(&r.seen);
}

/* A path whose content the view withholds as a secret's: a secret-shaped
 * name (or one below such a directory) while ignored files are hidden,
 * or one fs.hide names. */
static bool secret_path(const struct jail_config *cfg, const char *path)
{
	return (cfg->hide_ignored != HIDE_NONE && hide_secret_name(cfg, path)) ||
	       hide_by_rule(cfg, false, path);
}

/* FNV-1a over the rules that say which paths are a secret's: the ids kept
 * for other rules (a --hide added since) are not these. */
static uint64_t rules_hash(const struct jail_config *cfg)
{
	const struct strv *lists[] = {&cfg->secret_names, &cfg->hide, &cfg->show_ignored};
	uint64_t h = 1469598103934665603ull ^ (uint64_t)cfg->hide_ignored;
	for (size_t i = 0; i < ARRAY_SIZE(lists); i++)
		for (size_t j = 0; j <= lists[i]->n; j++) {
			const char *v = j < lists[i]->n ? lists[i]->v[j] : "";
			for (size_t k = 0, n = strlen(v); k <= n; k++) /* (its NUL: a separator) */
				h = (h ^ (unsigned char)v[k]) * 1099511628211ull;
		}
	return h;
}

/* What the stash's ids depend on: its ref and reflog (and the packed refs,
 * where `git pack-refs` may put it), by their stamps, and the rules, as one
 * line. */
static char *stash_key(int gfd, const struct jail_config *cfg)
{
	static const char *const files[] = {"logs/refs/stash", "refs/stash", "packed-refs",
	                                    "reftable/tables.list"};
	struct strbuf b = {0};
	/* 2: the entries' own trees and indexes are read too */
	sb_printf(&b, "stash-key 2 %016llx", (unsigned long long)rules_hash(cfg));
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char stamp[FILE_STAMP_MAX];
		file_stamp(gfd, files[i], stamp);
		sb_printf(&b, " %s", stamp);
	}
	sb_puts(&b, "\n");
	return sb_steal(&b);
}

/* The ids below "key\n" in a cache file of ours, into *out (empty), each
 * checked as an id: the file is jail's own, but a damaged one must not
 * withhold a path.  False, *out empty, when it holds another key. */
static bool cached_ids(const char *cache, const char *key, struct strv *out)
{
	_cleanup_free_ char *data = NULL;
	struct jail_err ignored;
	size_t kl = strlen(key);
	if (read_file_at(AT_FDCWD, cache, 4u << 20, &data, NULL, &ignored) < 0 ||
	    strncmp(data, key, kl) != 0)
		return false;
	for (char *line = data + kl, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl || !stored_id(line, (size_t)(nl - line))) {
			strv_free(out);
			return false;
		}
		*nl = '\0';
		strv_push(out, line);
	}
	return true;
}

/* The objects a stash entry's own tree and its index (the entry and its
 * second parent) hold at secret paths where they differ from a parent: an
 * .env force-added, then kept by a plain `git stash` (no -u), is there and
 * not in the untracked tree.  One `git log --raw` of all of them (-m: a
 * diff against each parent; -t: the trees of secret directories too), NUL
 * separated: ":mode mode old new status", then the path. */
static void stash_changed(struct git *g, const struct jail_config *cfg, const struct strv *commits,
                          struct strv *ids)
{
	struct strv args = {0};
	const char *head[] = {"log", "--no-walk=unsorted", "-m", "-t", "--raw", "--no-abbrev",
	                      "--no-renames", "-z", "--format="};
	for (size_t i = 0; i < ARRAY_SIZE(head); i++)
		strv_push(&args, head[i]);
	for (size_t i = 0; i < commits->n; i++)
		strv_push(&args, commits->v[i]);
	strv_push(&args, "--");
	struct strbuf b = {0};
	int status = 0;
	struct jail_err e;
	if (git_run(g, (const char *const *)args.v, NULL, 0, &b, &status, &e) == 0 &&
	    status == 0 && b.s) {
		for (size_t at = 0; at < b.len;) {
			char *meta = b.s + at + strspn(b.s + at, "\n");
			at += strlen(b.s + at) + 1;
			if (*meta != ':' || at >= b.len)
				continue;
			const char *path = b.s + at;
			at += strlen(path) + 1;
			/* ":100644 100644 OLD NEW M": the fourth field, the new id */
			char *id = meta;
			for (int k = 0; k < 3 && id; k++)
				id = strchr(id, ' ') ? strchr(id, ' ') + 1 : NULL;
			char *sp = id ? strchr(id, ' ') : NULL;
			if (!sp || sp - id < 40 || strspn(id, "0") == (size_t)(sp - id) ||
			    !secret_path(cfg, path))
				continue;
			*sp = '\0';
			push_object(ids, id);
		}
	}
	sb_free(&b);
	strv_free(&args);
}

/* git's answer: every stash entry (the reflog: "ENTRY PARENT INDEX
 * UNTRACKED"); the untracked trees' objects with paths, those at secret
 * paths kept; then what the entries and their indexes changed there. */
static void stash_by_git(const char *project, const struct jail_config *cfg, struct strv *ids)
{
	struct git g = {.cwd = project};
	const char *log[] = {"log", "-g", "--format=%H %P", "refs/stash", "--", NULL};
	struct strbuf b = {0};
	int status = 0;
	struct jail_err e;
	if (git_run(&g, log, NULL, 0, &b, &status, &e) < 0 || status != 0 || !b.s) {
		sb_free(&b);
		return; /* no stash */
	}
	struct strv args = {0}, changed = {0};
	const char *head[] = {"rev-list", "--objects", "--no-walk"};
	for (size_t i = 0; i < 3; i++)
		strv_push(&args, head[i]);
	for (char *at = b.s, *line; (line = line_next(&at));) {
		char *f[4] = {line, NULL, NULL, NULL};
		for (int k = 1; k < 4 && f[k - 1]; k++) {
			char *sp = strchr(f[k - 1], ' ');
			f[k] = sp ? (*sp = '\0', sp + 1) : NULL;
		}
		if (*f[0])
			strv_push(&changed, f[0]);
		if (f[2] && *f[2])
			strv_push(&changed, f[2]);
		if (f[3] && *f[3])
			strv_push(&args, f[3]);
	}
	sb_free(&b);
	if (args.n > 3) {
		strv_push(&args, "--"); /* (a strv ends in NULL: an argv) */
		if (git_run(&g, (const char *const *)args.v, NULL, 0, &b, &status, &e) == 0 &&
		    status == 0 && b.s) {
			/* "ID PATH" (a commit or the root tree: no path) */
			for (char *at = b.s, *line; (line = line_next(&at));) {
				char *sp = strchr(line, ' ');
				if (sp && sp[1] && secret_path(cfg, sp + 1) && sp - line >= 40) {
					*sp = '\0';
					push_object(ids, line);
				}
			}
		}
		sb_free(&b);
	}
	if (changed.n)
		stash_changed(&g, cfg, &changed, ids);
	strv_free(&args);
	strv_free(&changed);
}

void hideobj_stash(const char *project, const struct jail_config *cfg, const char *cache,
                   struct strv *out)
{
	if (cfg->hide_ignored == HIDE_NONE && !cfg->hide.n)
		return; /* no path is a secret's */
	_cleanup_free_ char *gitdir = xasprintf("%s/.git", project);
	_cleanup_close_ int gfd = open(gitdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (gfd < 0)
		return; /* no repository, or a linked worktree's (its store is not the view's) */
	_cleanup_free_ char *key = stash_key(gfd, cfg);
	struct strv ids = {0};
	if (!cache || !cached_ids(cache, key, &ids)) {
		stash_by_git(project, cfg, &ids);
		struct strbuf b = {0};
		sb_puts(&b, key);
		for (size_t i = 0; i < ids.n; i++)
			sb_printf(&b, "%s\n", ids.v[i]);
		struct jail_err e = {0};
		if (cache && replace_file(cache, b.s, b.len, 0600, &e) < 0)
			log_debug("keep the stash's withheld ids: %s", e.msg);
		sb_free(&b);
	}
	log_debug("view: %zu object ids at secret paths in the stash", ids.n);
	for (size_t i = 0; i < ids.n; i++)
		if (!strv_contains(out, ids.v[i]))
			strv_push(out, ids.v[i]);
	strv_free(&ids);
	if (out->n)
		qsort(out->v, out->n, sizeof(char *), cmp_str);
}

/* Is `path` or a directory above it in `paths`? */
static bool below_any(const struct strv *paths, const char *path)
{
	for (size_t i = 0; i < paths->n; i++) {
		size_t n = strlen(paths->v[i]);
		if (!strncmp(path, paths->v[i], n) && (path[n] == '\0' || path[n] == '/'))
			return true;
	}
	return false;
}

/* What git's index says (one `git ls-files`, a few ms): the ids a shown
 * tracked file has go. */
static void drop_by_git(const char *project, const struct strv *hidden, struct strv *objs)
{
	struct git g = {.cwd = project};
	const char *args[] = {"ls-files", "-s", "-z", NULL};
	struct strbuf b = {0};
	int status = 0;
	struct jail_err e;
	if (git_run(&g, args, NULL, 0, &b, &status, &e) < 0 || status != 0) {
		sb_free(&b);
		return; /* withheld all the same: safe, if less convenient */
	}
	_cleanup_free_ bool *drop = calloc(objs->n, sizeof(bool));
	/* "MODE ID STAGE\tPATH" NUL */
	for (size_t i = 0; drop && b.s && i < b.len;) {
		char *rec = b.s + i;
		i += strlen(rec) + 1;
		char *tab = strchr(rec, '\t'), *id = strchr(rec, ' ');
		if (!tab || !id)
			continue;
		id++;
		char *end = strchr(id, ' ');
		if (!end || end - id < 3)
			continue;
		*end = '\0';
		char key[80];
		snprintf(key, sizeof(key), "%.2s/%s", id, id + 2);
		const char *k = key;
		char **hit = bsearch(&k, objs->v, objs->n, sizeof(char *), cmp_str);
		/* (the few ids first: the hidden paths may be many) */
		if (hit && !below_any(hidden, tab + 1))
			drop[hit - objs->v] = true;
	}
	sb_free(&b);
	size_t kept = 0;
	for (size_t k = 0; drop && k < objs->n; k++) {
		if (!drop[k])
			objs->v[kept++] = objs->v[k];
		else
			free(objs->v[k]);
	}
	if (drop)
		objs->n = kept; /* the order kept: still sorted */
}

/* What a drop depends on: the index's stamp (all git ls-files reads), the
 * ids looked for and the hidden paths, as one line; NULL when the git dir is
 * not the project's .git directory (a worktree's .git file): no cache. */
static char *drop_key(const char *project, const struct strv *hidden, const struct strv *objs)
{
	_cleanup_free_ char *gitdir = xasprintf("%s/.git", project);
	_cleanup_close_ int gfd = open(gitdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (gfd < 0)
		return NULL;
	char index[FILE_STAMP_MAX];
	file_stamp(gfd, "index", index);
	struct strbuf b = {0};
	sb_printf(&b, "%s", index);
	/* each string with its NUL: no two lists read the same */
	for (size_t i = 0; i < objs->n; i++)
		sb_append(&b, objs->v[i], strlen(objs->v[i]) + 1);
	sb_append(&b, "", 1);
	for (size_t i = 0; i < hidden->n; i++)
		sb_append(&b, hidden->v[i], strlen(hidden->v[i]) + 1);
	char hex[65];
	sha256_hex(b.s, b.len, hex);
	sb_free(&b);
	return xasprintf("withheld-key %s\n", hex);
}

/* The ids a drop with this key kept, from the cache, in place of *objs;
 * false when it holds another key. */
static bool drop_cached(const char *cache, const char *key, struct strv *objs)
{
	struct strv kept = {0};
	if (!cached_ids(cache, key, &kept))
		return false;
	strv_free(objs);
	*objs = kept;
	return true;
}

void hideobj_drop_shown(const char *project, const char *cache, const struct strv *hidden,
                        struct strv *objs)
{
	if (!objs->n)
		return;
	_cleanup_free_ char *key = cache ? drop_key(project, hidden, objs) : NULL;
	if (key && drop_cached(cache, key, objs)) {
		log_debug("view: object ids shown by git's index: as the last start found");
		return;
	}
	drop_by_git(project, hidden, objs);
	if (!key)
		return;
	struct strbuf b = {0};
	sb_puts(&b, key);
	for (size_t i = 0; i < objs->n; i++)
		sb_printf(&b, "%s\n", objs->v[i]);
	struct jail_err e = {0};
	if (replace_file(cache, b.s, b.len, 0600, &e) < 0)
		log_debug("keep the withheld ids: %s", e.msg);
	sb_free(&b);
}

static bool hex2(const char *s)
{
	return strlen(s) == 2 && strspn(s, "0123456789abcdef") == 2;
}

static bool named(const struct hide_node *n, const char *name)
{
	return n && !strcmp(n->name, name);
}

bool hideobj_in_store(const struct hide_node *dir)
{
	for (const struct hide_node *n = dir; n && n->live; n = n->parent)
		if (!strcmp(n->name, "objects") && !named(n->parent, "lfs")) /* (git-lfs's: below) */
			return true;
	return false;
}

/* A loose object's name below its fan-out directory: 38 or 62 hex digits. */
static bool object_name(const char *name)
{
	size_t len = strlen(name);
	return (len == 38 || len == 62) && strspn(name, "0123456789abcdef") == len;
}

static bool has_key(const struct strv *ids, const char *key)
{
	return bsearch(&key, ids->v, ids->n, sizeof(char *), cmp_str) != NULL;
}

/* git-lfs's store in a .git directory: lfs/objects/ab/cd/OID, and what it
 * writes before it names it (lfs/tmp, lfs/incomplete). */
static bool lfs_withheld(const struct strv *ids, const struct hide_node *dir, const char *name)
{
	const struct hide_node *p = dir->parent, *gp = p ? p->parent : NULL;
	if ((named(dir, "tmp") || named(dir, "incomplete")) && named(p, "lfs"))
		return true;
	if (!hex2(dir->name) || !p || !hex2(p->name) || !named(gp, "objects") ||
	    !named(gp->parent, "lfs"))
		return false;
	char key[160];
	return snprintf(key, sizeof(key), "%s/%s/%s", p->name, dir->name, name) < (int)sizeof(key) &&
	       has_key(ids, key);
}

/* `git fsck --lost-found` wrote each dangling object's content to
 * lost-found/other/ID (a commit's to lost-found/commit/ID). */
static bool lost_withheld(const struct strv *ids, const struct hide_node *dir, const char *name)
{
	if (!(named(dir, "other") || named(dir, "commit")) || !named(dir->parent, "lost-found"))
		return false;
	char key[160];
	return strlen(name) > 2 &&
	       snprintf(key, sizeof(key), "%.2s/%s", name, name + 2) < (int)sizeof(key) &&
	       has_key(ids, key);
}

/* git's files in a git directory (.git, a linked worktree's or a
 * submodule's in it) that quote staged content, not its refs' or objects'
 * names (a branch may be called so). */
static bool quotes_staged(const struct hide_node *dir, const char *name)
{
	/* git commit -v's diff; a hunk git add -p edited; git add -e's patch
	 * (removed once applied, left by an editor or git that died) */
	if (strcmp(name, "COMMIT_EDITMSG") != 0 && strcmp(name, "addp-hunk-edit.diff") != 0 &&
	    strcmp(name, "ADD_EDIT.patch") != 0)
		return false;
	for (const struct hide_node *n = dir; n && n->live; n = n->parent)
		if (named(n, "refs") || named(n, "logs") || named(n, "objects"))
			return false;
	return true;
}

bool hideobj_withheld(const struct strv *ids, const struct hide_node *dir, const char *name)
{
	if (!ids->n || !dir->parent)
		return false;
	if (lfs_withheld(ids, dir, name) || lost_withheld(ids, dir, name) ||
	    quotes_staged(dir, name))
		return true;
	if (!hex2(dir->name) || !hideobj_in_store(dir->parent))
		return false;
	/* git's temporary file of an object it is writing (tmp_obj_*): its
	 * content has no name yet to be checked by */
	if (!object_name(name))
		return true;
	char key[80];
	if (snprintf(key, sizeof(key), "%s/%s", dir->name, name) >= (int)sizeof(key))
		return false;
	const char *k = key;
	return bsearch(&k, ids->v, ids->n, sizeof(char *), cmp_str) != NULL;
}

int hideobj_save(const char *path, const struct strv *objs, struct jail_err *e)
{
	struct strbuf b = {0};
	for (size_t i = 0; i < objs->n; i++) {
		const char *o = objs->v[i];
		if (o[5] != '/') /* (not an LFS object's: the export asks git's ids) */
			sb_printf(&b, "%.2s%s\n", o, o + 3);  /* "ab/cdef" -> "abcdef" */
	}
	/* rewritten only when it changed: a start writes nothing it need not */
	_cleanup_free_ char *old = NULL;
	size_t old_len = 0;
	struct jail_err ignored;
	int r = 0;
	if (read_file_at(AT_FDCWD, path, b.len + 1, &old, &old_len, &ignored) < 0 ||
	    old_len != b.len || (b.len && memcmp(old, b.s, b.len) != 0))
		r = replace_file(path, b.s ? b.s : "", b.len, 0600, e);
	sb_free(&b);
	return r;
}

void hideobj_load(const char *path, struct strv *ids)
{
	_cleanup_free_ char *data = NULL;
	struct jail_err ignored;
	if (read_file_at(AT_FDCWD, path, 64u << 20, &data, NULL, &ignored) < 0)
		return;
	for (char *at = data, *line; (line = line_next(&at));) {
		if (*line)
			strv_push(ids, line);
	}
	if (ids->n)
		qsort(ids->v, ids->n, sizeof(char *), cmp_str);
}

bool hideobj_has(const struct strv *ids, const char *id)
{
	return ids->n && bsearch(&id, ids->v, ids->n, sizeof(char *), cmp_str) != NULL;
}
