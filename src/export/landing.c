/* landing.c — see landing.h. */
#include "landing.h"

#include "git.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define FIELDS 6
/* The host's commits after the HEAD before that are searched for a patch:
 * git am makes one per patch, the user may have added some since. */
#define LANDED_MAX_COMMITS "1000"

char *landing_head(const char *repo)
{
	struct git g = {.cwd = repo};
	struct strbuf out = {0};
	struct jail_err e;
	int status = 1;
	const char *args[] = {"rev-parse", "-q", "--verify", "HEAD", NULL};
	if (git_run(&g, args, NULL, 0, &out, &status, &e) < 0 || status != 0 || !out.s) {
		sb_free(&out);
		return NULL;
	}
	out.s[strcspn(out.s, "\n")] = '\0';
	return sb_steal(&out);
}

/* The `git patch-id --stable` of each patch in text (an mbox, or `git log
 * -p`), space-separated, appended to ids. */
static int patch_ids(const char *text, size_t len, struct strbuf *ids, struct jail_err *e)
{
	struct git g = {.cwd = "/"};
	struct strbuf out = {0};
	const char *args[] = {"patch-id", "--stable", NULL};
	int r = git_run(&g, args, text, len, &out, NULL, e);
	for (char *line = out.s, *nl; r == 0 && line && *line; line = nl + 1) {
		size_t n = strcspn(line, " \n");
		nl = strchr(line, '\n');
		sb_printf(ids, "%s%.*s", ids->len ? " " : "", (int)n, line);
		if (!nl)
			break;
	}
	sb_free(&out);
	return r;
}

int landing_add(struct landing *l, const char *repo, const struct strv *patches,
                const char *key, const char *value, bool project, struct jail_err *e)
{
	struct strbuf ids = {0};
	for (size_t i = 0; i < patches->n; i++) {
		_cleanup_free_ char *data = NULL;
		size_t len = 0;
		if (read_file_at(AT_FDCWD, patches->v[i], 1ULL << 32, &data, &len, e) < 0 ||
		    patch_ids(data, len, &ids, e) < 0) {
			sb_free(&ids);
			return jail_err_wrap(e, "read the patches jail apply lands");
		}
	}
	_cleanup_free_ char *head = landing_head(repo);
	strv_push(&l->rec, repo);
	strv_push(&l->rec, head ? head : "");
	strv_push(&l->rec, key && value ? key : "");
	strv_push(&l->rec, key && value ? value : "");
	strv_push(&l->rec, project ? "1" : "0");
	strv_push(&l->rec, ids.s ? ids.s : "");
	sb_free(&ids);
	return 0;
}

int landing_begin(const struct session *s, const struct landing *l, struct jail_err *e)
{
	struct strbuf b = {0};
	for (size_t i = 0; i < l->rec.n; i++)
		sb_append(&b, l->rec.v[i], strlen(l->rec.v[i]) + 1);  /* with its NUL */
	_cleanup_free_ char *path = xasprintf("%s/landing", s->dir);
	int r = replace_file(path, b.s ? b.s : "", b.len, 0600, e);
	sb_free(&b);
	return r < 0 ? jail_err_wrap(e, "record what jail apply lands") : 0;
}

void landing_free(struct landing *l) { strv_free(&l->rec); }

/* Is a `git am` stopped in repo (its rebase-apply directory)? */
static bool am_in_progress(const char *repo)
{
	struct git g = {.cwd = repo};
	struct strbuf out = {0};
	struct jail_err e;
	int status = 1;
	const char *args[] = {"rev-parse", "--git-path", "rebase-apply", NULL};
	bool stopped = false;
	if (git_run(&g, args, NULL, 0, &out, &status, &e) == 0 && status == 0 && out.s) {
		out.s[strcspn(out.s, "\n")] = '\0';
		_cleanup_free_ char *path = out.s[0] == '/' ? xstrdup(out.s)
		                                           : xasprintf("%s/%s", repo, out.s);
		struct stat st;
		stopped = lstat(path, &st) == 0;
	}
	sb_free(&out);
	return stopped;
}

/* The recorded intent, as fields (FIELDS a repository); false when there is
 * none, or it does not parse (then it is dropped). */
static bool landing_read(const struct session *s, struct strv *f)
{
	_cleanup_free_ char *path = xasprintf("%s/landing", s->dir), *data = NULL;
	size_t len = 0;
	struct jail_err e;
	if (read_file_at(AT_FDCWD, path, 1 << 20, &data, &len, &e) < 0)
		return false;
	for (size_t i = 0; i < len;) {
		size_t n = strnlen(data + i, len - i);
		if (i + n == len)
			break;  /* a last field without its NUL: cut short */
		strv_push(f, data + i);
		i += n + 1;
	}
	if (f->n && f->n % FIELDS == 0)
		return true;
	log_warn("dropped an unreadable record of an earlier jail apply (%s)", path);
	strv_free(f);
	return false;
}

/* What landed in the repository of record r becomes the session's. */
static int landing_keep(const struct session *s, char *const *r, const char *head,
                        struct jail_err *e)
{
	if (r[2][0] && session_meta_set(s, e, r[2], r[3], NULL) < 0)
		return -1;
	if (strcmp(r[4], "1") != 0)
		return 0;
	_cleanup_free_ char *from = xasprintf("%s/applied.landing", s->dir);
	_cleanup_free_ char *to = xasprintf("%s/applied", s->dir);
	if (rename(from, to) < 0 && errno != ENOENT)
		return jail_err_sys(e, "rename '%s'", from);
	char now[32];
	snprintf(now, sizeof(now), "%lld", (long long)time(NULL));
	return session_meta_set(s, e, "applied", head, "applied_time", now, NULL);
}

/* Does a commit of repo after the HEAD it had (pre, "" for none) carry one
 * of the patches (ids)?  An error answers no: the intent is dropped, and the
 * next export carries the change again, as it would have without it. */
static bool landed(const char *repo, const char *pre, const char *ids)
{
	_cleanup_free_ char *range = pre[0] ? xasprintf("%s..HEAD", pre) : xstrdup("HEAD");
	struct git g = {.cwd = repo};
	struct strbuf log = {0}, found = {0};
	struct jail_err e;
	/* as the patches were made: binary contents, renames */
	const char *args[] = {"log", "-p", "--binary", "-M", "--no-color", "--no-ext-diff",
	                      "--no-textconv", "--max-count=" LANDED_MAX_COMMITS, range, "--",
	                      NULL};
	bool yes = false;
	if (git_run(&g, args, NULL, 0, &log, NULL, &e) == 0 && log.s &&
	    patch_ids(log.s, log.len, &found, &e) == 0 && found.s) {
		/* a word of ids found among the words of found */
		for (const char *w = ids; *w && !yes; w += strspn(w, " ")) {
			size_t n = strcspn(w, " ");
			for (const char *f = found.s; *f && !yes; f += strspn(f, " ")) {
				size_t m = strcspn(f, " ");
				yes = m == n && strncmp(f, w, n) == 0;
				f += m;
			}
			w += n;
		}
	}
	sb_free(&log);
	sb_free(&found);
	return yes;
}

int landing_settle(const struct session *s, bool succeeded, struct jail_err *e)
{
	struct strv f = {0};
	if (!landing_read(s, &f))
		return 0;
	int r = 0;
	for (size_t i = 0; r == 0 && i < f.n; i += FIELDS)
		if (am_in_progress(f.v[i])) {
			_cleanup_free_ char *esc = escape_name(f.v[i]);
			r = jail_err_set(e, 0, "a jail apply stopped while git am ran in %s: finish it "
			                       "there (git am --continue) or undo it (git am --abort), "
			                       "then run jail again", esc);
			e->errnum = EBUSY;
		}
	for (size_t i = 0; r == 0 && i < f.n; i += FIELDS) {
		_cleanup_free_ char *head = landing_head(f.v[i]);
		if (head && strcmp(head, f.v[i + 1]) != 0 &&
		    (succeeded || landed(f.v[i], f.v[i + 1], f.v[i + 5])))
			r = landing_keep(s, f.v + i, head, e);
	}
	if (r == 0) {
		_cleanup_free_ char *applied = xasprintf("%s/applied.landing", s->dir);
		_cleanup_free_ char *path = xasprintf("%s/landing", s->dir);
		if ((unlink(applied) < 0 && errno != ENOENT) || (unlink(path) < 0 && errno != ENOENT))
			r = jail_err_sys(e, "remove the record of what jail apply landed");
	}
	strv_free(&f);
	return r;
}
