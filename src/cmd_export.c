/* cmd_export.c — `jail diff`, `jail status`, `jail export`, and the export that
 * runs when the command of `jail run` ended.
 *
 * Each one: resolve the session, take its lock (an export never reads an upper
 * dir that an agent is still writing), walk and filter the change (export.c),
 * build it with git in a throwaway repository (patch.c), then print or write.
 */
#include "commands.h"

#include "applied.h"
#include "controlfiles.h"
#include "scratchroom.h"
#include "git.h"
#include "log.h"
#include "patch.h"
#include "policy.h"
#include "session.h"

#include <dirent.h>
#include <spawn.h>
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <string.h>
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
	bool built;  /* the scratch repository holds pre and post */
	char *patch;  /* the patch written, or NULL */
	struct collect *subs;
	size_t n_subs;
};

static void collect_free(struct collect *k)
{
	for (size_t i = 0; i < k->n_subs; i++)
		collect_free(&k->subs[i]);
	free(k->subs);
	k->subs = NULL;
	k->n_subs = 0;
	free(k->patch);
	k->patch = NULL;
	scratch_destroy(&k->sc);
	scratch_unplace(k->scratch_parent, k->scratch_own);
	k->scratch_parent = NULL;
	changeset_free(&k->cs);
	export_ctx_close(&k->x);
}

/* Scan, filter and build one repository's change (the context is open). */
static int collect_build(struct collect *k, struct session *s, bool sub, struct jail_err *e)
{
	if (export_scan(&k->x, &k->cs, e) < 0)
		return -1;
	if (k->cs.truncated)
		return 0;  /* too_many() says so; nothing is built from half a walk */
	if (export_filter(&k->x, &k->cs, e) < 0)
		return -1;
	controlfiles_review(&k->x, &k->cs, s->dir);
	if (k->cs.n && !k->x.is_repo) {
		_cleanup_free_ char *esc = escape_name(k->x.project);
		log_warn("%s is not a git repository: exporting every regular text file", esc);
	}
	if (changeset_included(&k->cs) == 0)
		return 0;
	_cleanup_free_ char *msg = patch_message(&k->cs, s->name);
	unsigned long long bytes = 0;
	for (size_t i = 0; i < k->cs.n; i++)
		bytes += !k->cs.v[i].reason && k->cs.v[i].new_size > 0 ? (unsigned long long)k->cs.v[i].new_size : 0;
	unsigned long long need = scratch_estimate(bytes, changeset_included(&k->cs));
	if (scratch_place(s->dir, need, &k->scratch_parent, &k->scratch_own, e) < 0)
		return -1;
	const char *at = k->scratch_parent;
	int r = sub ? scratch_create_another(&k->sc, at, e) : scratch_create(&k->sc, at, e);
	if (r < 0 || patch_commit(&k->sc, &k->x, &k->cs, msg, e) < 0 ||
	    patch_numstat(&k->sc, &k->x, &k->cs, e) < 0)
		return -1;
	k->built = changeset_included(&k->cs) > 0;
	return 0;
}

static int collect(struct collect *k, struct session *s, const struct jail_config *cfg,
                   struct jail_err *e)
{
	memset(k, 0, sizeof(*k));
	k->x.project_fd = k->x.upper_fd = -1;
	if (export_ctx_open(&k->x, s->project, s->dir, cfg, e) < 0 || collect_build(k, s, false, e) < 0)
		return -1;
	const struct strv *subs = &k->x.submodules;
	k->subs = subs->n ? xcalloc(subs->n, sizeof(*k->subs)) : NULL;
	for (size_t i = 0; i < subs->n; i++) {
		struct collect *sk = &k->subs[k->n_subs++];
		sk->x.project_fd = sk->x.upper_fd = -1;
		if (export_ctx_open_sub(&sk->x, &k->x, subs->v[i], cfg, e) < 0 ||
		    collect_build(sk, s, true, e) < 0) {
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
	bool any = k->built;
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
		    strcmp(de->d_name, "summary") == 0)
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	return 0;
}

/* One repository's patch and summary into dir. */
static int write_one(struct collect *k, const struct session *s, const char *dir,
                     struct jail_err *e)
{
	if (!k->built)
		return 0;
	if (mkdir_p(dir, 0700, e) < 0)
		return -1;
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return jail_err_sys(e, "open '%s'", dir);
	struct strbuf mbox = {0}, summary = {0};
	_cleanup_free_ char *name = xasprintf("0001-jail-session-%s.patch", s->name);
	int r = patch_mbox(&k->sc, &k->x, &k->cs, &mbox, e);
	if (r == 0 && !room_for(dir, 2 * (unsigned long long)mbox.len))
		r = jail_err_set(e, ENOSPC, "not enough free space to write the patch (%zu KiB) in %s "
		                            "without going below the filesystem's reserve; free some "
		                            "space, or write it elsewhere with jail export -o DIR",
		                 mbox.len >> 10, dir);
	if (r == 0)
		r = write_file_at(dfd, name, mbox.s, mbox.len, 0644, e);
	if (r == 0) {
		k->patch = xasprintf("%s/%s", dir, name);
		summary_render(&k->cs, k->patch, &summary);
		r = write_file_at(dfd, "summary", summary.s ? summary.s : "", summary.len, 0644, e);
	}
	sb_free(&mbox);
	sb_free(&summary);
	return r;
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
	if (write_one(k, s, dir, e) < 0)
		return -1;
	for (size_t i = 0; i < k->n_subs; i++) {
		_cleanup_free_ char *sub = xasprintf("%s/submodules/%s", dir, k->x.submodules.v[i]);
		if (write_one(&k->subs[i], s, sub, e) < 0)
			return -1;
	}
	return 0;
}

/* How to land it: `git am`, or `git am -3` when the project's HEAD moved since
 * the session started (meta "base"), so a conflict merges instead of failing. */
static void log_landing(const struct session *s, const char *patch)
{
	if (!patch)
		return;
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
	_cleanup_free_ char *esc = escape_name(s->project);
	_cleanup_free_ char *pesc = escape_name(patch);
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

static void report(const struct collect *k, const struct session *s, bool landing)
{
	struct strbuf sum = {0};
	summary_render(&k->cs, k->patch, &sum);
	if (sum.s)
		log_lines(sum.s);
	sb_free(&sum);
	if (landing)
		log_landing(s, k->patch);
	log_submodules(k);
}

int export_after_run(struct session *s, const struct jail_config *cfg, struct jail_err *e)
{
	if (cfg->no_export)
		return 0;
	struct collect k;
	int r = collect(&k, s, cfg, e);
	if (r == 0 && k.cs.truncated)
		r = too_many(&k, e);
	if (r == 0)
		r = write_series(&k, s, s->patches, true, e);
	if (r == 0)
		report(&k, s, true);
	collect_free(&k);
	return r < 0 ? jail_err_wrap(e, "export") : 0;
}

/* Resolve and lock the session a subcommand names; the policy's [export] keys
 * and the flags go into *cfg. */
static int open_session(struct cli *c, struct session *s, struct jail_config *cfg,
                        struct jail_err *e)
{
	if (session_resolve(s, c->cfg.project, c->cfg.session, e) < 0)
		return -1;
	if (policy_resolve(c, s->project, cfg, e) < 0)
		return -1;
	struct stat st;
	if (stat(s->dir, &st) < 0) {
		_cleanup_free_ char *esc = escape_name(s->project);
		return jail_err_set(e, 0, "no session '%s' for %s; run a command in it first "
		                          "(jail -D DIR -- COMMAND)", s->name, esc);
	}
	return session_lock(s, e);
}

/* Common shape of the subcommands: open, collect, act, report. */
typedef int (*export_action)(struct cli *c, struct session *s, struct collect *k,
                             struct jail_err *e);

static int run_export_cmd(struct cli *c, export_action act)
{
	struct jail_err e = {0};
	struct session s = {.lockfd = -1};
	struct collect k;
	memset(&k, 0, sizeof(k));
	k.x.project_fd = k.x.upper_fd = -1;
	struct jail_config cfg;
	memset(&cfg, 0, sizeof(cfg));  /* policy_resolve() fills it */
	int r = open_session(c, &s, &cfg, &e);
	if (r == 0)
		r = collect(&k, &s, &cfg, &e);
	if (r == 0 && k.cs.truncated && c->cmd != CMD_STATUS)
		r = too_many(&k, &e);
	if (r == 0)
		r = act(c, &s, &k, &e);
	collect_free(&k);
	session_free(&s);
	config_free(&cfg);
	if (r < 0) {
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

static int act_diff(struct cli *c, struct session *s, struct collect *k, struct jail_err *e)
{
	const char *mode = c->stat ? "stat" : c->name_status ? "name-status" : "patch";
	struct strbuf out = {0}, shown = {0};
	int r = k->built ? patch_diff(&k->sc, mode, NULL, &out, e) : 0;
	/* each submodule's change after it, its paths as the superproject sees them */
	for (size_t i = 0; r == 0 && i < k->n_subs; i++) {
		_cleanup_free_ char *prefix = xasprintf("%s/", k->x.submodules.v[i]);
		if (k->subs[i].built)
			r = patch_diff(&k->subs[i].sc, mode, prefix, &out, e);
	}
	bool tty = isatty(STDOUT_FILENO);
	const char *no_color = getenv("NO_COLOR");
	/* the agent chose these bytes: a terminal gets them escaped */
	if (r == 0 && tty && strcmp(mode, "patch") == 0 && !(no_color && *no_color))
		colorize_diff(out.s ? out.s : "", out.len, &shown);
	else if (r == 0 && tty)
		sanitize_for_terminal(out.s ? out.s : "", out.len, &shown);
	if (r == 0)
		r = tty ? write_stdout(shown.s, shown.len, e) : write_stdout(out.s, out.len, e);
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
	summary_render(&k->cs, NULL, &out);
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
	int r = write_stdout(out.s, out.len, e);
	sb_free(&out);
	return r;
}

static int act_export(struct cli *c, struct session *s, struct collect *k, struct jail_err *e)
{
	const char *dir = c->output ? c->output : s->patches;
	if (write_series(k, s, dir, c->output == NULL, e) < 0)
		return -1;
	struct strbuf sum = {0}, paths = {0};
	summary_render(&k->cs, NULL, &sum);
	if (sum.s)
		log_lines(sum.s);
	sb_free(&sum);
	log_submodules(k);
	if (!any_built(k)) {
		log_info("no changes to export");
		return 0;
	}
	/* one patch path a line: the superproject's first, then each submodule's */
	if (k->patch)
		sb_printf(&paths, "%s\n", k->patch);
	for (size_t i = 0; i < k->n_subs; i++)
		if (k->subs[i].patch)
			sb_printf(&paths, "%s\n", k->subs[i].patch);
	int r = write_stdout(paths.s, paths.len, e);
	sb_free(&paths);
	return r;
}

int cmd_diff(struct cli *c) { return run_export_cmd(c, act_diff); }
int cmd_status(struct cli *c) { return run_export_cmd(c, act_status); }
int cmd_export(struct cli *c) { return run_export_cmd(c, act_export); }

extern char **environ;

/* `git am` in the project, as the user would type it: the user's own git with
 * the user's environment (identity, hooks of their repository).  Only the patch
 * comes from the jail, and it was filtered like every export. */
static int git_am(const char *project, const char *patch, bool three_way, struct jail_err *e)
{
	struct strv argv = {0};
	const char *args[] = {"git", "-C", project, "am", three_way ? "-3" : "--quiet", "--", patch};
	for (size_t i = 0; i < ARRAY_SIZE(args); i++)
		strv_push(&argv, args[i]);
	pid_t pid;
	int r = posix_spawnp(&pid, "git", NULL, NULL, argv.v, environ);
	strv_free(&argv);
	if (r != 0)
		return jail_err_set(e, r, "run git am");
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
		for (size_t j = 0; j < k->cs.n; j++)
			if (!k->cs.v[j].reason && strcmp(k->cs.v[j].path, rec + 3 + pl) == 0 &&
			    dirty++ == 0)
				first = escape_name(k->cs.v[j].path);
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

/* Remember what landed: the applied versions (the next export starts there) and
 * the host commit it made. */
static void mark_applied(const struct session *s, struct collect *k)
{
	struct strbuf tree = {0}, head = {0};
	struct jail_err e;
	if (patch_post_tree(&k->sc, &tree, &e) < 0 ||
	    applied_record(s->dir, &k->cs, k->x.prefix, &tree, &e) < 0)
		log_warn("cannot record what was applied: %s", e.msg);
	struct git g = {.cwd = s->project};
	const char *args[] = {"rev-parse", "-q", "--verify", "HEAD", NULL};
	int status = 1;
	char now[32];
	snprintf(now, sizeof(now), "%lld", (long long)time(NULL));
	if (git_run(&g, args, NULL, 0, &head, &status, &e) == 0 && status == 0 && head.s)
		head.s[strcspn(head.s, "\n")] = '\0';
	if (session_meta_set(s, &e, "applied", head.s && status == 0 ? head.s : "unknown",
	                     "applied_time", now, NULL) < 0)
		log_warn("%s", e.msg);
	sb_free(&tree);
	sb_free(&head);
}

/* Changes to control files (controlfiles.h) land only when the user says so:
 * --accept-flagged, or "y" typed on a terminal after reading them. */
static int refuse_flagged(const struct cli *c, const struct collect *k, struct jail_err *e)
{
	struct strbuf lines = {0};
	size_t n = k->built ? controlfiles_render(&k->cs, &lines) : 0;
	for (size_t i = 0; i < k->n_subs; i++)
		n += k->subs[i].built ? controlfiles_render(&k->subs[i].cs, &lines) : 0;
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
	if (k->built && k->x.is_repo && refuse_dirty(k, e) < 0)
		return -1;
	for (size_t i = 0; i < k->n_subs; i++)
		if (k->subs[i].built && refuse_dirty(&k->subs[i], e) < 0)
			return -1;
	if (write_series(k, s, s->patches, true, e) < 0)
		return -1;
	report(k, s, false);
	if (!any_built(k)) {
		log_info("no changes to apply");
		return 0;
	}
	if (k->patch) {
		if (git_am(s->project, k->patch, c->three_way, e) < 0)
			return -1;
		mark_applied(s, k);
	}
	for (size_t i = 0; i < k->n_subs; i++)
		if (k->subs[i].patch &&
		    git_am(k->subs[i].x.project, k->subs[i].patch, c->three_way, e) < 0)
			return -1;
	log_info("applied; the next export carries only what changes after this");
	return 0;
}

int cmd_apply(struct cli *c) { return run_export_cmd(c, act_apply); }
