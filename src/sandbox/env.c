/* env.c — the command's environment. */
#include "env.h"

#include <string.h>

#include "hints.h"  /* JAIL_PATH */

void env_put(struct strv *env, const char *name, const char *value)
{
	size_t n = strlen(name);
	char *entry = xasprintf("%s=%s", name, value);
	for (size_t i = 0; i < env->n; i++)
		if (strncmp(env->v[i], name, n) == 0 && env->v[i][n] == '=') {
			free(env->v[i]);
			env->v[i] = entry;
			return;
		}
	strv_push_take(env, entry);
}

static bool valid_name(const char *s, size_t n)
{
	if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return false;
	}
	return true;
}

int env_build(const struct jail_plan *p, struct strv *out, struct jail_err *e)
{
	const struct jail_config *c = p->cfg;
	const char *term = getenv("TERM");
	const char *lang = getenv("LANG");
	struct strbuf path = {0};
	for (size_t i = 0; i < c->env_path.n; i++)
		sb_printf(&path, "%s:", c->env_path.v[i]);
	sb_printf(&path, "%s", JAIL_PATH);
	env_put(out, "PATH", path.s);
	sb_free(&path);
	env_put(out, "HOME", p->home);
	env_put(out, "USER", p->user);
	env_put(out, "LOGNAME", p->user);
	env_put(out, "SHELL", p->shell);
	env_put(out, "TERM", term && *term ? term : (p->use_pty ? "xterm-256color" : "dumb"));
	env_put(out, "LANG", lang && *lang ? lang : "C.UTF-8");
	env_put(out, "TMPDIR", "/tmp");
	env_put(out, "JAIL", "1");
	for (size_t i = 0; i < c->env_pass.n; i++) {
		const char *name = c->env_pass.v[i];
		if (!valid_name(name, strlen(name)))
			return jail_err_set(e, 0, "env pass '%s': not a variable name", name);
		const char *v = getenv(name);
		if (v)
			env_put(out, name, v);
	}
	for (size_t i = 0; i < c->env_set.n; i++) {
		const char *eq = strchr(c->env_set.v[i], '=');
		_cleanup_free_ char *name =
			eq ? strndup(c->env_set.v[i], (size_t)(eq - c->env_set.v[i])) : NULL;
		if (!name || !valid_name(name, strlen(name)))
			return jail_err_set(e, 0, "env set '%s': expected NAME=VALUE", c->env_set.v[i]);
		env_put(out, name, eq + 1);
	}
	return 0;
}
