/* hints.c — the hints of hints.h. */
#include "hints.h"

#include "git.h"
#include "log.h"

#include <limits.h>
#include <string.h>
#include <sys/stat.h>

static bool is_program(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111);
}

/* "~/x" for paths in the home directory: what the user would type. */
static char *tilde(const char *path)
{
	const char *home = home_dir();
	size_t n = strlen(home);
	_cleanup_free_ char *esc = escape_name(path);
	if (n > 1 && strncmp(esc, home, n) == 0 && esc[n] == '/')
		return xasprintf("~%s", esc + n);
	return xstrdup(esc);
}

static char *find_on_host(const char *cmd)
{
	if (strchr(cmd, '/'))
		return cmd[0] == '/' && is_program(cmd) ? xstrdup(cmd) : NULL;
	const char *path = getenv("PATH");
	_cleanup_free_ char *copy = xstrdup(path ? path : "");
	char *save = NULL;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		if (d[0] != '/')
			continue;
		char *p = xasprintf("%s/%s", d, cmd);
		if (is_program(p))
			return p;
		free(p);
	}
	return NULL;
}

/* Would the jail's PATH find it there (the system dirs are bound as they are)? */
static bool jail_searches(const char *dir)
{
	_cleanup_free_ char *copy = xstrdup(JAIL_PATH);
	char *save = NULL;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
		if (strcmp(d, dir) == 0)
			return true;
	return false;
}

char *hint_command_on_host(const char *cmd)
{
	_cleanup_free_ char *host = find_on_host(cmd);
	if (!host)
		return NULL;
	_cleanup_free_ char *dir = xstrdup(host);
	*strrchr(dir, '/') = '\0';
	if (!dir[0] || (!strchr(cmd, '/') && jail_searches(dir)))
		return NULL;
	_cleanup_free_ char *shown = tilde(host), *sdir = tilde(dir);
	struct strbuf b = {0};
	sb_printf(&b, "; on the host it is %s: add --ro %s and run it by that path "
	          "(in a policy: [fs] ro = %s)", shown, sdir, sdir);
	/* pipx, uv and npm leave a link in ~/.local/bin to a tree elsewhere */
	char real[PATH_MAX];
	if (realpath(host, real) && strncmp(real, dir, strlen(dir)) != 0) {
		*strrchr(real, '/') = '\0';
		_cleanup_free_ char *rdir = tilde(real);
		sb_printf(&b, "; it links into %s, which needs --ro too", rdir);
	}
	return sb_steal(&b);
}

void hint_project_in_repo(const char *project)
{
	const char *args[] = {"rev-parse", "--show-toplevel", NULL};
	struct git g = {.cwd = project};
	struct strbuf out = {0};
	struct jail_err e;
	int status = 1;
	if (git_run(&g, args, NULL, 0, &out, &status, &e) == 0 && status == 0 && out.s) {
		out.s[strcspn(out.s, "\n")] = '\0';
		if (out.s[0] == '/' && strcmp(out.s, project) != 0) {
			_cleanup_free_ char *pe = escape_name(project), *re = escape_name(out.s);
			log_warn("%s is inside the git repository %s, which the jail does not show: "
			         "git inside finds no repository; use -D %s to work on the whole "
			         "repository", pe, re, re);
		}
	}
	sb_free(&out);
}

void hint_root(void)
{
	if (getuid() == 0)
		log_warn("running as root: the jail runs as root inside too (uid 0 mapped to "
		         "itself); run jail as your own user");
}
