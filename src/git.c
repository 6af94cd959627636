/* git.c — run host-side git with an argv array and a hardened environment. */
#include "git.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

/* Config that neutralises everything a repository's config could make git run
 * or load: hooks, fsmonitor, pagers, attributes files, external diff drivers,
 * automatic gc/maintenance, protocols.  Command-line config wins over the
 * repository's own. */
static const char *const hardening[] = {
	"core.hooksPath=/dev/null",   "core.fsmonitor=false",
	"core.untrackedCache=false",  "core.pager=cat",
	"core.attributesFile=/dev/null", "core.autocrlf=false",
	"core.safecrlf=false",        "core.quotePath=false",
	"core.splitIndex=false",      "diff.external=",
	"diff.noprefix=false",        "diff.mnemonicPrefix=false",
	"diff.renames=false",         "diff.relative=false",
	"gc.auto=0",                  "maintenance.auto=false",
	"protocol.allow=never",       "color.ui=false",
	"format.coverLetter=false",
	"i18n.logOutputEncoding=UTF-8",
};

void git_argv_prefix(struct strv *argv)
{
	strv_push(argv, "git");
	strv_push(argv, "--no-pager");
	strv_push(argv, "--no-replace-objects");
	for (size_t i = 0; i < ARRAY_SIZE(hardening); i++) {
		strv_push(argv, "-c");
		strv_push(argv, hardening[i]);
	}
}

/* A variable of git_env's fixed ones that says which config files git
 * reads: the user's own instead with struct git's user_config (a variable
 * given twice is the first one for getenv). */
static bool user_config_var(const char *entry)
{
	return !strncmp(entry, "HOME=", 5) || !strncmp(entry, "XDG_CONFIG_HOME=", 16) ||
	       !strncmp(entry, "GIT_CONFIG_", 11);
}

/* The user's config files as the user's git finds them (struct git's
 * user_config): HOME and XDG_CONFIG_HOME, and the user's own choice of
 * files. */
static void user_config_env(struct strv *env)
{
	strv_push_take(env, xasprintf("HOME=%s", home_dir()));
	const char *xdg = getenv("XDG_CONFIG_HOME");
	strv_push_take(env, xdg && *xdg == '/' ? xasprintf("XDG_CONFIG_HOME=%s", xdg)
	                                      : xasprintf("XDG_CONFIG_HOME=%s/.config", home_dir()));
	static const char *const keep[] = {"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
	                                   "GIT_CONFIG_NOSYSTEM"};
	for (size_t i = 0; i < ARRAY_SIZE(keep); i++) {
		const char *v = getenv(keep[i]);
		if (v)
			strv_push_take(env, xasprintf("%s=%s", keep[i], v));
	}
}

void git_env(const struct git *g, struct strv *env)
{
	const char *path = getenv("PATH");
	strv_push_take(env, xasprintf("PATH=%s", path && *path ? path : "/usr/bin:/bin"));
	static const char *const fixed[] = {
		"HOME=/nonexistent",          "XDG_CONFIG_HOME=/nonexistent",
		"GIT_CONFIG_NOSYSTEM=1",      "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_ATTR_NOSYSTEM=1",        "GIT_TERMINAL_PROMPT=0",
		"GIT_PAGER=cat",              "PAGER=cat",
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_NO_REPLACE_OBJECTS=1",   "GIT_EDITOR=false",
		"GIT_ASKPASS=false",          "GIT_SSH_COMMAND=false",
		"LC_ALL=C",                   "TZ=UTC",
		/* keep freed memory instead of handing it back at once: git's
		 * per-object buffers otherwise cost a brk/mmap and page faults each
		 * (fast-import of 2,000 files spent most of its time in the kernel) */
		"GLIBC_TUNABLES=glibc.malloc.trim_threshold=268435456:"
		"glibc.malloc.top_pad=67108864:glibc.malloc.mmap_threshold=33554432",
	};
	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		if (!g->user_config || !user_config_var(fixed[i]))
			strv_push(env, fixed[i]);
	if (g->user_config)
		user_config_env(env);
	if (g->literal_pathspecs)
		strv_push(env, "GIT_LITERAL_PATHSPECS=1");
	if (g->git_dir)
		strv_push_take(env, xasprintf("GIT_DIR=%s", g->git_dir));
	if (g->work_tree)
		strv_push_take(env, xasprintf("GIT_WORK_TREE=%s", g->work_tree));
	if (g->index_file)
		strv_push_take(env, xasprintf("GIT_INDEX_FILE=%s", g->index_file));
}

/* Spawn git with stdin/stdout/stderr on the given fds; every other fd closed. */
static int git_spawn(const struct git *g, char *const *argv, char *const *envp, int fds[3],
                     pid_t *pid, struct jail_err *e)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	if (posix_spawn_file_actions_init(&fa) != 0 || posix_spawnattr_init(&at) != 0)
		return jail_err_sys(e, "start git");
	int r = 0;
	for (int i = 0; i < 3 && r == 0; i++)
		r = posix_spawn_file_actions_adddup2(&fa, fds[i], i);
	if (r == 0 && g->cwd)
		r = posix_spawn_file_actions_addchdir_np(&fa, g->cwd);
	if (r == 0)
		r = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	sigset_t none, def;
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	if (r == 0)
		r = posix_spawnattr_setsigmask(&at, &none);
	if (r == 0)
		r = posix_spawnattr_setsigdefault(&at, &def);
	if (r == 0)
		r = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	if (r == 0)
		r = posix_spawnp(pid, "git", &fa, &at, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (r != 0)
		return jail_err_set(e, r, "run git%s", r == ENOENT ? " (is git installed?)" : "");
	return 0;
}

#define FEED_CHUNK 65536

static int pump_read(int *fd, struct git_proc *p)
{
	char chunk[65536];
	ssize_t r = read(*fd, chunk, sizeof(chunk));
	if (r < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -1;
	if (r == 0) {
		close(*fd);
		*fd = -1;
		return 0;
	}
	if (fd == &p->err)
		sb_append(&p->errbuf, chunk, (size_t)r);
	else if (p->on_out)
		return p->on_out(p->ctx, chunk, (size_t)r);
	else if (p->out_buf)
		sb_append(p->out_buf, chunk, (size_t)r);
	return 0;
}

#define PUMP_MAX 4  /* a process and the chain of its also's */

/* The stdout and stderr of p and its also's, two pollfds each (pump_run and
 * git_drain poll the same set); returns how many processes. */
static size_t pump_fds(struct git_proc *p, struct git_proc *v[PUMP_MAX], struct pollfd *pf)
{
	size_t n = 0;
	for (struct git_proc *o = p; o && n < PUMP_MAX; o = o->also, n++) {
		v[n] = o;
		pf[2 * n] = (struct pollfd){o->out, POLLIN, 0};
		pf[2 * n + 1] = (struct pollfd){o->err, POLLIN, 0};
	}
	return n;
}

/* Read what poll found ready in pump_fds's set. */
static int pump_ready(struct git_proc *v[], size_t n, const struct pollfd *pf, struct jail_err *e)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i]->out >= 0 && pf[2 * i].revents && pump_read(&v[i]->out, v[i]) < 0)
			return jail_err_sys(e, "read git output");
		if (v[i]->err >= 0 && pf[2 * i + 1].revents && pump_read(&v[i]->err, v[i]) < 0)
			return jail_err_sys(e, "read git errors");
	}
	return 0;
}

/* Feed the pending input and drain stdout/stderr at once: git may answer before
 * it has read all its input (fast-import, check-ignore), so sequential I/O could
 * deadlock.  last: then close stdin and read until git closes its ends.  The
 * processes p->also, p->also->also ... are read meanwhile. */
static int pump_run(struct git_proc *p, bool last, struct jail_err *e)
{
	for (;;) {
		bool feeding = p->in >= 0 && p->off < p->pending.len;
		if (last && !feeding && p->in >= 0)
			closep(&p->in);
		if (!feeding && !(last && (p->out >= 0 || p->err >= 0)))
			return 0;
		struct git_proc *v[PUMP_MAX];
		struct pollfd pf[1 + 2 * PUMP_MAX];
		pf[0] = (struct pollfd){feeding ? p->in : -1, POLLOUT, 0};
		size_t n = pump_fds(p, v, pf + 1);
		if (poll(pf, 1 + 2 * n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return jail_err_sys(e, "poll git pipes");
		}
		if (feeding && (pf[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t w = write(p->in, p->pending.s + p->off, p->pending.len - p->off);
			if (w > 0)
				p->off += (size_t)w;
			else if (w < 0 && errno != EINTR && errno != EAGAIN)
				closep(&p->in);  /* git closed its stdin early: its exit status tells */
		}
		if (pump_ready(v, n, pf + 1, e) < 0)
			return -1;
	}
}

int git_drain(struct git_proc *p, struct jail_err *e)
{
	for (int rounds = 0; rounds < 64; rounds++) {  /* then back to the caller's work */
		struct git_proc *v[PUMP_MAX];
		struct pollfd pf[2 * PUMP_MAX];
		size_t n = pump_fds(p, v, pf);
		int k = poll(pf, 2 * n, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return jail_err_sys(e, "poll git pipes");
		if (k == 0)
			return 0;
		if (pump_ready(v, n, pf, e) < 0)
			return -1;
	}
	return 0;
}

static int git_wait(struct git_proc *p, int *status, struct jail_err *e)
{
	int ws;
	while (waitpid(p->pid, &ws, 0) < 0)
		if (errno != EINTR)
			return jail_err_sys(e, "wait for git %s", p->sub);
	int code = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	if (status) {
		*status = code;
		return 0;
	}
	if (code == 0)
		return 0;
	if (WIFSIGNALED(ws) && (WTERMSIG(ws) == SIGXCPU || WTERMSIG(ws) == SIGKILL))
		return jail_err_set(e, 0, "git %s was stopped (signal %d): out of its CPU time, or "
		                          "killed", p->sub, WTERMSIG(ws));
	/* its first line; a git killed by a signal may have said nothing */
	const char *msg = p->errbuf.s ? p->errbuf.s : "";
	_cleanup_free_ char *first = xasprintf("%.*s", (int)strcspn(msg, "\n"), msg);
	_cleanup_free_ char *esc = escape_name(first);
	return jail_err_set(e, 0, "git %s failed (exit %d)%s%s", p->sub, code, *esc ? ": " : "", esc);
}

static void proc_release(struct git_proc *p)
{
	closep(&p->in), closep(&p->out), closep(&p->err);
	sb_free(&p->errbuf);
	sb_free(&p->pending);
	free(p->sub);
	p->sub = NULL;
	p->pid = -1;
}

/* out_fd >= 0: git's stdout goes there directly, nothing passes through us. */
static int proc_start(const struct git *g, const char *const *args, int out_fd,
                      struct git_proc *p, struct jail_err *e)
{
	struct strv argv = {0}, env = {0};
	git_argv_prefix(&argv);
	const char *more[] = {g->config, g->config2};
	for (size_t i = 0; i < ARRAY_SIZE(more); i++) {
		if (more[i]) {
			strv_push(&argv, "-c");
			strv_push(&argv, more[i]);
		}
	}
	for (size_t i = 0; args[i]; i++)
		strv_push(&argv, args[i]);
	git_env(g, &env);
	p->in = p->out = p->err = -1;
	p->pid = -1;
	p->sub = xstrdup(args[0]);
	int pin[2] = {-1, -1}, pout[2] = {-1, -1}, perr[2] = {-1, -1};
	int r = -1;
	if (pipe2(pin, O_CLOEXEC) < 0 || (out_fd < 0 && pipe2(pout, O_CLOEXEC) < 0) ||
	    pipe2(perr, O_CLOEXEC) < 0) {
		jail_err_sys(e, "create pipes for git");
		goto done;
	}
	int child[3] = {pin[0], out_fd >= 0 ? out_fd : pout[1], perr[1]};
	if (git_spawn(g, argv.v, env.v, child, &p->pid, e) < 0)
		goto done;
	/* set from here, a moment after the start: a CPU budget, not a race;
	 * a stricter one jail was started with stays (it cannot be raised) */
	struct rlimit cpu = {g->cpu_seconds, g->cpu_seconds + 5}, own;
	bool lower = g->cpu_seconds && getrlimit(RLIMIT_CPU, &own) == 0 &&
	             (own.rlim_max == RLIM_INFINITY || own.rlim_max >= cpu.rlim_max);
	if (lower && prlimit(p->pid, RLIMIT_CPU, &cpu, NULL) < 0 && errno != ESRCH) {
		jail_err_sys(e, "limit the CPU time of git %s", args[0]);
		kill(p->pid, SIGKILL);
		goto done;
	}
	p->in = steal_fd(&pin[1]), p->out = steal_fd(&pout[0]), p->err = steal_fd(&perr[0]);
	/* non-blocking stdin: poll says when it takes more */
	int fl = fcntl(p->in, F_GETFL);
	r = fl < 0 || fcntl(p->in, F_SETFL, fl | O_NONBLOCK) < 0
	            ? jail_err_sys(e, "set git stdin non-blocking")
	            : 0;
done:
	for (int i = 0; i < 2; i++) {
		closep(&pin[i]), closep(&pout[i]), closep(&perr[i]);
	}
	strv_free(&argv);
	strv_free(&env);
	if (r < 0) {
		pid_t pid = p->pid;
		proc_release(p);  /* git reads EOF and ends; reap it */
		int ws;
		while (pid > 0 && waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
		}
	}
	return r;
}

int git_start(const struct git *g, const char *const *args, struct git_proc *p,
              struct jail_err *e)
{
	struct git_proc keep = *p;
	memset(p, 0, sizeof(*p));
	p->out_buf = keep.out_buf, p->on_out = keep.on_out, p->ctx = keep.ctx;
	p->also = keep.also;
	return proc_start(g, args, -1, p, e);
}

/* Write out what is pending, with EPIPE instead of SIGPIPE if git stops
 * reading.  The signal is blocked in this thread only (a write's SIGPIPE goes
 * to the thread that wrote), and one it raised is taken off before the mask
 * comes back: changing the process's disposition would race with git run
 * from another thread (ignorecache.h's prefetch). */
static int proc_flush(struct git_proc *p, bool last, struct jail_err *e)
{
	sigset_t pipe_set, old;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	int r = pump_run(p, last, e);
	sigset_t pending;
	if (!sigismember(&old, SIGPIPE) && sigpending(&pending) == 0 &&
	    sigismember(&pending, SIGPIPE)) {
		int saved = errno;
		while (sigtimedwait(&pipe_set, NULL, &(struct timespec){0}) < 0 && errno == EINTR) {
		}
		errno = saved;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	p->pending.len = 0;
	p->off = 0;
	return r;
}

int git_feed(struct git_proc *p, const char *data, size_t n, struct jail_err *e)
{
	sb_append(&p->pending, data, n);
	return p->pending.len >= FEED_CHUNK ? proc_flush(p, false, e) : 0;
}

int git_close_input(struct git_proc *p, struct jail_err *e)
{
	int r = proc_flush(p, false, e);
	closep(&p->in);
	return r;
}

int git_finish(struct git_proc *p, int *status, struct jail_err *e)
{
	int r = proc_flush(p, true, e);
	closep(&p->in), closep(&p->out), closep(&p->err);
	int w = p->pid > 0 ? git_wait(p, status, e) : -1;
	proc_release(p);
	return r < 0 || w < 0 ? -1 : 0;
}

void git_abort(struct git_proc *p)
{
	if (p->pid <= 0)
		return;
	struct jail_err ignored;
	closep(&p->in);  /* EOF: git ends (fast-import without "done" fails, as it should) */
	(void)proc_flush(p, true, &ignored);
	(void)git_wait(p, &(int){0}, &ignored);
	proc_release(p);
}

int git_run(const struct git *g, const char *const *args, const char *in, size_t in_len,
            struct strbuf *out, int *status, struct jail_err *e)
{
	struct git_proc p = {.out_buf = out};
	if (git_start(g, args, &p, e) < 0)
		return -1;
	/* one flush for the whole input: no copy of it */
	struct strbuf whole = {.s = (char *)(uintptr_t)(in ? in : ""), .len = in ? in_len : 0};
	p.pending = whole;
	int r = proc_flush(&p, true, e);
	p.pending = (struct strbuf){0};
	int w = git_finish(&p, status, e);
	return r < 0 || w < 0 ? -1 : 0;
}

int git_start_to_fd(const struct git *g, const char *const *args, int out_fd,
                    struct git_proc *p, struct jail_err *e)
{
	memset(p, 0, sizeof(*p));
	return proc_start(g, args, out_fd, p, e);
}

int git_run_to_fd(const struct git *g, const char *const *args, int out_fd, struct jail_err *e)
{
	struct git_proc p;
	if (git_start_to_fd(g, args, out_fd, &p, e) < 0)
		return -1;
	return git_finish(&p, NULL, e);
}

void git_user_paths(struct git_user_paths *p)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	_cleanup_free_ char *xdir = xdg && *xdg == '/' ? xstrdup(xdg)
	                                               : xasprintf("%s/.config", home_dir());
	p->home_config = xasprintf("%s/.gitconfig", home_dir());
	p->xdg_config = xasprintf("%s/git/config", xdir);
	p->xdg_ignore = xasprintf("%s/git/ignore", xdir);
	const char *sys = getenv("GIT_CONFIG_SYSTEM");
	p->system_config = getenv("GIT_CONFIG_NOSYSTEM") ? NULL
	                   : sys && *sys                ? xstrdup(sys)
	                                                : xstrdup("/etc/gitconfig");
}

void git_user_paths_free(struct git_user_paths *p)
{
	free(p->home_config);
	free(p->xdg_config);
	free(p->xdg_ignore);
	free(p->system_config);
}

bool git_config_mentions(const char *path, const char *word)
{
	_cleanup_free_ char *data = NULL;
	struct jail_err e;
	if (read_file_at(AT_FDCWD, path, 1 << 20, &data, NULL, &e) < 0)
		return e.errnum != ENOENT;
	return strcasestr(data, word) != NULL || strcasestr(data, "[include") != NULL;
}

/* key as the user's own config files set it (~/.gitconfig wins over the XDG
 * one, includes followed), or NULL.  A file whose text names neither the
 * key's variable nor an include cannot set it: no git run for it (each is
 * a few ms of an export's). */
static char *user_config_get(const char *key)
{
	struct git_user_paths u;
	git_user_paths(&u);
	const char *files[] = {u.home_config, u.xdg_config};
	const char *var = strrchr(key, '.') ? strrchr(key, '.') + 1 : key;
	char *value = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(files) && !value; i++) {
		if (!git_config_mentions(files[i], var))
			continue;
		struct git g = {.cwd = "/"};
		struct strbuf out = {0};
		struct jail_err e;
		int status = 1;
		const char *args[] = {"config", "--file", files[i], "--includes", "--get", key, NULL};
		if (access(files[i], R_OK) == 0 && git_run(&g, args, NULL, 0, &out, &status, &e) == 0 &&
		    status == 0 && out.s) {
			out.s[strcspn(out.s, "\n")] = '\0';
			value = xstrdup(out.s);
		}
		sb_free(&out);
	}
	git_user_paths_free(&u);
	return value;
}

bool git_repo_config_mentions(const char *project, const char *word)
{
	_cleanup_free_ char *gitdir = xasprintf("%s/.git", project);
	struct stat st;
	if (lstat(gitdir, &st) < 0 || !S_ISDIR(st.st_mode))
		return true; /* a linked worktree's or a submodule's: not looked at */
	_cleanup_free_ char *config = xasprintf("%s/config", gitdir);
	_cleanup_free_ char *worktree = xasprintf("%s/config.worktree", gitdir);
	return git_config_mentions(config, word) || git_config_mentions(worktree, word);
}

/* A core.excludesFile value, ~ expanded; none: git's default, the XDG
 * ignore file, when it is there. */
static char *excludes_or_default(const char *value)
{
	if (value && *value)
		return expand_home(value);
	struct git_user_paths u;
	git_user_paths(&u);
	char *def = access(u.xdg_ignore, R_OK) == 0 ? xstrdup(u.xdg_ignore) : NULL;
	git_user_paths_free(&u);
	return def;
}

char *git_user_excludes_file(void)
{
	_cleanup_free_ char *value = user_config_get("core.excludesFile");
	return excludes_or_default(value);
}

/* Whether a config file the user's git reads in `project` may set the
 * variable `var` (lower case): one names it or includes others (or cannot
 * be read), or the user names the files in the environment. */
static bool user_may_set(const char *project, const char *var)
{
	struct git_user_paths u;
	git_user_paths(&u);
	bool may = git_repo_config_mentions(project, var) ||
	           git_config_mentions(u.home_config, var) || git_config_mentions(u.xdg_config, var) ||
	           (u.system_config && git_config_mentions(u.system_config, var)) ||
	           getenv("GIT_CONFIG_GLOBAL");
	git_user_paths_free(&u);
	return may;
}

/* `key` as the user's git reads it in `project`, of git config's `type`, or
 * NULL: asked of git with the user's config there, not file by file, since a
 * value set under `includeIf "gitdir:..."` (or "onbranch:") holds only in
 * some repositories, which `git config --file` cannot tell. */
static char *user_setting(const char *project, const char *key, const char *var,
                          const char *type)
{
	if (!user_may_set(project, var))
		return NULL;
	struct git g = {.cwd = project, .user_config = true};
	const char *args[] = {"config", type, "--get", key, NULL};
	struct strbuf out = {0};
	struct jail_err e;
	int status = 1;
	char *value = NULL;
	if (git_run(&g, args, NULL, 0, &out, &status, &e) == 0 && status == 0 && out.s) {
		out.s[strcspn(out.s, "\n")] = '\0';
		value = xstrdup(out.s);
	}
	sb_free(&out);
	return value;
}

bool git_ignore_case(const char *project)
{
	_cleanup_free_ char *v = user_setting(project, "core.ignoreCase", "ignorecase", "--type=bool");
	return v && !strcmp(v, "true");
}

char *git_excludes_file(const char *project)
{
	_cleanup_free_ char *value =
		user_setting(project, "core.excludesFile", "excludesfile", "--type=path");
	return excludes_or_default(value);
}

/* Settings whose value is a command git runs: on its own (a filter on git
 * status and add, fsmonitor on every status, a textconv on git diff, the
 * credential helper on fetch) or for a command the user types (the pager, the
 * editor on commit).  A program of the project's named there runs what the
 * agent wrote into it once that lands.  Not an alias: "git t" running
 * ./run-tests.sh is the user running the project's code, as make is. */
#define PROGRAM_KEYS                                                                       \
	"core\\.(fsmonitor|pager|editor|sshcommand|askpass|gitproxy)|sequence\\.editor|"          \
	"diff\\.external|diff\\..*\\.(command|textconv)|merge\\..*\\.driver|"                     \
	"filter\\..*\\.(clean|smudge|process)|credential\\.(.*\\.)?helper|gpg\\.(.*\\.)?program|" \
	"pager\\..*|interactive\\.difffilter|(diff|merge)tool\\..*\\.(cmd|path)|"                 \
	"submodule\\..*\\.update|remote\\..*\\.(uploadpack|receivepack)"

/* The words of a setting's command that name a file by a path (a '/' in
 * them: a bare name is looked up in PATH), absolute, into s->programs: git
 * runs a command from the work tree's top (top), through the shell.  The
 * command is cut at blanks, quotes and the shell's operators: "python3
 * tools/x.py %f" names tools/x.py, "!sh -c 'bin/a && bin/b'" both. */
static void take_program(struct git_settings *s, const char *key, size_t kl, const char *v,
                         const char *top)
{
	_cleanup_free_ char *copy = xstrdup(v);
	char *save = NULL;
	for (char *w = strtok_r(copy, " \t\n;&|()<>`\"'=!$", &save); w;
	     w = strtok_r(NULL, " \t\n;&|()<>`\"'=!$", &save)) {
		if (!strchr(w, '/'))
			continue;
		char *abs = w[0] == '/' || w[0] == '~' ? expand_home(w) : xasprintf("%s/%s", top, w);
		strv_push_take(&s->programs, abs);
		strv_push_take(&s->program_keys, xasprintf("%.*s", (int)kl, key));
	}
}

/* One "KEY\nVALUE" record of the settings asked for: into s.  origin: the
 * file it came from, absolute (includes are read from its directory); top:
 * the work tree's top, where git runs the commands of PROGRAM_KEYS. */
static void take_setting(struct git_settings *s, const char *rec, const char *origin,
                         const char *top)
{
	const char *nl = strchr(rec, '\n');
	if (!nl || !nl[1])
		return;
	const char *v = nl + 1;
	size_t kl = (size_t)(nl - rec);
	bool include = (kl > 8 && strncmp(rec, "include.", 8) == 0) ||
	               (kl > 10 && strncmp(rec, "includeif.", 10) == 0);
	char **one = kl == 14 && strncmp(rec, "core.hookspath", kl) == 0          ? &s->hooks_path
	             : kl == 19 && strncmp(rec, "core.attributesfile", kl) == 0 ? &s->attributes_file
	                                                                        : NULL;
	if (!one && !include) {
		take_program(s, rec, kl, v, top);
	} else if (one) {  /* the last one wins, as git reads it */
		free(*one);
		*one = expand_home(v);
	} else if (origin && (v[0] == '/' || v[0] == '~')) {
		strv_push_take(&s->includes, expand_home(v));
	} else if (origin) {
		const char *slash = strrchr(origin, '/');
		strv_push_take(&s->includes, xasprintf("%.*s/%s", (int)(slash - origin), origin, v));
	}
}

int git_tree_settings(const char *project, const char *top, struct git_settings *s,
                      struct jail_err *e)
{
	memset(s, 0, sizeof(*s));
	/* the repository's files (its config, and config.worktree with
	 * extensions.worktreeConfig, which --local would not read) and what they
	 * include, each record with its origin file, named from the work tree's
	 * top: "file:ORIGIN\0KEY\nVALUE\0".  The hardened git reads no global or
	 * system file; its own "-c core.hooksPath=/dev/null" comes as "command
	 * line:" and is skipped. */
	struct git g = {.cwd = project};
	struct strbuf out = {0};
	const char *args[] = {"config", "--includes", "--show-origin", "-z",
	                      "--get-regexp",
	                      "^(core\\.(hookspath|attributesfile)|include(if\\..*)?\\.path|"
	                      PROGRAM_KEYS ")$", NULL};
	int status = 1;
	int r = git_run(&g, args, NULL, 0, &out, &status, e);
	if (r == 0 && status > 1)
		r = jail_err_set(e, 0, "git config --get-regexp failed (exit %d)", status);
	for (size_t i = 0; r == 0 && status == 0 && out.s && i < out.len;) {
		const char *origin = out.s + i;
		i += strlen(origin) + 1;
		if (i >= out.len)
			break;
		const char *rec = out.s + i;
		i += strlen(rec) + 1;
		if (strncmp(origin, "file:", 5) != 0)
			continue;
		origin += 5;
		_cleanup_free_ char *abs = origin[0] == '/' ? xstrdup(origin)
		                                            : xasprintf("%s/%s", top, origin);
		take_setting(s, rec, abs, top);
	}
	sb_free(&out);
	bool local_hooks = s->hooks_path, local_attrs = s->attributes_file;
	if (r < 0)
		return r;
	/* else the user's own files (~/.gitconfig wins over the XDG one) */
	struct git_user_paths u;
	git_user_paths(&u);
	const char *files[] = {u.xdg_config, u.home_config};
	for (size_t f = 0; f < ARRAY_SIZE(files); f++) {
		struct git ug = {.cwd = "/"};
		struct strbuf uo = {0};
		struct jail_err ignored;
		int st = 1;
		const char *uargs[] = {"config", "--file", files[f], "--includes", "-z", "--get-regexp",
		                       "^(core\\.(hookspath|attributesfile)|" PROGRAM_KEYS ")$", NULL};
		struct git_settings mine = {0};
		if (access(files[f], R_OK) == 0 && git_run(&ug, uargs, NULL, 0, &uo, &st, &ignored) == 0 &&
		    st == 0 && uo.s)
			for (size_t i = 0; i < uo.len; i += strlen(uo.s + i) + 1)
				take_setting(&mine, uo.s + i, NULL, top);
		/* a program named anywhere counts: which one wins is git's business */
		for (size_t i = 0; i < mine.programs.n; i++) {
			strv_push(&s->programs, mine.programs.v[i]);
			strv_push(&s->program_keys, mine.program_keys.v[i]);
		}
		sb_free(&uo);
		/* the repository's setting wins over both, the later file over the earlier */
		if (!local_hooks && mine.hooks_path)
			free(s->hooks_path), s->hooks_path = steal_ptr(&mine.hooks_path);
		if (!local_attrs && mine.attributes_file)
			free(s->attributes_file), s->attributes_file = steal_ptr(&mine.attributes_file);
		git_settings_free(&mine);
	}
	git_user_paths_free(&u);
	return 0;
}

void git_settings_free(struct git_settings *s)
{
	free(s->hooks_path);
	free(s->attributes_file);
	strv_free(&s->includes);
	strv_free(&s->programs);
	strv_free(&s->program_keys);
	memset(s, 0, sizeof(*s));
}

bool git_config_has_includes(const char *path)
{
	_cleanup_free_ char *data = NULL;
	struct jail_err e;
	if (read_file_at(AT_FDCWD, path, 1 << 20, &data, NULL, &e) < 0)
		return e.errnum != ENOENT;
	return strcasestr(data, "[include") != NULL;
}
