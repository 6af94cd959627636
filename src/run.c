/* run.c — `jail [run]`: policy → session → plan → sandbox → export. */
#include "commands.h"
#include "bindcover.h"
#include "cowdirs.h"
#include "etcsnap.h"
#include "gitcreds.h"
#include "git.h"
#include "hide.h"
#include "hints.h"
#include "ignorecache.h"
#include "livesock.h"
#include "hidecache.h"
#include "hidefs.h"
#include "hideobj.h"
#include "log.h"
#include "net.h"
#include "plan.h"
#include "policy.h"
#include "sandbox.h"
#include "session.h"
#include "sysfilter.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <string.h>

static void expand_paths(struct strv *l)
{
	for (size_t i = 0; i < l->n; i++) {
		char *x = expand_home(l->v[i]);
		free(l->v[i]);
		l->v[i] = x;
	}
}

/* The host commit the session started from, for the exporter's base. */
static void record_base(const struct session *s)
{
	_cleanup_free_ char *have = session_meta_get(s, "base");
	if (have)
		return;
	const char *args[] = {"rev-parse", "--verify", "-q", "HEAD", NULL};
	struct git g = {.cwd = s->project};
	struct strbuf out = {0};
	struct jail_err e;
	int status = 0;
	if (git_run(&g, args, NULL, 0, &out, &status, &e) == 0 && status == 0 && out.len >= 40) {
		out.s[strcspn(out.s, "\n")] = '\0';
		if (session_meta_set(s, &e, "base", out.s, NULL) < 0)
			log_warn("%s", e.msg);
	}
	sb_free(&out);
}

/* Repositories inside the project the view shows (a clone in vendor/, a
 * submodule whose .git directory is in its work tree, a git dir under another
 * name: the project's own made with --separate-git-dir inside it, a bare
 * clone) have configs of their own, shown as they are: their credentials are
 * withheld as the project's are.  (With fs.hide_start_only there is no tree: the project's alone.)
 * This runs in the view's server while the jail starts, before the view
 * shows anything (hidefs.c): a copy written now may come too late for the
 * overlay (it may have looked for the directory in the upper layer already),
 * so the view itself shows those paths from the copies (`written`). */
/* Whether `dir` looks like a git directory under another name than .git (a
 * --separate-git-dir the project's .git file names, a bare clone): git's own
 * test, HEAD, objects/ and refs/ side by side, with a config to withhold from. */
static bool git_dir_shaped(const struct hide_node *dir)
{
	const struct hide_node *head = hidetree_find(dir, "HEAD");
	const struct hide_node *objects = hidetree_find(dir, "objects");
	const struct hide_node *refs = hidetree_find(dir, "refs");
	return head && !head->dir && objects && objects->dir && refs && refs->dir &&
	       hidetree_find(dir, "config");
}

static int withhold_nested(const struct session *s, const struct hide_node *n, int depth,
                           struct strv *written, struct jail_err *e)
{
	for (size_t i = 0; i < n->n_kids; i++) {
		const struct hide_node *kid = n->kids[i];
		char path[PATH_MAX];
		if (!kid->dir)
			continue;
		if ((n->parent && !strcmp(kid->name, ".git")) || (!kid->live && git_dir_shaped(kid))) {
			if (hidetree_path(kid, path, sizeof(path)) &&
			    gitcreds_withhold(s->project, s->upper, path, written, e) < 0)
				return -1;
		} else if (!kid->live && depth < HIDETREE_DEPTH &&
		           withhold_nested(s, kid, depth + 1, written, e) < 0) {
			return -1;
		}
	}
	return 0;
}

struct view_ctx {
	const struct jail_config *cfg;
	const struct session *s;
};

/* The names the jail may see (hidetree.h): the project's entries now, less the
 * hidden ones.  Run by the view's server beside the jail's start (hidefs.h).
 * The walk comes before git is asked what it ignores, so a file that appears
 * in between is not in the tree rather than shown unhidden (on a first start
 * git is asked during the walk, and its answer is taken only if no directory
 * changed meanwhile: ignorecache.h). */
static int build_view(void *ctx, int project_fd, struct hide_node **tree, size_t *ignored,
                      struct strv *from_upper, struct strv *withheld, struct jail_err *e)
{
	const struct view_ctx *v = ctx;
	size_t count = 0;
	struct ignore_prefetch *pre = ignore_prefetch_start(v->s);
	_cleanup_free_ char *cache = xasprintf("%s/tree.cache", v->s->dir);
	if (hidecache_build(project_fd, cache, tree, &count, e) < 0) {
		ignore_prefetch_drop(pre);
		return -1;
	}
	log_debug("view: project walked: %zu names", count);
	struct hide_set hidden;
	if (hide_select(v->s, v->cfg, *tree, pre, &hidden, e) < 0 ||
	    hide_apply(v->s, &hidden, false, e) < 0) {
		hide_set_free(&hidden);
		return -1;
	}
	/* their content as git objects, found while the tree still holds them */
	_cleanup_free_ char *ids_cache = xasprintf("%s/withheld.ids", v->s->dir);
	hideobj_collect(project_fd, v->cfg, *tree, &hidden.paths, ids_cache, withheld);
	_cleanup_free_ char *stash_cache = xasprintf("%s/withheld.stash", v->s->dir);
	hideobj_stash(v->s->project, v->cfg, stash_cache, withheld);
	_cleanup_free_ char *drop_cache = xasprintf("%s/withheld.cache", v->s->dir);
	hideobj_drop_shown(v->s->project, drop_cache, &hidden.paths, withheld);
	_cleanup_free_ char *withheld_list = xasprintf("%s/withheld", v->s->dir);
	if (hideobj_save(withheld_list, withheld, e) < 0) {
		hide_set_free(&hidden);
		return -1;
	}
	for (size_t i = 0; i < hidden.paths.n; i++)
		hidetree_drop(*tree, hidden.paths.v[i]);
	log_debug("view: ignored files dropped");
	if (v->cfg->hide_ignored != HIDE_NONE)
		hide_say_start(v->s, &hidden);
	*ignored = hidden.ignored;
	hide_set_free(&hidden);
	return withhold_nested(v->s, *tree, 0, from_upper, e);
}

/* With the view (hidefs.h), its server builds the tree while the jail starts;
 * with fs.hide_start_only, whiteouts hide what is ignored now, before the
 * mount. */
static int hide_project(const struct jail_config *cfg, const struct session *s,
                        struct hidefs *h, struct hide_set *hidden, struct jail_err *e)
{
	if (!cfg->hide_start_only) {
		h->project_fd = open(s->project, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (h->project_fd < 0) {
			int err = errno;
			_cleanup_free_ char *pesc = escape_name(s->project);
			return jail_err_set(e, err, "open the project %s", pesc);
		}
		return 0;
	}
	int r = hide_ignored(s, cfg, NULL, NULL, hidden, e);
	log_debug("ignored files hidden");
	if (r == 0 && cfg->hide_ignored != HIDE_NONE)
		hide_say_start(s, hidden);
	if (r == 0)
		log_warn("hiding is as at start only (fs.hide_start_only): ignored files that "
		         "appear on the host during this run are visible inside");
	return r;
}

static int prepare(struct jail_config *cfg, struct session *s, struct hidefs *h,
                   struct hide_set *hidden, struct jail_err *e)
{
	expand_paths(&cfg->ro_binds);
	expand_paths(&cfg->rw_binds);
	expand_paths(&cfg->cow_binds);
	expand_paths(&cfg->tmpfs);
	expand_paths(&cfg->home_copy);
	if (bindcover_check(cfg, s->project, e) < 0)
		return -1;
	if (session_lock(s, e) < 0 || session_create(s, e) < 0)
		return -1;
	if (cfg->home == HOME_PERSISTENT && mkdir_p(s->home, 0700, e) < 0)
		return -1;
	if (cow_prepare(s, &cfg->cow_binds, &cfg->cow_lowers, e) < 0)
		return -1;
	record_base(s);
	if (gitcreds_withhold(s->project, s->upper, ".git", NULL, e) < 0)
		return -1;
	log_debug("session ready");
	return hide_project(cfg, s, h, hidden, e);
}

/* The hint after a failed command, with the view: the server's selection,
 * when it is final by now (the session's hidden list, the ignored first). */
static void view_hint(const struct session *s, struct hidefs *h)
{
	if (hidefs_built(h, false) != 1 || !h->ignored)
		return;
	_cleanup_free_ char *path = xasprintf("%s/hidden", s->dir);
	_cleanup_free_ char *text = NULL;
	struct jail_err e;
	if (read_file_at(AT_FDCWD, path, 64 << 20, &text, NULL, &e) < 0)
		return;
	struct hide_set set = {0};
	for (char *line = text, *nl; line && *line && set.paths.n < h->ignored; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		strv_push(&set.paths, line);
	}
	set.ignored = set.paths.n;
	hide_hint(s, &set);
	hide_set_free(&set);
}

static int run_jail(struct jail_config *cfg, struct session *s, int *exit_code,
                    struct hidefs *hfs, struct jail_err *e)
{
	struct hide_set hidden = {0};
	struct view_ctx view = {.cfg = cfg, .s = s};
	int r = prepare(cfg, s, hfs, &hidden, e);
	hfs->lock_fd = s->lockfd;
	hfs->build = build_view;
	hfs->build_ctx = &view;
	hfs->live_secret_names = cfg->hide_ignored != HIDE_NONE ? &cfg->secret_names : NULL;
	hfs->upper = s->upper;
	hfs->work = s->work;
	if (r == 0) {
		struct jail_plan plan;
		r = plan_build(&plan, cfg, s, e);
		log_debug("plan built");
		if (r == 0)
			livesock_plan(&plan);
		if (r == 0 && !cfg->hide_start_only) {
			r = hidefs_prepare(hfs, e);
			plan.hidefs = hfs;
			/* a first start's build outlives a short command: the caches */
			_cleanup_free_ char *cache = xasprintf("%s/tree.cache", s->dir);
			hfs->finish = access(cache, F_OK) < 0;
		}
		if (r == 0)
			r = sandbox_run(&plan, exit_code, e);
		/* after the run, off its start: the next run binds it (etcsnap.h) */
		if (r == 0 && !plan.etc_snapshot)
			etcsnap_make(&plan);
		plan_free(&plan);
		/* a failed build or test often failed for want of ignored build output */
		if (r == 0 && *exit_code != 0 && cfg->hide_start_only)
			hide_hint(s, &hidden);
		else if (r == 0 && *exit_code != 0)
			view_hint(s, hfs);
	}
	hide_set_free(&hidden);
	return r;
}

/* "/a/b/" and "/a/b" are one path (no resolving: the flags' own spelling). */
static bool same_path(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	while (la > 1 && a[la - 1] == '/')
		la--;
	while (lb > 1 && b[lb - 1] == '/')
		lb--;
	return la == lb && strncmp(a, b, la) == 0;
}

/* What the command line asks for must exist: a policy file may name optional
 * paths and variables (skipped when absent, as documented), but `--ro PATH` typed
 * by hand with a typo would otherwise vanish without a word. */
static int check_cli_values(const struct cli *c, const struct jail_config *cfg,
                            struct jail_err *e)
{
	const struct { const struct strv *l; const char *flag; } paths[] = {
		{&c->cfg.ro_binds, "--ro"}, {&c->cfg.rw_binds, "--rw"}, {&c->cfg.cow_binds, "--cow"},
		{&c->cfg.home_copy, "--copy"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
		for (size_t j = 0; j < paths[i].l->n; j++) {
			_cleanup_free_ char *p = expand_home(paths[i].l->v[j]);
			struct stat st;
			_cleanup_free_ char *esc = escape_name(p);
			if (stat(p, &st) < 0)
				return jail_err_set(e, 0, "%s %s: %s; name an existing path",
				                    paths[i].flag, esc, strerror(errno));
		}
	/* --tmpfs X with a bind of X: the empty tmpfs covered the bind, whatever
	 * the order */
	for (size_t i = 0; i < ARRAY_SIZE(paths) - 1; i++)
		for (size_t j = 0; j < paths[i].l->n; j++)
			for (size_t t = 0; t < c->cfg.tmpfs.n; t++) {
				_cleanup_free_ char *a = expand_home(paths[i].l->v[j]);
				_cleanup_free_ char *b = expand_home(c->cfg.tmpfs.v[t]);
				if (!same_path(a, b))
					continue;
				_cleanup_free_ char *esc = escape_name(a);
				return jail_err_set(e, 0, "%s and --tmpfs both name '%s'; the tmpfs would "
				                    "cover the bind: give the path once", paths[i].flag, esc);
			}
	/* --hide X --show X: hiding won, silently */
	for (size_t j = 0; j < c->cfg.hide.n; j++)
		if (strv_contains(&c->cfg.show_ignored, c->cfg.hide.v[j])) {
			_cleanup_free_ char *esc = escape_name(c->cfg.hide.v[j]);
			return jail_err_set(e, 0, "--hide %s and --show %s: the path would stay hidden; "
			                    "give one of them", esc, esc);
		}
	for (size_t j = 0; j < c->cfg.env_pass.n; j++)
		if (!getenv(c->cfg.env_pass.v[j])) {
			_cleanup_free_ char *esc = escape_name(c->cfg.env_pass.v[j]);
			return jail_err_set(e, 0, "-e %s: the variable is not set; set it, or use "
			                          "--setenv NAME=VALUE", esc);
		}
	/* (with --net open, host:PORT still opens the host's loopback) */
	if (cli_sets(c, "net.allow") && cfg->net == NET_NONE)
		return jail_err_set(e, 0, "--allow %s does nothing with --net none; add --net allow",
		                    c->cfg.allow.v[0]);
	/* --net open lets everything through: an --allow there is not a limit,
	 * though it reads like one */
	for (size_t j = 0; cfg->net == NET_OPEN && j < c->cfg.allow.n; j++)
		if (strncmp(c->cfg.allow.v[j], "host:", 5) != 0) {
			_cleanup_free_ char *esc = escape_name(c->cfg.allow.v[j]);
			return jail_err_set(e, 0, "--allow %s limits nothing with --net open, which "
			                    "lets every connection out; use --net allow to allow only "
			                    "what --allow names", esc);
		}
	if (cli_sets(c, "net.dns_upstream") && cfg->net == NET_NONE)
		return jail_err_set(e, 0, "--dns-upstream does nothing with --net none (the jail "
		                    "resolves no name); add --net allow");
	return 0;
}

int cmd_run(struct cli *c)
{
	struct jail_err e = {0};
	struct jail_config cfg;
	struct session s = {.lockfd = -1};
	int exit_code = EXIT_JAIL_FAIL;
	log_debug("start");
	if (session_resolve(&s, c->cfg.project, c->cfg.session, &e) < 0) {
		log_error("%s", e.msg);
		return EXIT_JAIL_FAIL;
	}
	if (policy_resolve(c, s.project, &cfg, &e) < 0) {
		log_error("%s", e.msg);
		session_free(&s);
		return EXIT_JAIL_FAIL;
	}
	log_set_quiet(cfg.quiet);
	hint_root();
	hint_keyring_allowed(&cfg);
	/* bad values are refused before anything is created or started */
	if (check_cli_values(c, &cfg, &e) < 0 || sysfilter_check_config(&cfg, &e) < 0 ||
	    net_validate(&cfg, &e) < 0 || (!cfg.hide_start_only && hidefs_usable(&e) < 0)) {
		log_error("%s", e.msg);
		config_free(&cfg);
		session_free(&s);
		return EXIT_JAIL_FAIL;
	}
	struct hidefs hfs = {.jail_sock = -1, .server_sock = -1, .project_fd = -1, .lock_fd = -1,
	                     .built_fd = -1};
	if (run_jail(&cfg, &s, &exit_code, &hfs, &e) < 0) {
		log_error("%s", e.msg);
		exit_code = EXIT_JAIL_FAIL;
	} else if (hfs.pid > 0 && hidefs_built(&hfs, false) < 0) {
		/* the view failed (it said why): what the command read of the project
		 * failed with it, so its own exit says nothing of its work.  (A
		 * command that touched the project waited for the view: it is
		 * known by now; one that did not lost nothing.) */
		exit_code = EXIT_JAIL_FAIL;
		if (!cfg.no_export && export_after_run(&s, &cfg, &hfs, &e) < 0)
			log_error("%s", e.msg);
	} else if (cfg.no_export) {
		session_sync(&s);
	} else if (export_after_run(&s, &cfg, &hfs, &e) < 0) {
		log_error("%s", e.msg);  /* export_after_run says "export: " */
	}
	/* after the export, which may wait for the view's hidden list */
	hidefs_stop(&hfs);
	if (hfs.project_fd >= 0)
		close(hfs.project_fd);
	if (hfs.built_fd >= 0)
		close(hfs.built_fd);
	config_free(&cfg);
	session_free(&s);
	return exit_code;
}
