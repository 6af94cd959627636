/* cmd_policy.c — `jail policy show|list` and `jail trust`. */
#include "commands.h"
#include "log.h"
#include "policy.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int fail(const struct jail_err *e)
{
	log_error("%s", e->msg);
	return EXIT_JAIL_FAIL;
}

static char *project_real(const struct cli *c, struct jail_err *e)
{
	char *real = realpath(c->cfg.project, NULL);
	if (!real) {
		_cleanup_free_ char *esc = escape_name(c->cfg.project);
		jail_err_sys(e, "project directory '%s'", esc);
	}
	return real;
}

static int policy_show(struct cli *c)
{
	struct jail_err e = {0};
	_cleanup_free_ char *project = project_real(c, &e);
	if (!project)
		return fail(&e);
	struct policy p;
	policy_init(&p);
	if (policy_load_all(&p, c, project, &e) < 0) {
		policy_free(&p);
		return fail(&e);
	}
	_cleanup_free_ char *esc = escape_name(project);
	printf("; jail policy show -D %s\n", esc);
	policy_print(&p, stdout);
	policy_free(&p);
	return fflush(stdout) == 0 ? 0 : EXIT_JAIL_FAIL;
}

/* The description of a policy file, or why it does not load. */
static char *describe(const char *path)
{
	struct policy p;
	struct jail_err e = {0};
	policy_init(&p);
	char *d;
	if (policy_load_named(&p, path, &e) < 0)
		d = xasprintf("(does not load: %s)", e.msg);
	else
		d = xstrdup(p.description ? p.description : "");
	policy_free(&p);
	return d;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_dir(const char *dir, struct strv *seen)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct strv names = {0};
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n > 4 && strcmp(de->d_name + n - 4, ".ini") == 0 && de->d_name[0] != '.')
			strv_push_take(&names, strndup(de->d_name, n - 4));
	}
	closedir(d);
	qsort(names.v, names.n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < names.n; i++) {
		if (strv_contains(seen, names.v[i]))
			continue;  /* shadowed by a directory searched earlier */
		strv_push(seen, names.v[i]);
		_cleanup_free_ char *path = xasprintf("%s/%s.ini", dir, names.v[i]);
		_cleanup_free_ char *desc = describe(path);
		_cleanup_free_ char *en = escape_name(names.v[i]), *ep = escape_name(path);
		_cleanup_free_ char *ed = escape_name(desc);
		printf("%-10s %s\n           %s\n", en, ed, ep);
	}
	strv_free(&names);
}

static int policy_list(void)
{
	struct strv dirs = {0}, seen = {0};
	policy_search_dirs(&dirs);
	printf("%-10s %s\n           %s\n", "default", "the base of every policy (always applied)",
	       "(embedded in jail)");
	strv_push(&seen, "default");
	for (size_t i = 0; i < dirs.n; i++)
		list_dir(dirs.v[i], &seen);
	strv_free(&dirs);
	strv_free(&seen);
	return fflush(stdout) == 0 ? 0 : EXIT_JAIL_FAIL;
}

/* The parser stops at "show": read the options after it (`jail policy show -p
 * NAME -D DIR`) with the same parser, as if they came before. */
static int parse_after(struct cli *c, struct cli *more, struct jail_err *e)
{
	size_t n = 0;
	while (c->args[n])
		n++;
	_cleanup_free_ char **argv = xcalloc(n + 2, sizeof(char *));
	argv[0] = (char *)"jail";
	argv[1] = (char *)"policy";
	for (size_t i = 1; i < n; i++)
		argv[i + 1] = c->args[i];
	if (cli_parse((int)n + 1, argv, more, e) < 0)
		return -1;
	if (more->cmd != CMD_POLICY || (more->args && more->args[0])) {
		const char *extra = more->args && more->args[0] ? more->args[0] : "?";
		_cleanup_free_ char *esc = escape_name(extra);
		return jail_err_set(e, 0, "jail policy %s: unexpected argument '%s'", c->args[0], esc);
	}
	if (strcmp(more->cfg.project, ".") != 0) {
		free(c->cfg.project);
		c->cfg.project = steal_ptr(&more->cfg.project);
	}
	for (size_t i = 0; i < more->cfg.policies.n; i++)
		strv_push(&c->cfg.policies, more->cfg.policies.v[i]);
	return 0;
}

int cmd_policy(struct cli *c)
{
	const char *sub = c->args && c->args[0] ? c->args[0] : "show";
	if (c->args && c->args[0] && c->args[1]) {
		struct cli more;
		struct jail_err e = {0};
		int rc = parse_after(c, &more, &e);
		cli_free(&more);
		if (rc < 0)
			return fail(&e);
	}
	if (strcmp(sub, "show") == 0)
		return policy_show(c);
	if (strcmp(sub, "list") == 0)
		return policy_list();
	_cleanup_free_ char *esc = escape_name(sub);
	log_error("jail policy %s: unknown; use 'jail policy show' or 'jail policy list'", esc);
	return EXIT_JAIL_FAIL;
}

static int trust_write(const char *project, const char *text, size_t len, struct jail_err *e)
{
	_cleanup_free_ char *rec = policy_trust_record(project);
	_cleanup_free_ char *dir = strndup(rec, strrchr(rec, '/') - rec);
	if (mkdir_p(dir, 0700, e) < 0)
		return -1;
	char hex[65];
	sha256_hex(text, len, hex);
	_cleanup_free_ char *line = xasprintf("sha256:%s %s\n", hex, project);
	return replace_file(rec, line, strlen(line), 0600, e);
}

static int trust_revoke(const char *project)
{
	_cleanup_free_ char *rec = policy_trust_record(project);
	_cleanup_free_ char *esc = escape_name(project);
	int r = unlink(rec);
	if (r < 0 && errno != ENOENT) {
		log_error("remove '%s': %s", rec, strerror(errno));
		return EXIT_JAIL_FAIL;
	}
	/* not "no longer": a revoke of nothing must not suggest there was trust */
	if (r < 0) {
		printf("%s/.jail.ini was not trusted; nothing to revoke\n", esc);
		return 0;
	}
	printf("%s/.jail.ini is no longer trusted\n", esc);
	return 0;
}

int cmd_trust(struct cli *c)
{
	struct jail_err e = {0};
	if (c->args && c->args[0]) {
		_cleanup_free_ char *esc = escape_name(c->args[0]);
		log_error("jail trust: unexpected argument '%s'; use -D DIR", esc);
		return EXIT_JAIL_FAIL;
	}
	_cleanup_free_ char *project = project_real(c, &e);
	if (!project)
		return fail(&e);
	if (c->revoke)
		return trust_revoke(project);
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	if (policy_read_project(project, &text, &len, &e) < 0)
		return fail(&e);
	_cleanup_free_ char *esc = escape_name(project);
	if (!text) {
		log_error("%s has no .jail.ini to trust", esc);
		return EXIT_JAIL_FAIL;
	}
	/* Refuse to trust what would not load: the error would only come later. */
	struct policy p;
	policy_init(&p);
	_cleanup_free_ char *name = xasprintf("%s/.jail.ini", project);
	int rc = policy_load_buf(&p, name, text, len, &e);
	policy_free(&p);
	if (rc < 0 || trust_write(project, text, len, &e) < 0)
		return fail(&e);
	char hex[65];
	sha256_hex(text, len, hex);
	printf("trusted %s/.jail.ini (sha256 %.16s); a change to it needs 'jail trust' again\n", esc, hex);
	return 0;
}
