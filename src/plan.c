/* plan.c — work out on the host what init will do. */
#include "plan.h"

#include "env.h"
#include "secrets.h"

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

int plan_build(struct jail_plan *p, const struct jail_config *cfg, struct session *s,
               struct jail_err *e)
{
	memset(p, 0, sizeof(*p));
	p->cfg = cfg;
	p->session = s;
	p->uid = getuid();
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
	p->shell = pick_shell(pw);
	p->cwd = pick_cwd(s->project);
	for (int fd = 0; fd < 3; fd++) {
		p->tty_fds[fd] = isatty(fd);
		p->use_pty |= p->tty_fds[fd];
	}
	if (env_build(p, &p->env, e) < 0)
		return -1;
	return secrets_plan(p, e);
}

void plan_free(struct jail_plan *p)
{
	free(p->user);
	free(p->home);
	free(p->shell);
	free(p->cwd);
	strv_free(&p->env);
	for (size_t i = 0; i < p->n_secret_files; i++) {
		free(p->secret_files[i].path);
		if (p->secret_files[i].content)
			explicit_bzero(p->secret_files[i].content, p->secret_files[i].len);
		free(p->secret_files[i].content);
	}
	free(p->secret_files);
	memset(p, 0, sizeof(*p));
}
