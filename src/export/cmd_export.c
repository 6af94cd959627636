/* cmd_export.c — `jail diff`, `jail status`, `jail export`, and the export that
 * runs when the command of `jail run` ended.
 *
 * Each one: resolve the session, take its lock (an export never reads an upper
 * dir that an agent is still writing), walk and filter the change (export.c),
 * build it with git in a throwaway repository (patch.c), then print or write.
 */
#include "commands.h"

#include "applied.h"
#include "landing.h"
#include "controlfiles.h"
#include "linkflags.h"
#include "hidefs.h"
#include "scratchroom.h"
#include "git.h"
#include "hints.h"
#include "homelinks.h"
#include "live.h"
#include "log.h"
#include "pager.h"
#include "patch.h"
#include "pathspec.h"
#include "policy.h"
#include "runstamp.h"
#include "secrets.h"
#include "series.h"
#include "seriesmsg.h"
#include "session.h"

#include <dirent.h>
#include <spawn.h>
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

/* Everything one export needs, released by collect_free().  A superproject's
 * collect holds one more per submodule that has changes (submodule.h). */
struct collect {
	struct export_ctx x;
	struct changeset cs;
	struct scratch sc;
	char *scratch_parent;  /* where sc lives (scratchroom.h) */
	bool scratch_own;
	int scratch_hold;      /* its flock (a live read's in TMPDIR), or -1 */
	bool built;  /* the scratch repository holds pre and post */
	bool mbox_made;  /* and the single patch (patch_mbox_start) */
	char *patch;  /* the patch written (the first of a series), or NULL */
	struct collect *subs;
	size_t n_subs;
	struct series sr;     /* the agent's commits (series.h) */
	struct strv paths;    /* every patch written, in order */
	char *author;         /* the user's "Name <email>", or NULL */
	char *trailer;        /* "project/session", or NULL */
	const char *message;  /* -m: the uncommitted changes' subject */
	const char *live_dir;        /* a live read's own scratch place (not the session dir) */
	const struct strv *pathspec; /* the paths asked for (pathspec.h); NULL: all */
	const char *sub_path;        /* a submodule's path in the superproject */
	enum { FOR_PATCH = 0, FOR_STATUS, FOR_DIFF } use;  /* what is made of it */
};

/* Keep the changes under the paths asked for (`jail diff src/`). */
static void keep_pathspec(struct collect *k)
{
	if (!k->pathspec || !k->pathspec->n)
		return;
	size_t kept = 0;
	for (size_t i = 0; i < k->cs.n; i++) {
		struct change *c = &k->cs.v[i];
		_cleanup_free_ char *full = xasprintf("%s%s%s", k->sub_path ? k->sub_path : "",
		                                      k->sub_path ? "/" : "", c->path);
		if (pathspec_match(k->pathspec, full)) {
			k->cs.v[kept++] = *c;
			continue;
		}
		free(c->path);
		free(c->reason);
	}
	k->cs.n = kept;
}

static void collect_free(struct collect *k)
{
	for (size_t i = 0; i < k->n_subs; i++)
		collect_free(&k->subs[i]);
	free(k->subs);
	k->subs = NULL;
	k->n_subs = 0;
	free(k->patch);
	k->patch = NULL;
	series_free(&k->sr);
	strv_free(&k->paths);
	free(k->author);
	free(k->trailer);
	k->author = k->trailer = NULL;
	scratch_destroy(&k->sc);
	scratch_unplace(k->scratch_parent, k->scratch_own, k->scratch_hold);
	k->scratch_parent = NULL;
	changeset_free(&k->cs);
	export_ctx_close(&k->x);
}

/* Where the export writes what it throws away (its temporary repositories,
 * the .gitignore check): the session dir, which the session's lock keeps for
 * one export at a time, or a live read's own place, since the running session
 * exports into its dir when it ends and sweeps what it finds there as stale. */
static const char *work_dir(const struct collect *k, const struct session *s)
{
	return k->live_dir ? k->live_dir : s->dir;
}

/* Scan, filter and build one repository's change (the context is open). */
static int collect_build(struct collect *k, struct session *s, bool sub, struct jail_err *e)
{
	if (export_scan(&k->x, &k->cs, e) < 0)
		return -1;
	keep_pathspec(k);
	if (k->cs.truncated)
		return 0;  /* too_many() says so; nothing is built from half a walk */
	if (export_filter(&k->x, &k->cs, e) < 0)
		return -1;
	controlfiles_review(&k->x, &k->cs, work_dir(k, s));
	linkflags_review(&k->x, &k->cs, work_dir(k, s));
	homelinks_review(&k->x, &k->cs);
	if (k->cs.n && !k->x.is_repo) {
		_cleanup_free_ char *esc = escape_name(k->x.project);
		log_warn("%s is not a git repository: exporting every regular text file", esc);
	}
	if (changeset_included(&k->cs) == 0)
		return 0;
	_cleanup_free_ char *subject = k->message ? xstrdup(k->message)
	                                          : seriesmsg_default_subject(&k->cs, s->name);
	_cleanup_free_ char *raw = patch_message(&k->cs, subject);
	_cleanup_free_ char *clean = seriesmsg_sanitize(raw, strlen(raw));
	_cleanup_free_ char *msg = seriesmsg_finish(clean, NULL, k->trailer);
	unsigned long long bytes = 0;
	for (size_t i = 0; i < k->cs.n; i++)
		bytes += !k->cs.v[i].reason && k->cs.v[i].new_size > 0 ? (unsigned long long)k->cs.v[i].new_size : 0;
	unsigned long long need = scratch_estimate(bytes, changeset_included(&k->cs));
	if (scratch_place(work_dir(k, s), k->live_dir ? s->project_root : NULL, need,
	                  &k->scratch_parent, &k->scratch_own, &k->scratch_hold, e) < 0)
		return -1;
	const char *at = k->scratch_parent;
	k->sc.author = k->author;
	k->sc.session_dir = s->dir;
	int r = sub ? scratch_create_another(&k->sc, at, e) : scratch_create(&k->sc, at, e);
	if (r == 0 && k->x.objects)
		r = scratch_borrow(&k->sc, k->x.objects, e);
	/* only a patch file needs to know which old sides hold '\r'; only the
	 * summary needs the line counts (a diff shows git's own) */
	k->sc.patch_file = k->use == FOR_PATCH;
	if (r < 0 || patch_commit(&k->sc, &k->x, &k->cs, msg, e) < 0)
		return -1;
	/* the patch file is made first and the numstat read from it, unless the
	 * agent wrote into a .git: then its commits may make a series, and the
	 * file waits until write_one() knows it is wanted */
	k->mbox_made = k->use == FOR_PATCH && k->cs.git_dirs.n == 0;
	if (k->mbox_made && patch_mbox_start(&k->sc, &k->x, &k->cs, e) < 0)
		return -1;
	r = k->use != FOR_DIFF ? patch_numstat(&k->sc, &k->x, &k->cs, e) : 0;
	if (k->mbox_made && r == 0)
		r = patch_mbox_finish(&k->sc, e);
	if (r < 0)
		return -1;
	k->built = changeset_included(&k->cs) > 0;
	return 0;
}

/* Who the patches jail writes are from, and the trailer that says where. */
static void collect_identity(struct collect *k, const struct session *s,
                             const struct jail_config *cfg, const char *message)
{
	k->author = gitidentity_author();
	k->message = message;
	const char *slash = strrchr(s->project, '/');
	_cleanup_free_ char *name = escape_name(slash && slash[1] ? slash + 1 : s->project);
	if (cfg->export_trailer)
		k->trailer = xasprintf("%s/%s", name, s->name);
}

/* The repository's own identity (its config's user.name and user.email, as
 * the agent's git reads them too), "Name <email>", or NULL. */
static char *repo_identity(const char *project)
{
	if (!git_repo_config_mentions(project, "name") || !git_repo_config_mentions(project, "email"))
		return NULL; /* no git run: its files set no identity */
	struct git g = {.cwd = project};
	const char *nargs[] = {"config", "--get", "user.name", NULL};
	const char *eargs[] = {"config", "--get", "user.email", NULL};
	struct strbuf name = {0}, email = {0};
	int sn = 1, se = 1;
	struct jail_err e;
	char *r = NULL;
	if (git_run(&g, nargs, NULL, 0, &name, &sn, &e) == 0 && sn == 0 && name.s &&
	    git_run(&g, eargs, NULL, 0, &email, &se, &e) == 0 && se == 0 && email.s) {
		name.s[strcspn(name.s, "\n")] = '\0';
		email.s[strcspn(email.s, "\n")] = '\0';
		r = xasprintf("%s <%s>", name.s, email.s);
	}
	sb_free(&name);
	sb_free(&email);
	return r;
}

/* The meta key of the agent's commit that the last jail apply landed: one for
 * the project, one per submodule (named by a hash of its path). */
static char *series_head_key(const char *sub)
{
	if (!sub)
		return xstrdup("series_head");
	char hex[65];
	sha256_hex(sub, strlen(sub), hex);
	return xasprintf("series_head_%.16s", hex);
}

/* The agent's commits as a series, when it made any (series.h); sub names a
 * submodule of super's project. */
static int collect_series(struct collect *k, struct session *s, const struct jail_config *cfg,
                          const struct collect *super, const char *sub, struct jail_err *e)
{
	if (!cfg->export_series)
		return 0;
	_cleanup_free_ char *key = series_head_key(sub);
	_cleanup_free_ char *landed = session_meta_get(s, key);
	_cleanup_free_ char *base = sub ? landing_head(k->x.project) : NULL;
	if (sub && !base)
		return 0;
	struct series_opts o = {
		.session = s->name, .session_dir = s->dir, .scratch_dir = work_dir(k, s),
		.trailer = k->trailer,
		.author = k->author ? k->author : "jail <jail@localhost>", .subject = k->message,
		.series_head = landed, .post = k->built ? &k->sc : NULL, .base = base,
		.super = super ? super->x.project : NULL, .sub = sub, .pathspec = k->pathspec,
	};
	_cleanup_free_ char *repo_author = repo_identity(k->x.project);
	o.repo_author = repo_author;
	return series_build(&k->sr, &k->x, &k->cs, &o, e);
}

static int collect(struct collect *k, struct session *s, const struct jail_config *cfg,
                   const char *message, struct jail_err *e)
{
	const char *live_dir = k->live_dir;
	const struct strv *pathspec = k->pathspec;
	int use = k->use;
	memset(k, 0, sizeof(*k));
	k->live_dir = live_dir;
	k->pathspec = pathspec;
	k->use = use;
	k->x.project_fd = k->x.upper_fd = -1;
	collect_identity(k, s, cfg, message);
	if (export_ctx_open(&k->x, s->project, s->dir, cfg, e) < 0 || collect_build(k, s, false, e) < 0 ||
	    collect_series(k, s, cfg, NULL, NULL, e) < 0)
		return -1;
	const struct strv *subs = &k->x.submodules;
	k->subs = subs->n ? xcalloc(subs->n, sizeof(*k->subs)) : NULL;
	for (size_t i = 0; i < subs->n; i++) {
		struct collect *sk = &k->subs[k->n_subs++];
		sk->x.project_fd = sk->x.upper_fd = -1;
		sk->author = k->author ? xstrdup(k->author) : NULL;
		sk->trailer = k->trailer ? xstrdup(k->trailer) : NULL;
		sk->message = message;
		sk->live_dir = k->live_dir;
		sk->pathspec = k->pathspec;
		sk->use = k->use;
		sk->sub_path = subs->v[i];
		if (export_ctx_open_sub(&sk->x, &k->x, subs->v[i], cfg, e) < 0 ||
		    collect_build(sk, s, true, e) < 0 || collect_series(sk, s, cfg, k, subs->v[i], e) < 0) {
			_cleanup_free_ char *esc = escape_name(subs->v[i]);
			return jail_err_wrap(e, "submodule '%s'", esc);
		}
	}
	return 0;
}

/* A session whose walk stopped at its bound (export.c): status says so, the
 * rest refuse with this line. */
static int too_many(const struct collect *k, struct jail_err *e)
{
	return jail_err_set(e, 0, "the session holds more than %zu changed paths, more than jail "
	                          "reads (a build or install directory?); delete what should not "
	                          "go out inside the jail (jail -D DIR -- rm -rf PATH), or jail "
	                          "reset", k->cs.n);
}

/* Does the export hold a patch at all (the superproject's or a submodule's)? */
static bool any_built(const struct collect *k)
{
	bool any = k->built || k->sr.active;
	for (size_t i = 0; i < k->n_subs; i++)
		any |= k->subs[i].built;
	return any;
}

/* Remove the previous export's patches: the dir holds the last export only. */
static int clear_patches(int dfd, struct jail_err *e)
{
	DIR *d = opendir_at(dfd, ".");
	if (!d)
		return jail_err_sys(e, "read the patches directory");
	struct dirent *de;
	while ((de = readdir(d)))
		if (fnmatch("[0-9][0-9][0-9][0-9]-*.patch", de->d_name, 0) == 0 ||
		    fnmatch("[0-9][0-9][0-9][0-9]-*.patch.tmp", de->d_name, 0) == 0 ||
		    strcmp(de->d_name, "summary") == 0 || strcmp(de->d_name, "summary.tmp") == 0)
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	return 0;
}

/* The single patch, made with the numstat (collect_build) or now, moved or
 * copied into dir when what stays free can hold it once more above the
 * reserve. */
static int write_mbox(struct collect *k, int dfd, const char *dir, const char *name,
                      struct jail_err *e)
{
	unsigned long long size = 0;
	if (!k->mbox_made && (patch_mbox_start(&k->sc, &k->x, &k->cs, e) < 0 ||
	                      patch_mbox_finish(&k->sc, e) < 0))
		return -1;
	k->mbox_made = true;
	if (patch_mbox_size(&k->sc, &size, e) < 0)
		return -1;
	if (!room_for(dir, 2 * size))
		return jail_err_set(e, ENOSPC, "not enough free space to write the patch (%llu KiB) in %s "
		                               "without going below the filesystem's reserve; free some "
		                               "space, or write it elsewhere with jail export -o DIR",
		                    size >> 10, dir);
	return patch_mbox_place(&k->sc, dfd, name, e);
}

/* One repository's patch and summary into dir. */
static int write_one(struct collect *k, const struct session *s, const char *dir,
                     struct jail_err *e)
{
	if (!k->built && !k->sr.active)
		return 0;
	if (mkdir_p(dir, 0700, e) < 0)
		return -1;
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return jail_err_sys(e, "open '%s'", dir);
	struct strbuf summary = {0};
	_cleanup_free_ char *name = xasprintf("0001-jail-session-%s.patch", s->name);
	int r = k->sr.active ? series_write(&k->sr, dfd, dir, &k->paths, e)
	                     : write_mbox(k, dfd, dir, name, e);
	if (r == 0 && !k->sr.active)
		strv_push_take(&k->paths, xasprintf("%s/%s", dir, name));
	if (r == 0 && k->paths.n) {
		k->patch = xstrdup(k->paths.v[0]);
		series_summary(&k->sr, &summary);
		summary_render(&k->cs, k->sr.active ? NULL : k->patch, &summary);
		r = replace_file_at(dfd, "summary", summary.s ? summary.s : "", summary.len, 0644, e);
	}
	sb_free(&summary);
	return r;
}

/* A directory the user named (-o) is not cleared: its other files are the
 * user's.  Patch files of an earlier export left there (another series, a
 * rejected one) would land too with the glob everyone types
 * ("git am DIR/0*.patch"): say so, naming them, now that they can be seen. */
static void warn_other_patches(const char *dir, const struct strv *written)
{
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? opendir_at(dfd, ".") : NULL;
	if (!d)
		return;
	size_t n = 0;
	_cleanup_free_ char *first = NULL;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (fnmatch("[0-9][0-9][0-9][0-9]-*.patch", de->d_name, 0) != 0)
			continue;
		_cleanup_free_ char *path = xasprintf("%s/%s", dir, de->d_name);
		if (strv_contains(written, path))
			continue;
		if (n++ == 0)
			first = escape_name(de->d_name);
	}
	closedir(d);
	if (!n)
		return;
	_cleanup_free_ char *esc = escape_name(dir);
	log_warn("%s also holds %zu patch file%s this export did not write (%s%s): git am "
	         "%s/*.patch would land %s too; land the files listed on standard output",
	         esc, n, n == 1 ? "" : "s", first, n > 1 ? ", ..." : "", esc,
	         n == 1 ? "it" : "them");
}

/* The superproject's patch in dir; each submodule's series in
 * dir/submodules/<its path>/ (paths from the host's index). */
static int write_series(struct collect *k, const struct session *s, const char *dir,
                        bool clear, struct jail_err *e)
{
	if (mkdir_p(dir, 0700, e) < 0)
		return -1;
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return jail_err_sys(e, "open '%s'", dir);
	if (clear && (clear_patches(dfd, e) < 0 || rm_rf_at(dfd, "submodules", e) < 0))
		return -1;
	int r = write_one(k, s, dir, e);
	if (r == 0 && !clear)
		warn_other_patches(dir, &k->paths);
	for (size_t i = 0; r == 0 && i < k->n_subs; i++) {
		_cleanup_free_ char *sub = xasprintf("%s/submodules/%s", dir, k->x.submodules.v[i]);
		r = write_one(&k->subs[i], s, sub, e);
		if (r == 0 && !clear && k->subs[i].paths.n)
			warn_other_patches(sub, &k->subs[i].paths);
	}
	/* an export that failed half-way (a full disk) leaves none of its
	 * patches: the first few of a series read as the whole change */
	for (size_t i = 0; r < 0 && i <= k->n_subs; i++) {
		const struct strv *p = i == 0 ? &k->paths : &k->subs[i - 1].paths;
		for (size_t j = 0; j < p->n; j++)
			unlink(p->v[j]);
	}
	return r;
}

/* How to land it: `git am`, or `git am -3` when the project's HEAD moved since
 * the session started (meta "base"), so a conflict merges instead of failing;
 * `patch -p1` where there is no repository.  Paths quoted for the shell. */
static void log_landing(const struct session *s, const struct collect *k)
{
	if (!k->patch)
		return;
	const char *slash = strrchr(k->patch, '/');
	int dir = slash ? (int)(slash - k->patch) : 0;
	_cleanup_free_ char *pdir = slash ? strndup(k->patch, (size_t)dir) : NULL;
	_cleanup_free_ char *qdir = pdir ? hint_shell_quote(pdir) : NULL;
	/* a series: its directory quoted, the glob left for the shell */
	_cleanup_free_ char *esc = hint_shell_quote(s->project);
	_cleanup_free_ char *pesc = k->paths.n > 1 && qdir ? xasprintf("%s/0*.patch", qdir)
	                                                   : hint_shell_quote(k->patch);
	if (!k->x.is_repo) {
		log_info("review it, then land it: patch -d %s -p1 < %s", esc, pesc);
		return;
	}
	_cleanup_free_ char *base = session_meta_get(s, "base");
	struct git g = {.cwd = s->project};
	struct strbuf head = {0};
	struct jail_err e;
	int status = 1;
	const char *args[] = {"rev-parse", "-q", "--verify", "HEAD", NULL};
	/* HEAD at the commit jail apply made is where the session stands too */
	_cleanup_free_ char *applied = session_meta_get(s, "applied");
	bool moved = base && git_run(&g, args, NULL, 0, &head, &status, &e) == 0 && status == 0 &&
	             head.s && strncmp(head.s, base, strlen(base)) != 0 &&
	             !(applied && strncmp(head.s, applied, strlen(applied)) == 0);
	sb_free(&head);
	if (moved)
		log_info("the project moved on since the session started; land it with: "
		         "git -C %s am -3 %s", esc, pesc);
	else
		log_info("review it, then land it: git -C %s am %s", esc, pesc);
}

static void log_lines(const char *text)
{
	_cleanup_free_ char *copy = xstrdup(text);
	for (char *line = copy, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		log_info("%s", line);
	}
}

/* Each submodule's summary, and how to land its series. */
static void log_submodules(const struct collect *k)
{
	for (size_t i = 0; i < k->n_subs; i++) {
		const struct collect *sk = &k->subs[i];
		struct strbuf sum = {0};
		summary_render(&sk->cs, sk->patch, &sum);
		_cleanup_free_ char *esc = escape_name(k->x.submodules.v[i]);
		if (sum.s) {
			log_info("submodule %s:", esc);
			log_lines(sum.s);
		}
		if (sk->patch) {
			_cleanup_free_ char *pe = escape_name(sk->x.project);
			_cleanup_free_ char *pp = escape_name(sk->patch);
			log_info("land it in the submodule: git -C %s am %s", pe, pp);
		}
		sb_free(&sum);
	}
}

/* Does a section of the summary that lists flagged files start at line
 * ("flagged for review:", "series: flagged for review:")? */
static bool flagged_header(const char *line)
{
	static const char tail[] = "flagged for review:";
	size_t n = strlen(line), t = sizeof(tail) - 1;
	return line[0] != ' ' && n >= t && strcmp(line + n - t, tail) == 0;
}

/* A screenful of the summary at most: the terminal's height, else 40 lines.
 * The patch line (the last) always shows, and so do the flagged files: 40
 * files of the agent's listed first pushed "run.sh: exec bit added" and
 * "terminal controls" out of the summary of an export or a jail apply. */
static void log_lines_capped(const char *text)
{
	struct winsize ws;
	size_t max = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 16
	             ? (size_t)ws.ws_row - 6 : 40;
	_cleanup_free_ char *copy = xstrdup(text);
	size_t n = 0, skipped = 0;
	bool flags = false;  /* in a section of flagged files */
	for (char *line = copy, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (line[0] != ' ')
			flags = flagged_header(line);
		if (n++ < max || flags || strncmp(line, "patch: ", 7) == 0 || (!nl || !nl[1])) {
			if (skipped)
				log_info("… and %s more: jail status", thousands(skipped).s);
			skipped = 0;
			log_info("%s", line);
		} else {
			skipped++;
		}
	}
	if (skipped)
		log_info("… and %s more: jail status", thousands(skipped).s);
}

/* What this run touched among what the session holds (runstamp.h). */
static void log_this_run(const struct collect *k, const struct runstamp *rs)
{
	if (!rs || !rs->had_previous)
		return;
	size_t n = 0;
	struct strbuf names = {0};
	for (size_t i = 0; i < k->cs.n; i++) {
		_cleanup_free_ char *esc = escape_name(k->cs.v[i].path);
		if (k->cs.v[i].reason || !runstamp_touched(rs, esc))
			continue;
		if (n++ < 5)
			sb_printf(&names, "%s%s", n > 1 ? ", " : "", esc);
	}
	if (n > 5)
		sb_printf(&names, " and %s more", thousands(n - 5).s);
	if (n)
		log_info("this run changed %zu file%s: %s; the session holds:", n, n == 1 ? "" : "s",
		         names.s);
	else
		log_info("this run changed no exported file; the session holds:");
	sb_free(&names);
}

/* The series (if any), then the change with its left-out files. */
static void render_all(const struct collect *k, const char *patch, struct strbuf *out)
{
	series_summary(&k->sr, out);
	if (k->sr.active && changeset_worth_telling(&k->cs))
		sb_puts(out, "the series adds up to:\n");
	summary_render(&k->cs, k->sr.active ? NULL : patch, out);
}

static void report(const struct collect *k, const struct session *s, bool landing,
                   const struct runstamp *rs)
{
	struct strbuf sum = {0};
	render_all(k, k->patch, &sum);
	if (sum.s) {
		log_this_run(k, rs);
		log_lines_capped(sum.s);
	}
	sb_free(&sum);
	if (landing)
		log_landing(s, k);
	log_submodules(k);
}

int export_after_run(struct session *s, const struct jail_config *cfg, struct hidefs *view,
                     struct jail_err *e)
{
	if (cfg->no_export)
		return 0;
	/* a run that changed nothing says nothing, and the last patch stands,
	 * unless the project's HEAD moved (the landing advice changes with it) */
	struct runstamp rs;
	_cleanup_free_ char *host = runstamp_host(s->project);
	bool stamped = runstamp_take(&rs, s->dir, cfg, host, e) == 0;
	log_debug("export: upper dir stamped (%zu entries)", rs.n);
	if (stamped && rs.unchanged) {
		runstamp_free(&rs);
		return 0;
	}
	if (landing_settle(s, false, e) < 0) {
		runstamp_free(&rs);
		return jail_err_wrap(e, "export");
	}
	session_sync(s);
	/* what was hidden is the view server's selection: it may still be
	 * building when the command ended early */
	if (view && !cfg->hide_start_only && hidefs_built(view, true) < 0) {
		runstamp_free(&rs);
		return jail_err_set(e, 0, "the project's view was never built, so what was "
		                          "hidden is not known; nothing exported (jail export "
		                          "after a successful run exports it)");
	}
	/* a big export takes a while: its progress shows on a terminal (log.h) */
	struct collect k = {0};  /* collect() keeps its live_dir and pathspec */
	int r = collect(&k, s, cfg, NULL, e);
	if (r == 0 && k.cs.truncated)
		r = too_many(&k, e);
	if (r == 0)
		r = write_series(&k, s, s->patches, true, e);
	log_progress_end();
	if (r == 0)
		report(&k, s, true, stamped ? &rs : NULL);
	struct jail_err se;
	if (r == 0 && stamped && runstamp_save(&rs, s->dir, &se) < 0)
		log_warn("%s", se.msg);
	collect_free(&k);
	if (stamped)
		runstamp_free(&rs);
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) == 0)  /* scripts/bench-export-large reads it */
		log_debug("export: supervisor peak memory %ld KiB", ru.ru_maxrss);
	return r < 0 ? jail_err_wrap(e, "export") : 0;
}

/* Resolve and lock the session a subcommand names; the policy's [export] keys
 * and the flags go into *cfg.  With *live (diff, status) a running session is
 * read without its lock: *live says whether it was. */
static int open_session(struct cli *c, struct session *s, struct jail_config *cfg,
                        bool *live, struct jail_err *e)
{
	if (session_resolve(s, c->cfg.project, c->cfg.session, e) < 0)
		return -1;
	if (policy_resolve(c, s->project, cfg, e) < 0)
		return -1;
	struct stat st;
	if (stat(s->dir, &st) < 0) {
		_cleanup_free_ char *esc = escape_name(s->project);
		_cleanup_free_ char *hint = hint_session_in_repo(s->project);
		_cleanup_free_ char *line = hint_jail_line(NULL, s->project, s->name, "-- COMMAND");
		return jail_err_set(e, 0, "no session '%s' for %s; run a command in it first "
		                          "(%s)%s", s->name, esc, line, hint);
	}
	bool may_live = *live;
	*live = false;
	if (session_lock(s, e) == 0)
		return 0;
	if (!may_live || e->errnum != EBUSY)
		return -1;
	struct live_info li;
	*live = live_get(s->dir, &li);
	live_info_free(&li);
	if (!*live)
		return -1;
	log_info("session '%s' is running: its work as it is now (each file as read now)",
	         s->name);
	return 0;
}

/* Common shape of the subcommands: open, collect, act, report. */
typedef int (*export_action)(struct cli *c, struct session *s, struct collect *k,
                             struct jail_err *e);

static int run_export_cmd(struct cli *c, export_action act, bool may_live)
{
	struct jail_err e = {0};
	struct session s = {.lockfd = -1};
	struct collect k;
	memset(&k, 0, sizeof(k));
	k.x.project_fd = k.x.upper_fd = -1;
	struct jail_config cfg;
	memset(&cfg, 0, sizeof(cfg));  /* policy_resolve() fills it */
	bool live = may_live;
	_cleanup_free_ char *scratch = NULL;
	_cleanup_close_ int scratch_hold = -1;
	int r = open_session(c, &s, &cfg, &live, &e);
	/* what an interrupted jail apply landed is the session's before it is read */
	if (r == 0 && !live)
		r = landing_settle(&s, false, &e);
	/* a running jail exports into its session dir when it ends: a live read
	 * builds its scratch repository apart, and removes it */
	if (r == 0 && live) {
		scratch = live_place_make(s.project_root, &scratch_hold, &e);
		r = scratch ? 0 : -1;
		k.live_dir = scratch;
	}
	struct strv specs = {0};
	if (r == 0)
		r = pathspec_resolve(&s, c->args, &specs, &e);
	k.pathspec = &specs;
	k.use = c->cmd == CMD_DIFF ? FOR_DIFF : c->cmd == CMD_STATUS ? FOR_STATUS : FOR_PATCH;
	/* jail diff --stat and --name-status show the sum: the agent's commits
	 * need not be read (the diff shows each, as it lands: act_diff) */
	if (r == 0 && c->cmd == CMD_DIFF && (c->stat || c->name_status))
		cfg.export_series = false;
	if (r == 0)
		r = collect(&k, &s, &cfg, c->message, &e);
	if (r == 0 && k.cs.truncated && c->cmd != CMD_STATUS)
		r = too_many(&k, &e);
	log_progress_end();  /* before jail diff's pager takes the terminal */
	if (r == 0)
		r = act(c, &s, &k, &e);
	log_progress_end();
	strv_free(&specs);
	collect_free(&k);
	struct jail_err ignored;
	if (scratch && rm_rf_at(AT_FDCWD, scratch, &ignored) < 0)
		log_warn("remove '%s': %s", scratch, ignored.msg);
	session_free(&s);
	config_free(&cfg);
	if (r < 0) {
		/* the export opens files and runs git one after another: with
		 * none free, which of them failed matters less than the fix */
		if (e.errnum == EMFILE || e.errnum == ENFILE)
			log_error("%s (raise the limit of open files, ulimit -n, or start jail with "
			          "fewer of them open)", e.msg);
		else
			log_error("%s", e.msg);
		return EXIT_JAIL_FAIL;
	}
	return 0;
}

static int write_stdout(const char *s, size_t n, struct jail_err *e)
{
	if (n && write_all(STDOUT_FILENO, s, n) < 0)
		return jail_err_sys(e, "write to standard output");
	return 0;
}

/* The length of the next piece of a diff to show: whole lines, about 1 MiB
 * (a longer line whole). */
static size_t diff_piece(const char *s, size_t n)
{
	const size_t want = 1u << 20;
	if (n <= want)
		return n;
	const char *nl = memchr(s + want, '\n', n - want);
	return nl ? (size_t)(nl + 1 - s) : n;
}

/* One repository's change: the diff of the total, or, for a series, each
 * patch as it lands.  The total alone would not show what only the history
 * holds (a script one commit adds and the next deletes lands in the first
 * commit, where a checkout, bisect or CI run finds it): jail diff shows what
 * jail apply lands.  The stat and the names are the total's. */
static int diff_one(struct collect *k, const char *mode, const char *prefix,
                    struct strbuf *out, struct jail_err *e)
{
	if (k->sr.active && strcmp(mode, "patch") == 0)
		return series_diff(&k->sr, prefix, out, e);
	return k->built ? patch_diff(&k->sc, mode, prefix, out, e) : 0;
}

static int act_diff(struct cli *c, struct session *s, struct collect *k, struct jail_err *e)
{
	const char *mode = c->stat ? "stat" : c->name_status ? "name-status" : "patch";
	struct strbuf out = {0}, shown = {0};
	int r = diff_one(k, mode, NULL, &out, e);
	/* each submodule's change after it, its paths as the superproject sees them */
	for (size_t i = 0; r == 0 && i < k->n_subs; i++) {
		_cleanup_free_ char *prefix = xasprintf("%s/", k->x.submodules.v[i]);
		r = diff_one(&k->subs[i], mode, prefix, &out, e);
	}
	bool tty = isatty(STDOUT_FILENO);
	const char *no_color = getenv("NO_COLOR");
	bool color = c->color == COLOR_ALWAYS ||
	             (c->color == COLOR_AUTO && tty && !(no_color && *no_color));
	struct pager pg = {.pid = -1};
	if (r == 0)
		r = pager_open(&pg, !out.len, e);
	/* the agent chose these bytes: a terminal gets them escaped, a piece at a
	 * time (escaped and coloured, a line of the agent's can take 14 times its
	 * bytes: 256 MiB of lines "\r" would be 3.5 GiB held at once) */
	bool in_header = false;
	for (size_t off = 0, n; r == 0 && off < out.len; off += n) {
		n = diff_piece(out.s + off, out.len - off);
		shown.len = 0;
		if (!tty && !color) {
			r = pager_put(&pg, out.s + off, n, e);
			continue;
		}
		if (color && strcmp(mode, "patch") == 0)
			colorize_diff(out.s + off, n, &in_header, &shown);
		else
			sanitize_for_terminal(out.s + off, n, &shown);
		r = pager_put(&pg, shown.s, shown.len, e);
	}
	pager_close(&pg);
	sb_free(&out);
	sb_free(&shown);
	return r;
}

static int act_status(struct cli *c, struct session *s, struct collect *k, struct jail_err *e)
{
	struct strbuf out = {0};
	if (k->cs.truncated) {  /* the partial walk, unfiltered, says nothing true */
		struct jail_err many;
		(void)too_many(k, &many);
		return write_stdout(many.msg, strlen(many.msg), e) < 0 ? -1
		       : write_stdout("\n", 1, e);
	}
	render_all(k, NULL, &out);
	for (size_t i = 0; i < k->n_subs; i++) {
		struct strbuf sub = {0};
		summary_render(&k->subs[i].cs, NULL, &sub);
		_cleanup_free_ char *esc = escape_name(k->x.submodules.v[i]);
		if (sub.s)
			sb_printf(&out, "submodule %s:\n%s", esc, sub.s);
		sb_free(&sub);
	}
	if (!out.len)
		sb_puts(&out, "no changes\n");
	/* every name in it is escaped (escape_name), but on an 8-bit terminal a
	 * byte of a UTF-8 character may be a C1 control: U+00DB is C3 9B, CSI */
	struct strbuf shown = {0};
	sanitize_for_terminal(out.s, out.len, &shown);
	int r = write_stdout(shown.s, shown.len, e);
	sb_free(&shown);
	sb_free(&out);
	return r;
}

static int act_export(struct cli *c, struct session *s, struct collect *k, struct jail_err *e)
{
	const char *dir = c->output ? c->output : s->patches;
	if (write_series(k, s, dir, c->output == NULL, e) < 0) {
		if (c->output) { /* name the flag: the failing path may be a parent of DIR */
			_cleanup_free_ char *esc = escape_name(c->output);
			jail_err_wrap(e, "-o %s", esc);
		}
		return -1;
	}
	struct strbuf sum = {0}, paths = {0};
	render_all(k, NULL, &sum);
	if (sum.s)
		log_lines_capped(sum.s);  /* the whole list: jail status */
	sb_free(&sum);
	log_submodules(k);
	if (!any_built(k)) {
		log_info("no changes to export");
		return 0;
	}
	/* one patch path a line: the superproject's first, then each submodule's */
	for (size_t i = 0; i < k->paths.n; i++)
		sb_printf(&paths, "%s\n", k->paths.v[i]);
	for (size_t i = 0; i < k->n_subs; i++)
		if (k->subs[i].patch)
			sb_printf(&paths, "%s\n", k->subs[i].patch);
	int r = write_stdout(paths.s, paths.len, e);
	sb_free(&paths);
	return r;
}

int cmd_diff(struct cli *c) { return run_export_cmd(c, act_diff, true); }
int cmd_status(struct cli *c) { return run_export_cmd(c, act_status, true); }
int cmd_export(struct cli *c) { return run_export_cmd(c, act_export, false); }

extern char **environ;

#define RELAY_HOLD (64u << 10)  /* a line longer than this goes out in pieces */

/* Write b's first n bytes to stderr escaped (sanitize_for_terminal) and drop
 * them from b.  A stderr that fails (closed) drops the rest of the output,
 * not git am: the pipe is still read to its end.  (One whose reader is gone
 * raises SIGPIPE, as it did in git am when git wrote there itself.) */
static void relay_out(struct strbuf *b, size_t n, struct strbuf *shown, bool *failed)
{
	shown->len = 0;
	sanitize_for_terminal(b->s, n, shown);
	if (!*failed && write_all(STDERR_FILENO, shown->s, shown->len) < 0)
		*failed = true;
	memmove(b->s, b->s + n, b->len - n);
	b->len -= n;
}

/* Wait until fd has data or git am (pidfd) ended; false: stop reading.  Once
 * it ended, fd is read to what is there: a process a hook of the user's left
 * running may hold the pipe's other end for good. */
static bool relay_wait(int fd, int pidfd, bool *ended)
{
	while (pidfd >= 0 && !*ended) {
		struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = pidfd, .events = POLLIN}};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			log_warn("wait for git am's output: %s", strerror(errno));
			return false;
		}
		if (p[1].revents) {
			*ended = true;
			if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
				return false;
		}
		if (p[0].revents)
			break;
	}
	return true;
}

/* git am's output, to stderr escaped, whole lines at a time (a character is
 * never cut in two): git apply quotes the agent's lines as they are in its
 * whitespace warnings ("patch:13: trailing whitespace." and the line), and a
 * line holding ESC ] 52 wrote the user's clipboard, ESC ] 0 the terminal's
 * title, on the terminal of a jail apply. */
static void relay_escaped(int fd, pid_t pid)
{
	_cleanup_close_ int pidfd = live_pidfd(pid, 0);  /* none: read to the end */
	struct strbuf pending = {0}, shown = {0};
	char buf[8192];
	bool failed = false, ended = false;
	while (relay_wait(fd, pidfd, &ended)) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)  /* git am gets EPIPE (or SIGPIPE) for the rest */
			log_warn("read git am's output: %s", strerror(errno));
		if (n <= 0)
			break;
		sb_append(&pending, buf, (size_t)n);
		const char *nl = memrchr(pending.s, '\n', pending.len);
		size_t take = nl ? (size_t)(nl + 1 - pending.s) : pending.len >= RELAY_HOLD ? pending.len : 0;
		if (take)
			relay_out(&pending, take, &shown, &failed);
	}
	if (pending.len)
		relay_out(&pending, pending.len, &shown, &failed);
	sb_free(&pending);
	sb_free(&shown);
}

/* Start git with its stdout and stderr on the write end of a pipe. */
static int spawn_piped(pid_t *pid, char *const *argv, int out_fd, struct jail_err *e)
{
	posix_spawn_file_actions_t fa;
	if (posix_spawn_file_actions_init(&fa) != 0)
		return jail_err_sys(e, "run git am");
	int r = posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
	if (r == 0)
		r = posix_spawn_file_actions_adddup2(&fa, out_fd, STDERR_FILENO);
	if (r == 0)
		r = posix_spawnp(pid, "git", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	return r ? jail_err_set(e, r, "run git am") : 0;
}

/* `git am` in the project, as the user would type it: the user's own git with
 * the user's environment (identity, hooks of their repository).  Only the patch
 * comes from the jail, and it was filtered like every export; what git says
 * about it reaches the terminal escaped (relay_escaped). */
static int git_am(const char *project, const struct strv *patches, bool three_way,
                  struct jail_err *e)
{
	struct strv argv = {0};
	const char *args[] = {"git", "-C", project, "am", three_way ? "-3" : "--quiet", "--"};
	for (size_t i = 0; i < ARRAY_SIZE(args); i++)
		strv_push(&argv, args[i]);
	for (size_t i = 0; i < patches->n; i++)
		strv_push(&argv, patches->v[i]);
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		strv_free(&argv);
		return jail_err_sys(e, "run git am: pipe");
	}
	pid_t pid;
	int r = spawn_piped(&pid, argv.v, pipefd[1], e);
	strv_free(&argv);
	close(pipefd[1]);
	if (r == 0)
		relay_escaped(pipefd[0], pid);
	close(pipefd[0]);
	if (r < 0)
		return -1;
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return jail_err_sys(e, "wait for git am");
	if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
		_cleanup_free_ char *esc = escape_name(project);
		return jail_err_set(e, 0, "git am failed in %s; resolve it there and run "
		                          "'git am --continue', or 'git am --abort' (the patch "
		                          "stays in the session)", esc);
	}
	return 0;
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The host's uncommitted changes (staged, unstaged, untracked) to paths the
 * patch touches: `git am` would stop half-way on them, or mix them in. */
static int refuse_dirty(const struct collect *k, struct jail_err *e)
{
	struct git g = {.cwd = k->x.project};
	const char *args[] = {"status", "--porcelain=v1", "-z", "--untracked-files=all",
	                      "--no-renames", "--ignore-submodules=all", NULL};
	struct strbuf out = {0};
	if (git_run(&g, args, NULL, 0, &out, NULL, e) < 0) {
		sb_free(&out);
		return jail_err_wrap(e, "check the host work tree");
	}
	size_t pl = strlen(k->x.prefix), dirty = 0;
	_cleanup_free_ char *first = NULL;
	for (size_t i = 0; out.s && i < out.len;) {
		const char *rec = out.s + i;  /* "XY PATH" (relative to the repository) */
		i += strlen(rec) + 1;
		if (strlen(rec) < 4 || strncmp(rec + 3, k->x.prefix, pl) != 0)
			continue;
		const char *key = rec + 3 + pl;
		bool hit = false;
		for (size_t j = 0; j < k->cs.n && !hit; j++)
			hit = !k->cs.v[j].reason && strcmp(k->cs.v[j].path, key) == 0;
		/* or a path only the agent's commits change (a patch of the series) */
		hit = hit || (k->sr.touched.n && bsearch(&key, k->sr.touched.v, k->sr.touched.n,
		                                         sizeof(char *), cmp_strp));
		if (hit && dirty++ == 0)
			first = escape_name(key);
	}
	sb_free(&out);
	if (!dirty)
		return 0;
	_cleanup_free_ char *esc = escape_name(k->x.project);
	return jail_err_set(e, 0, "the host work tree %s has uncommitted changes to '%s'%s that "
	                          "the session's patch also changes; commit or stash them, "
	                          "then run jail apply again", esc, first,
	                    dirty > 1 ? " and more files" : "");
}

/* Write down what the git am's about to run will land (landing.h): the
 * applied versions (the next export starts there) and the agent's commits
 * each series ends at, with the patches' ids.  It becomes the session's once
 * the host shows it landed. */
static int plan_landing(const struct session *s, struct collect *k, struct landing *l,
                        struct jail_err *e)
{
	struct strbuf tree = {0};
	_cleanup_free_ char *stale = xasprintf("%s/applied.landing", s->dir);
	if (unlink(stale) < 0 && errno != ENOENT)
		return jail_err_sys(e, "remove '%s'", stale);
	if (k->patch && k->built &&
	    (patch_post_tree(&k->sc, &tree, e) < 0 ||
	     applied_record(s->dir, "applied.landing", &k->cs, k->x.prefix, &tree, e) < 0))
		log_warn("cannot record what is applied: %s", e->msg);
	sb_free(&tree);
	_cleanup_free_ char *key = series_head_key(NULL);
	if (k->patch && landing_add(l, s->project, &k->paths, key,
	                            k->sr.active ? k->sr.head : NULL, true, e) < 0)
		return -1;
	for (size_t i = 0; i < k->n_subs; i++) {
		const struct collect *sk = &k->subs[i];
		_cleanup_free_ char *skey = series_head_key(k->x.submodules.v[i]);
		if (sk->patch && landing_add(l, sk->x.project, &sk->paths, skey,
		                             sk->sr.active ? sk->sr.head : NULL, false, e) < 0)
			return -1;
	}
	return landing_begin(s, l, e);
}

/* Changes to control files (controlfiles.h) land only when the user says so:
 * --accept-flagged, or "y" typed on a terminal after reading them. */
static int refuse_flagged(const struct cli *c, const struct collect *k, struct jail_err *e)
{
	struct strbuf lines = {0};
	size_t n = k->built ? controlfiles_render(&k->cs, &lines) : 0;
	n += series_flags_render(&k->sr, "", &lines);
	for (size_t i = 0; i < k->n_subs; i++) {
		/* the submodule's paths are its own: ".gitignore" would read as the
		 * superproject's */
		struct strbuf sub = {0};
		n += k->subs[i].built ? controlfiles_render(&k->subs[i].cs, &sub) : 0;
		n += series_flags_render(&k->subs[i].sr, "", &sub);
		_cleanup_free_ char *esc = escape_name(k->x.submodules.v[i]);
		for (const char *l = sub.s, *nl; l && *l; l = nl + 1) {
			if (!(nl = strchr(l, '\n')))
				break;  /* each line ends with one */
			sb_printf(&lines, "%s/%.*s\n", esc, (int)(nl - l), l);
		}
		sb_free(&sub);
	}
	if (n == 0 || c->accept_flagged) {
		sb_free(&lines);
		return 0;
	}
	log_info("the patch changes files that decide what git ignores, fetches or runs:");
	log_lines(lines.s);
	sb_free(&lines);
	if (isatty(STDIN_FILENO) && isatty(STDERR_FILENO)) {
		char answer[16] = "";
		fprintf(stderr, "jail: apply it anyway? [y/N] ");
		fflush(stderr);
		if (fgets(answer, sizeof(answer), stdin) && (answer[0] == 'y' || answer[0] == 'Y'))
			return 0;
	}
	return jail_err_set(e, 0, "not applied: the patch changes %zu flagged file%s (above); "
	                          "review them with jail diff, then run jail apply "
	                          "--accept-flagged", n, n == 1 ? "" : "s");
}

static int act_apply(struct cli *c, struct session *s, struct collect *k, struct jail_err *e)
{
	/* every repository is checked before anything lands */
	if (refuse_flagged(c, k, e) < 0)
		return -1;
	if ((k->built || k->sr.active) && k->x.is_repo && refuse_dirty(k, e) < 0)
		return -1;
	for (size_t i = 0; i < k->n_subs; i++)
		if (k->subs[i].built && refuse_dirty(&k->subs[i], e) < 0)
			return -1;
	if (write_series(k, s, s->patches, true, e) < 0)
		return -1;
	report(k, s, false, NULL);
	if (!any_built(k)) {
		log_info("no changes to apply");
		return 0;
	}
	struct landing l = {0};
	int r = plan_landing(s, k, &l, e);
	landing_free(&l);
	if (r == 0 && k->patch)
		r = git_am(s->project, &k->paths, c->three_way, e);
	for (size_t i = 0; r == 0 && i < k->n_subs; i++) {
		const struct collect *sk = &k->subs[i];
		if (sk->patch)
			r = git_am(sk->x.project, &sk->paths, c->three_way, e);
	}
	/* a git am that stopped leaves the record for the command after it */
	if (r < 0 || landing_settle(s, true, e) < 0)
		return -1;
	log_info("applied; the next export carries only what changes after this");
	return 0;
}

int cmd_apply(struct cli *c) { return run_export_cmd(c, act_apply, false); }
