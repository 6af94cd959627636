/* run.c — `jail [run]`: policy → session → plan → sandbox → export. */
#include "commands.h"

#include "git.h"
#include "hide.h"
#include "log.h"
#include "net.h"
#include "plan.h"
#include "policy.h"
#include "sandbox.h"
#include "session.h"
#include "sysfilter.h"

#include <stdio.h>
#include <string.h>

/* Nested mounts under the project are not part of the overlay's lower layer. */
static void warn_nested_mounts(const char *project)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return;
	char line[8192];
	size_t n = strlen(project);
	while (fgets(line, sizeof(line), f)) {
		char mp[4096];
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
			continue;
		if (strncmp(mp, project, n) == 0 && mp[n] == '/') {
			_cleanup_free_ char *esc = escape_name(mp);
			log_warn("'%s' is a separate mount inside the project; the jail shows the "
			         "directory under it, not the mounted filesystem", esc);
		}
	}
}

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

static int prepare(struct jail_config *cfg, struct session *s, struct hide_set *hidden,
                   struct jail_err *e)
{
	expand_paths(&cfg->ro_binds);
	expand_paths(&cfg->rw_binds);
	expand_paths(&cfg->tmpfs);
	expand_paths(&cfg->home_copy);
	if (session_lock(s, e) < 0 || session_create(s, e) < 0)
		return -1;
	if (cfg->home == HOME_PERSISTENT && mkdir_p(s->home, 0700, e) < 0)
		return -1;
	record_base(s);
	log_debug("session ready");
	int r = hide_ignored(s, cfg, hidden, e);
	log_debug("ignored files hidden");
	if (r == 0 && cfg->hide_ignored != HIDE_NONE)
		hide_say_start(s, hidden);
	return r;
}

static int run_jail(struct jail_config *cfg, struct session *s, int *exit_code,
                    struct jail_err *e)
{
	struct hide_set hidden = {0};
	if (prepare(cfg, s, &hidden, e) < 0) {
		hide_set_free(&hidden);
		return -1;
	}
	warn_nested_mounts(s->project);
	struct jail_plan plan;
	int r = plan_build(&plan, cfg, s, e);
	log_debug("plan built");
	if (r == 0)
		r = sandbox_run(&plan, exit_code, e);
	plan_free(&plan);
	/* a failed build or test often failed for want of ignored build output */
	if (r == 0 && *exit_code != 0)
		hide_hint(s, &hidden);
	hide_set_free(&hidden);
	return r;
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
	/* bad values are refused before anything is created or started */
	if (sysfilter_check_config(&cfg, &e) < 0 || net_validate(&cfg, &e) < 0) {
		log_error("%s", e.msg);
		config_free(&cfg);
		session_free(&s);
		return EXIT_JAIL_FAIL;
	}
	if (run_jail(&cfg, &s, &exit_code, &e) < 0) {
		log_error("%s", e.msg);
		exit_code = EXIT_JAIL_FAIL;
	} else if (!cfg.no_export && export_after_run(&s, &cfg, &e) < 0) {
		log_error("export: %s", e.msg);
	}
	config_free(&cfg);
	session_free(&s);
	return exit_code;
}
