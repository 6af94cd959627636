/* ignorecache.c — see ignorecache.h.
 *
 * The cache file <session>/ignored.cache is a list of NUL-terminated fields:
 *   "jail-ignore-cache-3" then records of (kind, path, stamp):
 *   kind "s": a stamped path (a directory git walks, an ignore file, the index);
 *   kind "i": an ignored path (stamp empty);
 *   kind "t": when the cache was made (seconds), in the path field.
 * A stamp whose mtime or ctime lies within two seconds of that time is not
 * trusted: a change in the same timestamp tick would leave it equal (git's
 * "racy" case).
 * Stamped paths are relative to the project, or absolute for files outside it. */
#include "ignorecache.h"

#include "git.h"
#include "gitlink.h"
#include "hidecache.h"
#include "log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#define MAGIC "jail-ignore-cache-5"
#define WALK_DEPTH_MAX 256

static void add_record(struct strbuf *b, const char *kind, const char *path, const char *stamp)
{
	sb_append(b, kind, strlen(kind) + 1);
	sb_append(b, path, strlen(path) + 1);
	sb_append(b, stamp, strlen(stamp) + 1);
}

/* The stamp of a file git reads.  Outside the project (the index, the exclude
 * file, the user's config and ignore file) git follows a symlink, and a
 * dotfiles checkout often puts one there: the file it leads to is stamped (a
 * link moved to another file changes the inode).  In the project a
 * .gitignore symlink is not followed by git, nor here. */
static void input_stamp(int proj, const char *path, char out[FILE_STAMP_MAX])
{
	struct stat st;
	if (path[0] != '/')
		file_stamp(proj, path, out);
	else if (stat(path, &st) < 0)
		snprintf(out, FILE_STAMP_MAX, "none");
	else
		stat_stamp(&st, out);
}

static void add_stamped(struct strbuf *b, int proj, const char *path)
{
	char stamp[FILE_STAMP_MAX];
	input_stamp(proj, path, stamp);
	add_record(b, "s", path, stamp);
}

/* Walk the directories git walks (not .git, not ignored ones), stamping each and
 * every .gitignore in them. */
static void walk_dirs(struct strbuf *b, int proj, const char *rel, const struct strv *ign,
                      int depth)
{
	if (depth > WALK_DEPTH_MAX)
		return;
	add_stamped(b, proj, rel);
	DIR *d = opendir_at(proj, rel);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, ".git"))
			continue;
		_cleanup_free_ char *child =
			strcmp(rel, ".") ? xasprintf("%s/%s", rel, n) : xstrdup(n);
		if (de->d_type == DT_DIR && !strv_contains(ign, child))
			walk_dirs(b, proj, child, ign, depth + 1);
		else if (!strcmp(n, ".gitignore"))
			add_stamped(b, proj, child);
	}
	closedir(d);
}

/* The stamp the walk took of node `n` (at `path`), else the file system's now. */
static void node_stamp(const struct hide_node *n, int proj, const char *path,
                       char out[FILE_STAMP_MAX])
{
	if (!n || !n->stamp) {
		input_stamp(proj, path, out);
		return;
	}
	struct stat st = {.st_mtim = n->stamp->mtim, .st_ctim = n->stamp->ctim,
	                  .st_ino = n->stamp->ino, .st_size = n->stamp->size};
	stat_stamp(&st, out);
}

/* The stamp of a path the walk saw (a directory, a .gitignore), else of the
 * file system now. */
static void stamp_of(struct hide_node *tree, int proj, const char *path,
                     char out[FILE_STAMP_MAX])
{
	node_stamp(tree && path[0] != '/' ? hidetree_lookup(tree, path) : NULL, proj, path, out);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* walk_dirs over the tree: the same records, from the stamps the walk took.
 * `ign` is sorted.  A directory the walk did not read (another file system,
 * too deep, unreadable) is walked as git would. */
static void tree_dirs(struct strbuf *b, int proj, struct hide_node *n, const char *rel,
                      char **ign, size_t n_ign, int depth)
{
	if (!n->walked) {
		struct strv list = {.v = ign, .n = n_ign};
		walk_dirs(b, proj, rel, &list, depth);
		return;
	}
	char stamp[FILE_STAMP_MAX];
	node_stamp(n, proj, rel, stamp); /* n is rel's node: no lookup from the root */
	add_record(b, "s", rel, stamp);
	for (size_t i = 0; i < n->n_kids; i++) {
		struct hide_node *kid = n->kids[i];
		if (!strcmp(kid->name, ".git"))
			continue;
		_cleanup_free_ char *child =
			strcmp(rel, ".") ? xasprintf("%s/%s", rel, kid->name) : xstrdup(kid->name);
		const char *key = child;
		if (kid->dir && !bsearch(&key, ign, n_ign, sizeof(*ign), cmp_str)) {
			if (depth < WALK_DEPTH_MAX)
				tree_dirs(b, proj, kid, child, ign, n_ign, depth + 1);
		} else if (!strcmp(kid->name, ".gitignore")) {
			node_stamp(kid, proj, child, stamp);
			add_record(b, "s", child, stamp);
		}
	}
}

/* git's own answer: the untracked files its ignore rules (the project's, and the
 * user's global excludes file) ignore; whole directories as one entry. */
/* git ls-files failed (exit `status`) in `project`: 1 when it is not a git
 * work tree (no ignore rules: nothing to hide), else -1: a repository git
 * cannot read (a corrupt or newer index) has ignored files all the same, and
 * taking it for a project without git would show them. */
static int in_work_tree(const char *project, int status, struct jail_err *e)
{
	struct git g = {.cwd = project};
	const char *args[] = {"rev-parse", "--is-inside-work-tree", NULL};
	struct strbuf b = {0};
	int st = 0;
	if (git_run(&g, args, NULL, 0, &b, &st, e) < 0)
		return -1;
	bool repo = st == 0 && b.s && !strncmp(b.s, "true", 4);
	sb_free(&b);
	_cleanup_free_ char *esc = escape_name(project);
	if (!repo && st != 0) {
		/* git refuses a repository another user owns (safe.directory) with
		 * the same exit as no repository at all: asked again past that check
		 * (rev-parse only; its answer decides nothing but this refusal), a
		 * repository it is, and its ignored files are not known */
		g.config = "safe.directory=*";
		if (git_run(&g, args, NULL, 0, &b, &st, e) < 0)
			return -1;
		repo = st == 0 && b.s && !strncmp(b.s, "true", 4);
		sb_free(&b);
		if (repo)
			return jail_err_set(e, 0, "git refuses to read the repository of %s: it "
			                          "belongs to another user (git's safe.directory "
			                          "check), so what it ignores is not known; run jail "
			                          "as the repository's owner",
			                    esc);
	}
	if (!repo)
		return 1;
	return jail_err_set(e, 0, "git cannot list the ignored files of %s (git ls-files exited "
	                          "with %d), so what to hide is not known; repair the repository "
	                          "(git status says what is wrong)", esc, status);
}

/* The user's core.ignoreCase for hardened git, which reads only the
 * repository's config: true in ~/.gitconfig makes `.env` ignore `.ENV`. */
static const char *ignore_case(const char *project)
{
	return git_ignore_case(project) ? "core.ignoreCase=true" : NULL;
}

static int ask_git(const char *project, struct strv *out, struct jail_err *e)
{
	_cleanup_free_ char *ex = git_excludes_file(project);
	_cleanup_free_ char *cfg = ex ? xasprintf("core.excludesFile=%s", ex) : NULL;
	struct git g = {.cwd = project, .config = cfg, .config2 = ignore_case(project)};
	const char *args[] = {"ls-files", "-z", "--others", "--ignored", "--exclude-standard",
	                      "--directory", NULL};
	struct strbuf b = {0};
	int status = 0;
	if (git_run(&g, args, NULL, 0, &b, &status, e) < 0) {
		sb_free(&b);
		return -1;
	}
	if (status != 0) {
		sb_free(&b);
		return in_work_tree(project, status, e);
	}
	for (size_t i = 0; i < b.len;) {
		char *p = b.s + i;
		size_t n = strlen(p);
		i += n + 1;
		if (n && p[n - 1] == '/')
			p[n - 1] = '\0';
		if (*p && strcmp(p, ".git") != 0)
			strv_push(out, p);
	}
	sb_free(&b);
	return 0;
}

/* The gitlinks of the project's index: into `subs` those whose directory
 * holds a .git (initialised submodules: each a repository of its own, whose
 * ignored files the superproject's git does not list), into `plain` (when not
 * NULL) the others.  `always`: ask git even at a repository's root without
 * .gitmodules (a gitlink needs none). */
static int list_gitlinks(const char *project, int proj, bool always, struct strv *subs,
                         struct strv *plain, struct jail_err *e)
{
	/* a repository's root without .gitmodules has no submodules; a
	 * subdirectory of a repository (no .git of its own) asks: .gitmodules is
	 * at the root */
	struct stat st;
	if (!always && fstatat(proj, ".gitmodules", &st, AT_SYMLINK_NOFOLLOW) < 0 &&
	    fstatat(proj, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	struct git g = {.cwd = project};
	const char *args[] = {"ls-files", "-s", "-z", NULL};
	struct strbuf b = {0};
	int status = 0;
	if (git_run(&g, args, NULL, 0, &b, &status, e) < 0) {
		sb_free(&b);
		return -1;
	}
	for (size_t i = 0; status == 0 && b.s && i < b.len;) {
		const char *rec = b.s + i;
		i += strlen(rec) + 1;
		const char *tab = strchr(rec, '\t');
		if (!tab || strncmp(rec, "160000 ", 7) != 0 || !tab[1])
			continue;
		_cleanup_free_ char *dotgit = xasprintf("%s/.git", tab + 1);
		struct strv *to = fstatat(proj, dotgit, &st, AT_SYMLINK_NOFOLLOW) == 0 ? subs : plain;
		if (to && !strv_contains(to, tab + 1))
			strv_push(to, tab + 1);
	}
	sb_free(&b);
	return 0;
}

/* Repositories inside the project that its index does not know (a clone in
 * vendor/, a tool's checkout; found in the walk's tree): the project's git
 * does not look inside them, their own rules say what is ignored there, as
 * for a submodule. */
static void nested_repos(const struct hide_node *n, int depth, struct strv *out)
{
	for (size_t i = 0; i < n->n_kids; i++) {
		const struct hide_node *kid = n->kids[i];
		char path[PATH_MAX];
		if (n->parent && !strcmp(kid->name, ".git")) {
			if (hidetree_path(n, path, sizeof(path)) && !strv_contains(out, path))
				strv_push(out, path);
		} else if (kid->dir && !kid->live && depth < WALK_DEPTH_MAX) {
			nested_repos(kid, depth + 1, out);
		}
	}
}

/* The ignored files of each initialised submodule, as project paths. */
static int ask_submodules(const char *project, const struct strv *subs, struct strv *out,
                          struct jail_err *e)
{
	for (size_t i = 0; i < subs->n; i++) {
		_cleanup_free_ char *dir = xasprintf("%s/%s", project, subs->v[i]);
		struct strv sub = {0};
		int r = ask_git(dir, &sub, e);
		for (size_t j = 0; r == 0 && j < sub.n; j++)
			strv_push_take(out, xasprintf("%s/%s", subs->v[i], sub.v[j]));
		strv_free(&sub);
		if (r < 0)
			return -1;
	}
	return 0;
}

static char *cache_path(const struct session *s) { return xasprintf("%s/ignored.cache", s->dir); }

struct ignore_prefetch {
	pthread_t thread;
	char *project;
	time_t started;
	struct strv list;
	int r;
	struct jail_err e;
};

static void *prefetch_main(void *arg)
{
	struct ignore_prefetch *p = arg;
	p->r = ask_git(p->project, &p->list, &p->e);
	return NULL;
}

struct ignore_prefetch *ignore_prefetch_start(const struct session *s)
{
	_cleanup_free_ char *path = cache_path(s);
	if (access(path, F_OK) == 0)
		return NULL;
	struct ignore_prefetch *p = xcalloc(1, sizeof(*p));
	p->project = xstrdup(s->project);
	p->started = time(NULL);
	if (pthread_create(&p->thread, NULL, prefetch_main, p) != 0) {
		free(p->project);
		free(p);
		return NULL;
	}
	return p;
}

void ignore_prefetch_drop(struct ignore_prefetch *p)
{
	if (!p)
		return;
	pthread_join(p->thread, NULL);
	strv_free(&p->list);
	free(p->project);
	free(p);
}

/* The prefetched answer when the tree shows nothing changed while git ran:
 * 0 or 1 as ask_git, -1 with *e; 2 when it cannot be used. */
static int prefetch_take(struct ignore_prefetch *p, int proj, struct hide_node *tree,
                         struct strv *out, struct jail_err *e)
{
	pthread_join(p->thread, NULL);
	bool changed = true;
	size_t n = 0;
	if (p->r >= 0 && tree) {
		changed = false;
		hidecache_refresh(proj, tree, p->started, &n, &changed);
	}
	int r = 2;
	if (!changed && p->r >= 0) {
		r = p->r;
		*out = p->list;
		p->list = (struct strv){0};
	} else if (p->r < 0 && !changed) {
		*e = p->e;
		r = -1;
	}
	log_debug("ignore cache: git asked during the walk%s", r == 2 ? ", asked again" : "");
	strv_free(&p->list);
	free(p->project);
	free(p);
	return r;
}

/* Whether a stamp (util.h) lies within two seconds of `made`, by its mtime or
 * its ctime ("none" never does). */
static bool racy(const char *stamp, long long made)
{
	const char *ctime = strchr(stamp, ':');
	return atoll(stamp) >= made - 2 || (ctime && atoll(ctime + 1) >= made - 2);
}

/* 0 and *out filled when every stamp still matches; -1 otherwise. */
static int cache_load(const struct session *s, struct hide_node *tree, int proj,
                      struct strv *out)
{
	_cleanup_free_ char *path = cache_path(s);
	_cleanup_free_ char *data = NULL;
	size_t len;
	struct jail_err e;
	if (read_file_at(AT_FDCWD, path, 256 << 20, &data, &len, &e) < 0)
		return -1;
	if (len < sizeof(MAGIC) || memcmp(data, MAGIC, sizeof(MAGIC)) != 0 || data[len - 1])
		return -1;
	struct strv got = {0};
	long long made = 0;
	for (size_t i = sizeof(MAGIC); i < len;) {
		const char *kind = data + i, *p, *stamp;
		i += strlen(kind) + 1;
		p = data + (i < len ? i : len - 1);
		i += strlen(p) + 1;
		stamp = data + (i < len ? i : len - 1);
		i += strlen(stamp) + 1;
		char now[FILE_STAMP_MAX];
		if (kind[0] == 'i') {
			strv_push(&got, p);
			continue;
		}
		if (kind[0] == 't') {
			made = atoll(p);
			continue;
		}
		stamp_of(tree, proj, p, now);
		if (strcmp(now, stamp) != 0 || racy(stamp, made)) {
			log_debug("ignore cache: '%s' changed", p);
			strv_free(&got);
			return -1;
		}
	}
	*out = got;
	return 0;
}

/* The stamped records of everything the answer `ign` depends on. */
static void add_inputs(struct strbuf *b, const struct session *s, struct hide_node *tree,
                       int proj, const struct gitlink *gl, const struct strv *ign)
{
	/* the user's ignore settings: the config files (the system's too), the default ignore file
	 * (stamped even while absent: creating it changes the answer) and the one
	 * the config names */
	struct git_user_paths u;
	git_user_paths(&u);
	_cleanup_free_ char *excl = git_excludes_file(s->project);
	/* the repository's own: a linked worktree keeps its index and HEAD in its
	 * git dir, the exclude file in the common dir (absolute paths, outside);
	 * its config may name an ignore file of its own */
	_cleanup_free_ char *index = xasprintf("%s/index", gl->git_dir);
	_cleanup_free_ char *head = xasprintf("%s/HEAD", gl->git_dir);
	_cleanup_free_ char *exclude = xasprintf("%s/info/exclude", gl->common_dir);
	_cleanup_free_ char *config = xasprintf("%s/config", gl->common_dir);
	_cleanup_free_ char *wt_config = xasprintf("%s/config.worktree", gl->git_dir);
	const char *files[] = {index,        exclude,     head,      config,
	                       wt_config,    u.home_config, u.xdg_config, u.xdg_ignore,
	                       excl ? excl : u.xdg_ignore,
	                       u.system_config ? u.system_config : u.xdg_ignore};
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		add_stamped(b, proj, files[i]);
	git_user_paths_free(&u);
	if (tree) {
		_cleanup_free_ char **sorted = xcalloc(ign->n + 1, sizeof(char *));
		memcpy(sorted, ign->v, ign->n * sizeof(char *));
		qsort(sorted, ign->n, sizeof(char *), cmp_str);
		tree_dirs(b, proj, tree, ".", sorted, ign->n, 0);
	} else {
		walk_dirs(b, proj, ".", ign, 0);
	}
}

/* The cache: `inputs` (add_inputs' records for the answer `ign`), then `ign`. */
static void cache_store(const struct session *s, const struct strbuf *inputs,
                        const struct strv *ign)
{
	struct strbuf b = {0};
	sb_append(&b, MAGIC, sizeof(MAGIC));
	char made[32];
	snprintf(made, sizeof(made), "%lld", (long long)time(NULL));
	add_record(&b, "t", made, "");
	if (inputs->len)
		sb_append(&b, inputs->s, inputs->len);
	for (size_t i = 0; i < ign->n; i++)
		add_record(&b, "i", ign->v[i], "");
	_cleanup_free_ char *path = cache_path(s);
	struct jail_err e;
	if (replace_file(path, b.s, b.len, 0600, &e) < 0)
		log_warn("cannot write the ignore cache: %s", e.msg);
	sb_free(&b);
}

/* Whether no input (add_inputs' records) changed since `since` (two seconds of
 * slack, as the cache has): an ignore file, the index or a config edited in
 * place while git ran leaves every directory's stamp as it was. */
static bool inputs_settled(const struct strbuf *inputs, time_t since)
{
	bool settled = true;
	for (size_t i = 0; settled && i < inputs->len;) {
		const char *path = inputs->s + i + 2, *stamp = path + strlen(path) + 1;
		settled = !racy(stamp, since);
		if (!settled)
			log_debug("ignore cache: '%s' changed while git ran", path);
		i = (size_t)(stamp + strlen(stamp) + 1 - inputs->s);
	}
	return settled;
}

/* Whether the config files the ignore answer depends on are all stamped: one
 * that includes others (core.excludesFile may be set in those) is not kept
 * in the cache; git is asked each run. */
static bool config_known(const struct gitlink *gl)
{
	struct git_user_paths u;
	git_user_paths(&u);
	_cleanup_free_ char *config = xasprintf("%s/config", gl->common_dir);
	_cleanup_free_ char *wt_config = xasprintf("%s/config.worktree", gl->git_dir);
	const char *files[] = {u.home_config, u.xdg_config, config, wt_config,
	                       u.system_config ? u.system_config : config};
	bool known = !getenv("GIT_CONFIG_GLOBAL"); /* a file of the user's choice: not stamped */
	for (size_t i = 0; i < ARRAY_SIZE(files) && known; i++)
		known = !git_config_has_includes(files[i]);
	git_user_paths_free(&u);
	if (!known)
		log_debug("ignore cache: a git config file includes others; not cached");
	return known;
}

/* Is `path` or a directory above it in `list`? */
static bool covered_by(const struct strv *list, const char *path)
{
	_cleanup_free_ char *p = xstrdup(path);
	for (char *slash = p + strlen(p); slash; slash = strrchr(p, '/')) {
		*slash = '\0';
		if (strv_contains(list, p))
			return true;
	}
	return false;
}

/* The nested repositories (not submodules) outside what `ign` hides whole:
 * asked at every start, each a git run, beside the cached answer. */
static int ask_nested(const struct session *s, const struct strv *nested, struct strv *ign,
                      struct jail_err *e)
{
	struct strv left = {0};
	for (size_t i = 0; i < nested->n; i++)
		if (!covered_by(ign, nested->v[i]))
			strv_push(&left, nested->v[i]);
	int r = ask_submodules(s->project, &left, ign, e);
	strv_free(&left);
	return r;
}

/* Every path below `n` (whose path is `rel`), NUL-terminated, for
 * check-ignore: not a .git (git's internals are never ignored). */
static void list_below(const struct hide_node *n, const char *rel, int depth, struct strbuf *b)
{
	for (size_t i = 0; depth < WALK_DEPTH_MAX && i < n->n_kids; i++) {
		const struct hide_node *kid = n->kids[i];
		if (!strcmp(kid->name, ".git"))
			continue;
		_cleanup_free_ char *p = xasprintf("%s/%s", rel, kid->name);
		sb_append(b, p, strlen(p) + 1);
		if (kid->dir)
			list_below(kid, p, depth + 1, b);
	}
}

/* git check-ignore in the project, with the user's excludes file and case
 * rule, of the NUL-ended paths in `in` (--no-index where no_index): the
 * paths its rules ignore into *out.  `unknown` says what is not known when
 * git fails, which fails the start. */
static int check_ignore(const char *project, const struct strbuf *in, bool no_index,
                        const char *unknown, struct strbuf *out, struct jail_err *e)
{
	_cleanup_free_ char *ex = git_excludes_file(project);
	_cleanup_free_ char *cfg = ex ? xasprintf("core.excludesFile=%s", ex) : NULL;
	struct git g = {.cwd = project, .config = cfg, .config2 = ignore_case(project)};
	const char *args[] = {"check-ignore", "--stdin", "-z", no_index ? "--no-index" : NULL, NULL};
	int status = 0;
	int r = git_run(&g, args, in->s, in->len, out, &status, e);
	if (r == 0 && status != 0 && status != 1) {
		_cleanup_free_ char *esc = escape_name(project);
		return jail_err_set(e, 0, "git check-ignore exited with %d in %s, so what its rules "
		                          "hide %s is not known; repair the repository (git status "
		                          "says what is wrong)",
		                    status, esc, unknown);
	}
	if (r == 0 && status == 1)
		out->len = 0;  /* nothing ignored */
	return r;
}

/* The project's own rules inside its submodules and nested repositories: git
 * does not walk into another repository, so `.env` in the project's
 * .gitignore leaves sub/.env untouched by both answers above (the inner
 * repository's rules may not name it).  But the path is the project's, and
 * its rules ignore it (git check-ignore says so): asked here, path by path,
 * of the names the walk found in them (--no-index: a path in a submodule is
 * answered, not refused).  A failing git fails the start. */
static int ask_project_rules(const char *project, struct hide_node *tree,
                             const struct strv *repos, struct strv *out, struct jail_err *e)
{
	struct strbuf in = {0};
	for (size_t i = 0; tree && i < repos->n; i++) {
		const struct hide_node *n = hidetree_lookup(tree, repos->v[i]);
		if (n && !covered_by(out, repos->v[i]))
			list_below(n, repos->v[i], 0, &in);
	}
	if (!in.len)
		return 0;
	struct strbuf b = {0};
	int r = check_ignore(project, &in, true, "in its nested repositories", &b, e);
	sb_free(&in);
	for (size_t i = 0; r == 0 && i < b.len;) {
		const char *p = b.s + i;
		i += strlen(p) + 1;
		if (*p && !covered_by(out, p))
			strv_push(out, p);
	}
	sb_free(&b);
	return r;
}

/* The path `rel` of node n (NUL-ended, a directory's with a '/': git's
 * rules for directories hold whether it is there or not) into b, and with
 * `below` all under it; not a repository's inside (their own git answers,
 * asked after this), nor a gitlink's (`links`: git refuses to judge a path
 * in a submodule; the project's rules are asked there after this). */
static void judge_input(struct strbuf *b, const struct hide_node *n, const char *rel, bool below,
                        const struct strv *links, int depth)
{
	if (!strcmp(n->name, ".git") || hidetree_find(n, ".git") || strv_contains(links, rel))
		return;
	sb_printf(b, "%s%s", rel, n->dir ? "/" : "");
	sb_append(b, "", 1);
	for (size_t i = 0; below && n->dir && depth < WALK_DEPTH_MAX && i < n->n_kids; i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", rel, n->kids[i]->name);
		judge_input(b, n->kids[i], p, true, links, depth + 1);
	}
}

/* Whether n is a repository's inside, or its top: another git answers for
 * it (the project's root is not). */
static bool in_repo(const struct hide_node *n)
{
	for (; n && n->parent; n = n->parent)
		if (hidetree_find(n, ".git"))
			return true;
	return false;
}

/* git listed what it ignores while the walk's names could change: a name
 * that was gone while git looked (a build's `rm -rf dist` and new dist/, an
 * .env written anew) is in the tree but not in git's answer, and would be
 * shown when it comes back.  So the tree is brought up to date with what
 * changed since git was asked (`asked`), and each name of what was read
 * again is judged by the rules alone (`git check-ignore`, which does not
 * look whether a path is there), as the view will serve it. */
static int judge_changed(const char *project, int proj, struct hide_node *tree, time_t asked,
                         struct strv *out, struct jail_err *e)
{
	struct strv reread = {0}, fresh = {0};
	bool changed = false;
	size_t count = 0;
	hidecache_refresh_list(proj, tree, asked, &count, &changed, &reread, &fresh);
	struct strv links = {0};
	if (reread.n && list_gitlinks(project, proj, true, &links, &links, e) < 0) {
		strv_free(&reread);
		strv_free(&fresh);
		return -1;
	}
	struct strbuf in = {0};
	for (size_t i = 0; i < reread.n; i++) {
		const char *d = reread.v[i];
		const struct hide_node *n = hidetree_lookup(tree, d[0] ? d : ".");
		if (!n || (d[0] && (covered_by(out, d) || covered_by(&links, d))) || in_repo(n))
			continue;
		for (size_t k = 0; k < n->n_kids; k++) {
			_cleanup_free_ char *p = d[0] ? xasprintf("%s/%s", d, n->kids[k]->name)
			                               : xstrdup(n->kids[k]->name);
			judge_input(&in, n->kids[k], p, strv_contains(&fresh, p), &links, 0);
		}
	}
	strv_free(&reread);
	strv_free(&fresh);
	strv_free(&links);
	if (!in.len)
		return 0;
	struct strbuf b = {0};
	int r = check_ignore(project, &in, false, "of what changed while it listed", &b, e);
	sb_free(&in);
	for (size_t i = 0; r == 0 && i < b.len;) {
		char *p = b.s + i;
		size_t n = strlen(p);
		i += n + 1;
		if (n && p[n - 1] == '/')
			p[n - 1] = '\0';
		if (*p && !covered_by(out, p) && !strv_contains(out, p))
			strv_push(out, p);
	}
	sb_free(&b);
	log_debug("ignore: %s since git was asked", changed ? "names judged again" : "nothing changed");
	return r;
}

/* A gitlink whose directory is not a repository (a submodule's checkout
 * replaced by a copy, a clone whose .git was removed after `git add`): the
 * project's git lists nothing in it, ignored or not, and there is no other
 * git to ask, but the project's rules hold there (`.env` hides lib/.env, as
 * `git check-ignore --no-index` says).  Asked when git is, and kept in the
 * cache with its answer: the index and the directories are stamped there. */
static int ask_plain_gitlinks(const char *project, int proj, struct hide_node *tree,
                              struct strv *out, struct jail_err *e)
{
	struct strv plain = {0};
	int r = list_gitlinks(project, proj, true, NULL, &plain, e);
	if (r == 0)
		r = ask_project_rules(project, tree, &plain, out, e);
	strv_free(&plain);
	return r;
}

int ignored_paths(const struct session *s, struct hide_node *tree,
                  struct ignore_prefetch *pre, struct strv *out, struct jail_err *e)
{
	_cleanup_close_ int proj = open(s->project, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (proj < 0) {
		int err = errno;
		_cleanup_free_ char *pesc = escape_name(s->project);
		ignore_prefetch_drop(pre);
		return jail_err_set(e, err, "open '%s'", pesc);
	}
	/* a repository's root: a .git directory, or a worktree's gitdir file */
	struct gitlink gl;
	struct jail_err ignored;
	struct strv subs = {0}, nested = {0};
	bool have_gl = gitlink_read(s->project, &gl, &ignored) == 0;
	/* submodules keep their own indexes and excludes: not cached */
	if (list_gitlinks(s->project, proj, false, &subs, NULL, e) < 0) {
		if (have_gl)
			gitlink_free(&gl);
		ignore_prefetch_drop(pre);
		return -1;
	}
	/* nor are other repositories inside the project: they are asked apart */
	struct strv found = {0};
	if (tree)
		nested_repos(tree, 0, &found);
	for (size_t i = 0; i < found.n; i++)
		if (!strv_contains(&subs, found.v[i]))
			strv_push(&nested, found.v[i]);
	strv_free(&found);
	bool cacheable = have_gl && !subs.n && config_known(&gl);
	int r = 2;
	if (cacheable && cache_load(s, tree, proj, out) == 0) {
		ignore_prefetch_drop(pre);
		r = 0;
	} else {
		time_t since = pre ? pre->started : 0;
		r = pre ? prefetch_take(pre, proj, tree, out, e) : 2;
		/* the records of what the answer depends on: made once, for the
		 * check below and for the cache */
		struct strbuf inputs = {0};
		if (r == 0 && have_gl)
			add_inputs(&inputs, s, tree, proj, &gl, out);
		/* the answer of git run beside the walk, only when nothing it read was
		 * edited meanwhile (the directories were checked by prefetch_take) */
		if (r == 0 && !(have_gl && inputs_settled(&inputs, since))) {
			strv_free(out);
			sb_free(&inputs);
			r = 2;
		}
		if (r == 2) {
			time_t asked = time(NULL);
			r = ask_git(s->project, out, e);
			if (r == 0 && cacheable)
				add_inputs(&inputs, s, tree, proj, &gl, out);
			if (r == 0 && tree && judge_changed(s->project, proj, tree, asked, out, e) < 0)
				r = -1;
		}
		/* (a cacheable project has no submodules: they leave `out` as it is) */
		if (r == 0 && ask_submodules(s->project, &subs, out, e) < 0)
			r = -1;
		if (r == 0 && ask_plain_gitlinks(s->project, proj, tree, out, e) < 0)
			r = -1;
		if (r == 0 && cacheable)
			cache_store(s, &inputs, out);
		sb_free(&inputs);
	}
	/* also in a project that is no repository: the repositories in it have
	 * their rules (a folder holding api/ and web/, each a clone) */
	if ((r == 0 || r == 1) && ask_nested(s, &nested, out, e) < 0)
		r = -1;
	if (r == 0 && (ask_project_rules(s->project, tree, &subs, out, e) < 0 ||
	               ask_project_rules(s->project, tree, &nested, out, e) < 0))
		r = -1;
	strv_free(&subs);
	strv_free(&nested);
	if (have_gl)
		gitlink_free(&gl);
	return r;
}
