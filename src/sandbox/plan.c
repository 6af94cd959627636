/* plan.c — work out on the host what init will do. */
#include "plan.h"

#include "broker.h"
#include "cover.h"

#include "env.h"
#include "gitcreds.h"
#include "gitlink.h"
#include "hide.h"
#include "hints.h"
#include "policy.h"
#include "pty.h"
#include "log.h"
#include "secrets.h"
#include "session.h"

#include <dirent.h>
#include <limits.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>

static bool is_executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111);
}

/* The user's shell if the jail has it (it sees the host's /usr), else /bin/sh. */
static char *pick_shell(const struct passwd *pw)
{
	if (pw && pw->pw_shell && strncmp(pw->pw_shell, "/usr/", 5) == 0 &&
	    is_executable(pw->pw_shell))
		return xstrdup(pw->pw_shell);
	if (pw && pw->pw_shell && strncmp(pw->pw_shell, "/bin/", 5) == 0 &&
	    is_executable(pw->pw_shell) && !strstr(pw->pw_shell, "nologin") &&
	    !strstr(pw->pw_shell, "false"))
		return xstrdup(pw->pw_shell);
	return xstrdup("/bin/sh");
}

/* Inside the project, the command starts where the caller is; else at its root. */
static char *pick_cwd(const char *project)
{
	char *cwd = getcwd(NULL, 0);
	size_t n = strlen(project);
	if (cwd && strncmp(cwd, project, n) == 0 && (cwd[n] == '\0' || cwd[n] == '/'))
		return cwd;
	free(cwd);
	return xstrdup(project);
}

/* A linked worktree's git dir lies outside the project: overlay the repository's
 * common dir too, so git status/diff/add/commit work inside while the host's
 * .git stays unwritten.  The session keeps its writes in git-upper/. */
static int plan_worktree(struct jail_plan *p, const struct session *s, struct jail_err *e)
{
	struct gitlink g;
	int r = gitlink_read(s->project, &g, e);
	if (r != 0)
		return r < 0 ? -1 : 0;
	if (!g.linked || path_at_or_below(g.common_dir, s->project) ||
	    path_at_or_below(s->project, g.common_dir)) {
		gitlink_free(&g);
		return 0;
	}
	if (!g.worktree) {
		/* the .git file alone must not bring a host directory into the jail */
		_cleanup_free_ char *esc = escape_name(g.git_dir);
		log_warn("the project's .git file names %s, which is not a worktree of a "
		         "repository that points back here: git will not work inside", esc);
		gitlink_free(&g);
		return 0;
	}
	_cleanup_free_ char *esc = escape_name(g.common_dir);
	if (!path_at_or_below(g.git_dir, g.common_dir) || strcmp(g.common_dir, "/") == 0 ||
	    path_at_or_below(s->project_root, g.common_dir) || path_at_or_below(home_dir(), g.common_dir)) {
		gitlink_free(&g);
		return jail_err_set(e, 0, "the project's git dir lies outside its repository "
		                          "'%s' or over jail's own state; the jail cannot show it",
		                    esc);
	}
	p->gitdir_lower = steal_ptr(&g.common_dir);
	p->gitdir_upper = xasprintf("%s/git-upper", s->dir);
	p->gitdir_work = xasprintf("%s/git-work", s->dir);
	gitlink_free(&g);
	if (mkdir_p(p->gitdir_upper, 0700, e) < 0 || mkdir_p(p->gitdir_work, 0700, e) < 0 ||
	    gitcreds_withhold(p->gitdir_lower, p->gitdir_upper, "", NULL, e) < 0)
		return -1;
	hide_gitdir_secrets(p->gitdir_lower, p->gitdir_upper, p->cfg);
	log_debug("linked worktree: %s overlaid too", esc);
	return 0;
}

/* jail's config dir: what the next start reads as the user's policy, where a
 * `cmd:` secret source runs on the host, and the trust records.  Covered
 * inside like the state dir; a cover covers only what exists, so when a --rw
 * bind holds its place it is made first: else the agent would make it. */
static int plan_config_root(struct jail_plan *p, struct jail_err *e)
{
	_cleanup_free_ char *conf = policy_config_dir();
	_cleanup_free_ char *at = realpath_existing(conf);
	const struct strv *l = &p->cfg->rw_binds;
	for (size_t i = 0; i < l->n; i++) {
		_cleanup_free_ char *real = realpath(l->v[i], NULL);
		if (real && path_at_or_below(at, real) && mkdir_p(conf, 0700, e) < 0)
			return jail_err_wrap(e, "make jail's config dir, to cover it for --rw %s", l->v[i]);
	}
	p->config_root = realpath(conf, NULL);
	if (!p->config_root)
		p->config_root = steal_ptr(&at);
	else if (strcmp(p->config_root, conf) != 0)
		p->config_root_named = steal_ptr(&conf);
	return 0;
}

/* A --rw bind may not hold the real home, the state or the config dir below a directory
 * the agent could rename (cover_movable): moved so, the next start would show
 * it uncovered (the home's keys; every session's work, persistent homes and
 * running jails' exec sockets). */
static int check_rw_covers(const struct jail_plan *p, struct jail_err *e)
{
	const struct strv *l = &p->cfg->rw_binds;
	for (size_t i = 0; i < l->n; i++) {
		_cleanup_free_ char *real = realpath(l->v[i], NULL);
		const char *what = cover_movable(real, p->home_real) ? "your real home"
		                   : cover_movable(real, p->state_root) ? "jail's state dir"
		                   : cover_movable(real, p->config_root) ? "jail's config dir"
		                   : NULL;
		if (what) {
			_cleanup_free_ char *esc = escape_name(l->v[i]);
			return jail_err_set(e, 0, "--rw %s holds %s below a directory the agent could "
			                          "rename out from under its cover; bind a directory "
			                          "beside it, or use --cow", esc, what);
		}
	}
	return 0;
}

const char *plan_rw_bind_holding(const struct jail_plan *p, const char *path)
{
	const struct strv *l = &p->cfg->rw_binds;
	for (size_t i = 0; path && i < l->n; i++) {
		_cleanup_free_ char *real = realpath(l->v[i], NULL);
		if (path_at_or_below(path, l->v[i]) || (real && path_at_or_below(path, real)))
			return l->v[i];
	}
	return NULL;
}

/* One entry of the config dir: when it is a link out of the dir (GNU stow
 * links each file), the cover of the dir does not cover what it points to. */
static int check_config_link(const struct jail_plan *p, const char *path, struct jail_err *e)
{
	struct stat st;
	if (lstat(path, &st) < 0 || !S_ISLNK(st.st_mode))
		return 0;
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	_cleanup_free_ char *real = realpath(path, NULL);
	const char *bind = plan_rw_bind_holding(p, real);
	if (!bind && n > 0 && target[0] == '/') {
		target[n] = '\0';
		bind = plan_rw_bind_holding(p, target);
	}
	if (!bind)
		return 0;
	_cleanup_free_ char *eb = escape_name(bind), *ep = escape_name(path);
	return jail_err_set(e, 0, "--rw %s holds what %s links to, which the next start reads as "
	                          "your policy or trust; move that file into jail's config dir, "
	                          "or bind a directory beside it", eb, ep);
}

/* The links in a directory jail reads policy or trust from. */
static int check_dir_links(const struct jail_plan *p, const char *dir, struct jail_err *e)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *de;
	int rc = 0;
	while (rc == 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		_cleanup_free_ char *f = xasprintf("%s/%s", dir, de->d_name);
		rc = check_config_link(p, f, e);
	}
	closedir(d);
	return rc;
}

/* What the next start reads as policy: the config dir (covered inside, but
 * its jail.ini, policies/ and trust/ may link elsewhere: GNU stow links each
 * file) and the other directories -p NAME and include = NAME search (the
 * installed policies, in the home with PREFIX=~/.local).  No --rw bind may
 * hold any of it: the agent would write the next start's policy, and a
 * `cmd:` secret there runs on the host. */
static int check_policy_sources(const struct jail_plan *p, struct jail_err *e)
{
	if (!p->cfg->rw_binds.n)
		return 0;
	_cleanup_free_ char *conf = policy_config_dir();
	_cleanup_free_ char *ini = xasprintf("%s/jail.ini", conf);
	_cleanup_free_ char *trust = xasprintf("%s/trust", conf);
	if (check_config_link(p, ini, e) < 0 || check_config_link(p, trust, e) < 0 ||
	    check_dir_links(p, trust, e) < 0)
		return -1;
	struct strv dirs = {0};
	policy_search_dirs(&dirs);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < dirs.n; i++) {
		_cleanup_free_ char *real = realpath(dirs.v[i], NULL);
		const char *bind = real && !path_at_or_below(real, p->config_root)
		                   ? plan_rw_bind_holding(p, real) : NULL;
		if (bind) {
			_cleanup_free_ char *eb = escape_name(bind), *ed = escape_name(dirs.v[i]);
			rc = jail_err_set(e, 0, "--rw %s holds %s, where jail finds the policies "
			                        "-p NAME names; bind a directory beside it", eb, ed);
			break;
		}
		rc = check_config_link(p, dirs.v[i], e);
		if (rc == 0)
			rc = check_dir_links(p, dirs.v[i], e);
	}
	strv_free(&dirs);
	return rc;
}

int plan_build(struct jail_plan *p, const struct jail_config *cfg, struct session *s,
               struct jail_err *e)
{
	memset(p, 0, sizeof(*p));
	p->etc_snapshot_fd = -1;
	p->cfg = cfg;
	p->session = s;
	p->uid = getuid();
	_cleanup_free_ char *root = state_root();
	p->state_root = realpath(root, NULL);
	if (!p->state_root)
		p->state_root = steal_ptr(&root);
	else if (strcmp(p->state_root, root) != 0)
		p->state_root_named = steal_ptr(&root);
	p->gid = getgid();
	struct passwd *pw = getpwuid(p->uid);
	/* both end up in the jail's /etc/passwd: no ':' or newline may break a line */
	const char *name = pw && pw->pw_name ? pw->pw_name : "user";
	p->user = xstrdup(strpbrk(name, ":\n") ? "user" : name);
	const char *home = home_dir();
	if (strpbrk(home, ":\n") || strcmp(home, "/") == 0)
		return jail_err_set(e, 0, "HOME='%s' cannot be the jail's home; set HOME to "
		                          "your home directory", home);
	p->home = xstrdup(home);
	p->home_real = realpath(home, NULL);
	p->shell = pick_shell(pw);
	p->cwd = pick_cwd(s->project);
	for (int fd = 0; fd < 3; fd++) {
		p->tty_fds[fd] = isatty(fd);
		p->use_pty |= p->tty_fds[fd];
	}
	if (p->use_pty && !pty_host_winsize(p->tty_fds, &p->winsize))
		memset(&p->winsize, 0, sizeof(p->winsize));
	p->notfound_hint = cfg->argv && cfg->argv[0] ? hint_command_on_host(cfg->argv[0]) : NULL;
	if (plan_config_root(p, e) < 0 || check_rw_covers(p, e) < 0 ||
	    check_policy_sources(p, e) < 0 || plan_worktree(p, s, e) < 0 ||
	    env_build(p, &p->env, e) < 0 || secrets_plan(p, e) < 0)
		return -1;
	/* the /etc snapshot is looked for after the clone (etcsnap_offer) */
	return 0;
}

void plan_free(struct jail_plan *p)
{
	free(p->user);
	free(p->home);
	free(p->home_real);
	free(p->shell);
	free(p->cwd);
	free(p->notfound_hint);
	free(p->state_root);
	free(p->state_root_named);
	free(p->config_root);
	free(p->config_root_named);
	free(p->gitdir_lower);
	free(p->gitdir_upper);
	free(p->gitdir_work);
	strv_free(&p->env);
	free(p->etc_snapshot);
	strv_free(&p->etc_binds);
	strv_free(&p->sock_covers);
	strv_free(&p->sock_hosts);
	strv_free(&p->sock_pins);
	if (p->etc_snapshot_fd >= 0)
		close(p->etc_snapshot_fd);
	broker_free(p->broker);
	for (size_t i = 0; i < p->n_secret_files; i++) {
		free(p->secret_files[i].path);
		if (p->secret_files[i].content)
			explicit_bzero(p->secret_files[i].content, p->secret_files[i].len);
		free(p->secret_files[i].content);
	}
	free(p->secret_files);
	memset(p, 0, sizeof(*p));
	p->etc_snapshot_fd = -1;
}
