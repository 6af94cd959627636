/* cli.c — subcommands and flags.
 *
 * `jail [OPTIONS] [--] CMD [ARGS...]` runs CMD; `jail SUBCOMMAND [OPTIONS]` does
 * the rest.  A first word that names a subcommand is one; `--` forces a command.
 * Each flag says which subcommands take it, so a misplaced flag is an error
 * rather than silently ignored.
 */
#include "cli.h"

#include "policy_keys.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>

#define M(c) (1u << (c))
#define M_RUN M(CMD_RUN)
#define M_SESSION (M_RUN | M(CMD_RESET) | M(CMD_DIFF) | M(CMD_EXPORT) | M(CMD_STATUS) | M(CMD_APPLY))
#define M_PROJECT (M_SESSION | M(CMD_LIST) | M(CMD_POLICY) | M(CMD_TRUST))

static const struct {
	const char *name;
	enum subcmd cmd;
} subcmds[] = {
	{"run", CMD_RUN},       {"reset", CMD_RESET},   {"list", CMD_LIST},
	{"doctor", CMD_DOCTOR}, {"diff", CMD_DIFF},     {"export", CMD_EXPORT},
	{"status", CMD_STATUS}, {"policy", CMD_POLICY}, {"trust", CMD_TRUST},
	{"apply", CMD_APPLY},   {"help", CMD_HELP},     {"version", CMD_VERSION},
};

enum {
	OPT_NET = 256, OPT_ALLOW, OPT_DNS_UPSTREAM, OPT_PUBLISH, OPT_RO, OPT_RW, OPT_HIDE,
	OPT_SHOW, OPT_TMPFS, OPT_ENV, OPT_SETENV, OPT_HOME, OPT_COPY, OPT_SECRET, OPT_MEMORY,
	OPT_PIDS, OPT_CPUS, OPT_ALLOW_SYSCALL, OPT_STAT, OPT_NAME_STATUS, OPT_NO_EXPORT,
	OPT_EXPORT_DENY, OPT_ALLOW_BINARY, OPT_MAX_SIZE, OPT_REVOKE, OPT_VERSION, OPT_DISK, OPT_EXPORT_ALLOW,
	OPT_DISK_INODES, OPT_ACCEPT_FLAGGED, OPT_HIDE_IGNORED, OPT_SECRET_NAME, OPT_PATH,
};

struct opt {
	struct option lo;
	char shortopt;
	unsigned cmds;       /* subcommands that take it */
	const char *key;     /* policy key it sets, NULL if none */
	const char *arg, *help;
};

static const struct opt opts[] = {
	{{"dir", 1, 0, 'D'}, 'D', M_PROJECT, NULL, "DIR", "the project directory (default: .)"},
	{{"session", 1, 0, 's'}, 's', M_SESSION, NULL, "NAME", "session name (default: default)"},
	{{"policy", 1, 0, 'p'}, 'p', M_RUN | M(CMD_POLICY), NULL, "NAME", "add a named policy (repeatable)"},
	{{"quiet", 0, 0, 'q'}, 'q', M_RUN, NULL, NULL, "say less: no per-connection lines, no summary"},
	{{"net", 1, 0, OPT_NET}, 0, M_RUN, "net.mode", "MODE", "none (default), allow, or open"},
	{{"allow", 1, 0, OPT_ALLOW}, 0, M_RUN, "net.allow", "HOST:PORT", "allow egress to HOST:PORT (repeatable)"},
	{{"dns-upstream", 1, 0, OPT_DNS_UPSTREAM}, 0, M_RUN, "net.dns_upstream", "ADDR[:PORT]", "resolver for allowed names"},
	{{"publish", 1, 0, OPT_PUBLISH}, 0, M_RUN, "net.publish", "PORT[:HOSTPORT]", "reach a server in the jail from host loopback"},
	{{"ro", 1, 0, OPT_RO}, 0, M_RUN, "fs.ro", "PATH", "bind a host path read-only"},
	{{"rw", 1, 0, OPT_RW}, 0, M_RUN, "fs.rw", "PATH", "bind a host path read-write"},
	{{"hide", 1, 0, OPT_HIDE}, 0, M_RUN, "fs.hide", "PATTERN", "hide more project paths"},
	{{"show", 1, 0, OPT_SHOW}, 0, M_RUN, "fs.show_ignored", "PATTERN", "show a git-ignored project path"},
	{{"hide-ignored", 1, 0, OPT_HIDE_IGNORED}, 0, M_RUN, "fs.hide_ignored", "MODE", "all (default), secrets or none: which ignored paths are hidden"},
	{{"secret-name", 1, 0, OPT_SECRET_NAME}, 0, M_RUN, "fs.secret_names", "PATTERN", "one more secret-shaped name to hide"},
	{{"tmpfs", 1, 0, OPT_TMPFS}, 0, M_RUN, "fs.tmpfs", "PATH", "mount a tmpfs at PATH"},
	{{"env", 1, 0, OPT_ENV}, 'e', M_RUN, "env.pass", "NAME", "pass a host variable"},
	{{"path", 1, 0, OPT_PATH}, 0, M_RUN, "env.path", "DIR", "put DIR before the default PATH"},
	{{"setenv", 1, 0, OPT_SETENV}, 0, M_RUN, "env.set", "NAME=VALUE", "set a variable"},
	{{"home", 1, 0, OPT_HOME}, 0, M_RUN, "home.mode", "MODE", "fresh (default) or persistent"},
	{{"copy", 1, 0, OPT_COPY}, 0, M_RUN, "home.copy", "PATH", "copy a host file into the fake home"},
	{{"secret", 1, 0, OPT_SECRET}, 0, M_RUN, "secrets", "NAME=SOURCE", "inject a secret (env:VAR, file:PATH, cmd:CMD)"},
	{{"memory", 1, 0, OPT_MEMORY}, 0, M_RUN, "limits.memory", "SIZE", "memory limit (e.g. 4G)"},
	{{"pids", 1, 0, OPT_PIDS}, 0, M_RUN, "limits.pids", "N", "process limit"},
	{{"cpus", 1, 0, OPT_CPUS}, 0, M_RUN, "limits.cpus", "N", "CPU limit (e.g. 1.5)"},
	{{"disk", 1, 0, OPT_DISK}, 0, M_RUN, "limits.disk", "SIZE", "disk space a run may add (e.g. 2G)"},
	{{"disk-inodes", 1, 0, OPT_DISK_INODES}, 0, M_RUN, "limits.disk_inodes", "N", "files a run may add (default: one per KiB of --disk)"},
	{{"allow-syscall", 1, 0, OPT_ALLOW_SYSCALL}, 0, M_RUN, "syscalls.allow", "NAME", "allow a refused syscall back"},
	{{"no-export", 0, 0, OPT_NO_EXPORT}, 0, M_RUN, NULL, NULL, "do not write patches when the command ends"},
	{{"export-deny", 1, 0, OPT_EXPORT_DENY}, 0, M_RUN | M(CMD_DIFF) | M(CMD_EXPORT) | M(CMD_STATUS) | M(CMD_APPLY), "export.deny", "PATTERN", "leave more paths out of the patch"},
	{{"export-allow", 1, 0, OPT_EXPORT_ALLOW}, 0, M_RUN | M(CMD_DIFF) | M(CMD_EXPORT) | M(CMD_STATUS) | M(CMD_APPLY), "export.allow", "PATTERN", "let a default left-out path through"},
	{{"allow-binary", 0, 0, OPT_ALLOW_BINARY}, 0, M_RUN | M(CMD_DIFF) | M(CMD_EXPORT) | M(CMD_STATUS) | M(CMD_APPLY), "export.binary", NULL, "export binary files too"},
	{{"max-size", 1, 0, OPT_MAX_SIZE}, 0, M_RUN | M(CMD_DIFF) | M(CMD_EXPORT) | M(CMD_STATUS) | M(CMD_APPLY), "export.max_size", "SIZE", "largest file exported (default 5M)"},
	{{"stat", 0, 0, OPT_STAT}, 0, M(CMD_DIFF), NULL, NULL, "diffstat instead of the diff"},
	{{"name-status", 0, 0, OPT_NAME_STATUS}, 0, M(CMD_DIFF), NULL, NULL, "names and status letters only"},
	{{"output", 1, 0, 'o'}, 'o', M(CMD_EXPORT), NULL, "DIR", "write the patches to DIR"},
	{{"three-way", 0, 0, '3'}, '3', M(CMD_APPLY), NULL, NULL, "fall back to a three-way merge"},
	{{"accept-flagged", 0, 0, OPT_ACCEPT_FLAGGED}, 0, M(CMD_APPLY), NULL, NULL, "apply even if control files (.gitignore, ...) changed"},
	{{"revoke", 0, 0, OPT_REVOKE}, 0, M(CMD_TRUST), NULL, NULL, "forget the recorded trust"},
	{{"help", 0, 0, 'h'}, 'h', ~0u, NULL, NULL, "this help"},
	{{"version", 0, 0, OPT_VERSION}, 0, M_RUN, NULL, NULL, "print the version"},
};

void cli_usage(FILE *f)
{
	fprintf(f,
	        "usage: jail [OPTIONS] [--] COMMAND [ARGS...]   run COMMAND in a jail over the project\n"
	        "       jail SUBCOMMAND [OPTIONS]\n\n"
	        "subcommands:\n"
	        "  run       run a command (the default)\n"
	        "  diff      show the session's change as a diff\n"
	        "  status    what changed, and what is left out and why\n"
	        "  export    write the change as patch files for git am\n"
	        "  apply     land the change in the project with git am\n"
	        "  reset     discard a session's changes\n"
	        "  list      the sessions of a project\n"
	        "  policy    show|list: the effective policy, the available policies\n"
	        "  trust     honour the project's .jail.ini (records its digest)\n"
	        "  doctor    check that this host can run jail\n\n"
	        "options:\n");
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		char left[64];
		if (opts[i].shortopt)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", opts[i].shortopt,
			         opts[i].lo.name, opts[i].arg ? " " : "", opts[i].arg ? opts[i].arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", opts[i].lo.name,
			         opts[i].arg ? " " : "", opts[i].arg ? opts[i].arg : "");
		fprintf(f, "  %-30s %s\n", left, opts[i].help);
	}
	fprintf(f, "\nSee jail(1) and jail.ini(5).\n");
}

static const char *subcmd_name(enum subcmd c)
{
	for (size_t i = 0; i < ARRAY_SIZE(subcmds); i++)
		if (subcmds[i].cmd == c)
			return subcmds[i].name;
	return "run";
}

static int set_value(struct cli *c, const struct opt *o, const char *arg, struct jail_err *e)
{
	struct jail_config *g = &c->cfg;
	if (o->key && !strv_contains(&c->set_keys, o->key))
		strv_push(&c->set_keys, o->key);
	switch (o->lo.val) {
	case 'D': free(g->project); g->project = xstrdup(arg); return 0;
	case 's': free(g->session); g->session = xstrdup(arg); return 0;
	case 'p': strv_push(&g->policies, arg); return 0;
	case 'q': g->quiet = true; return 0;
	case 'o': free(c->output); c->output = xstrdup(arg); return 0;
	case '3': c->three_way = true; return 0;
	case OPT_NET:
		if (strcmp(arg, "none") == 0) g->net = NET_NONE;
		else if (strcmp(arg, "allow") == 0) g->net = NET_ALLOW;
		else if (strcmp(arg, "open") == 0) g->net = NET_OPEN;
		else return jail_err_set(e, 0, "--net %s: unknown mode; use none, allow or open", arg);
		return 0;
	case OPT_ALLOW: strv_push(&g->allow, arg); return 0;
	case OPT_DNS_UPSTREAM: free(g->dns_upstream); g->dns_upstream = xstrdup(arg); return 0;
	case OPT_PUBLISH: strv_push(&g->publish, arg); return 0;
	case OPT_RO: strv_push(&g->ro_binds, arg); return 0;
	case OPT_RW: strv_push(&g->rw_binds, arg); return 0;
	case OPT_HIDE: strv_push(&g->hide, arg); return 0;
	case OPT_SHOW: strv_push(&g->show_ignored, arg); return 0;
	case OPT_HIDE_IGNORED:
		if (strcmp(arg, "all") == 0) g->hide_ignored = HIDE_ALL;
		else if (strcmp(arg, "secrets") == 0) g->hide_ignored = HIDE_SECRETS;
		else if (strcmp(arg, "none") == 0) g->hide_ignored = HIDE_NONE;
		else return jail_err_set(e, 0, "--hide-ignored %s: unknown mode; use all, secrets or none", arg);
		return 0;
	case OPT_SECRET_NAME: strv_push(&g->secret_names, arg); return 0;
	case OPT_PATH: strv_push(&g->env_path, arg); return 0;
	case OPT_TMPFS: strv_push(&g->tmpfs, arg); return 0;
	case OPT_ENV: strv_push(&g->env_pass, arg); return 0;
	case OPT_SETENV:
		if (!strchr(arg, '=') || arg[0] == '=')
			return jail_err_set(e, 0, "--setenv %s: expected NAME=VALUE", arg);
		strv_push(&g->env_set, arg);
		return 0;
	case OPT_HOME:
		if (strcmp(arg, "fresh") == 0) g->home = HOME_FRESH;
		else if (strcmp(arg, "persistent") == 0) g->home = HOME_PERSISTENT;
		else return jail_err_set(e, 0, "--home %s: unknown mode; use fresh or persistent", arg);
		return 0;
	case OPT_COPY: strv_push(&g->home_copy, arg); return 0;
	case OPT_SECRET:
		if (!strchr(arg, '=') || arg[0] == '=')
			return jail_err_set(e, 0, "--secret: expected NAME=SOURCE (env:VAR, file:PATH or cmd:COMMAND)");
		strv_push(&g->secrets, arg);
		return 0;
	case OPT_MEMORY:
		if (policy_parse_size(arg, &g->memory) < 0 || g->memory == 0)
			return jail_err_set(e, 0, "--memory %s: expected a size such as 512M or 4G", arg);
		return 0;
	case OPT_DISK:
		if (policy_parse_size(arg, &g->disk) < 0 || g->disk == 0)
			return jail_err_set(e, 0, "--disk %s: expected a size such as 2G", arg);
		return 0;
	case OPT_DISK_INODES: {
		char *end;
		errno = 0;
		g->disk_inodes = strtoll(arg, &end, 10);
		if (errno || *end || end == arg || g->disk_inodes <= 0)
			return jail_err_set(e, 0, "--disk-inodes %s: expected a positive whole number", arg);
		return 0;
	}
	case OPT_ACCEPT_FLAGGED: c->accept_flagged = true; return 0;
	case OPT_MAX_SIZE:
		if (policy_parse_size(arg, &g->export_max_size) < 0)
			return jail_err_set(e, 0, "--max-size %s: expected a size such as 5M", arg);
		return 0;
	case OPT_PIDS: {
		char *end;
		errno = 0;
		g->pids = strtoll(arg, &end, 10);
		if (errno || *end || end == arg || g->pids <= 0)
			return jail_err_set(e, 0, "--pids %s: expected a positive whole number", arg);
		return 0;
	}
	case OPT_CPUS: {
		char *end;
		errno = 0;
		g->cpus = strtod(arg, &end);
		if (errno || *end || end == arg || !(g->cpus > 0))
			return jail_err_set(e, 0, "--cpus %s: expected a positive number such as 1.5", arg);
		return 0;
	}
	case OPT_ALLOW_SYSCALL: strv_push(&g->syscalls_allow, arg); return 0;
	case OPT_NO_EXPORT: g->no_export = true; return 0;
	case OPT_EXPORT_DENY: strv_push(&g->export_deny, arg); return 0;
	case OPT_EXPORT_ALLOW: strv_push(&g->export_allow, arg); return 0;
	case OPT_ALLOW_BINARY: g->export_binary = true; return 0;
	case OPT_STAT: c->stat = true; return 0;
	case OPT_NAME_STATUS: c->name_status = true; return 0;
	case OPT_REVOKE: c->revoke = true; return 0;
	default: return jail_err_set(e, 0, "internal: unhandled option --%s", o->lo.name);
	}
}

static enum subcmd find_subcmd(const char *word, bool *found)
{
	for (size_t i = 0; i < ARRAY_SIZE(subcmds); i++)
		if (strcmp(word, subcmds[i].name) == 0) {
			*found = true;
			return subcmds[i].cmd;
		}
	*found = false;
	return CMD_RUN;
}

static const struct opt *find_opt(int val)
{
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		if (opts[i].lo.val == val)
			return &opts[i];
	return NULL;
}

int cli_parse(int argc, char **argv, struct cli *out, struct jail_err *e)
{
	memset(out, 0, sizeof(*out));
	config_init(&out->cfg);
	int first = 1;
	bool found = false;
	if (argc > 1 && argv[1][0] != '-')
		out->cmd = find_subcmd(argv[1], &found);
	if (found)
		first = 2;

	struct option lopts[ARRAY_SIZE(opts) + 1];
	char shorts[64] = "+:";  /* stop at the first non-option; report missing args */
	size_t sl = strlen(shorts);
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		lopts[i] = opts[i].lo;
		if (opts[i].shortopt) {
			shorts[sl++] = opts[i].shortopt;
			if (opts[i].lo.has_arg)
				shorts[sl++] = ':';
		}
	}
	shorts[sl] = '\0';
	memset(&lopts[ARRAY_SIZE(opts)], 0, sizeof(struct option));
	/* -e is the short form of --env */
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		if (opts[i].shortopt == 'e')
			lopts[i].val = 'e';

	int sub_argc = argc - first + 1;
	char **sub_argv = argv + first - 1;
	optind = 1;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(sub_argc, sub_argv, shorts, lopts, NULL)) != -1) {
		if (ch == '?') {
			const char *bad = sub_argv[optind - 1];
			if (optopt)
				return jail_err_set(e, 0, "unknown option -%c; see jail --help", optopt);
			return jail_err_set(e, 0, "unknown option %s; see jail --help", bad);
		}
		if (ch == ':')
			return jail_err_set(e, 0, "option %s needs a value; see jail --help",
			                    sub_argv[optind - 1]);
		const struct opt *o = find_opt(ch == 'e' ? OPT_ENV : ch);
		if (!o)
			return jail_err_set(e, 0, "internal: unknown option code %d", ch);
		if (o->lo.val == 'h') {
			out->cmd = CMD_HELP;
			return 0;
		}
		if (o->lo.val == OPT_VERSION) {
			out->cmd = CMD_VERSION;
			return 0;
		}
		if (!(o->cmds & M(out->cmd)))
			return jail_err_set(e, 0, "option --%s does not apply to 'jail %s'; see jail --help",
			                    o->lo.name, subcmd_name(out->cmd));
		if (set_value(out, o, optarg, e) < 0)
			return -1;
	}
	out->args = sub_argv + optind;
	if (out->cmd == CMD_RUN) {
		if (!out->args[0])
			return jail_err_set(e, 0, "no command given; usage: jail [-D DIR] -- COMMAND [ARGS...]");
		out->cfg.argv = out->args;
	}
	return 0;
}

bool cli_sets(const struct cli *c, const char *key) { return strv_contains(&c->set_keys, key); }

void cli_free(struct cli *c)
{
	config_free(&c->cfg);
	strv_free(&c->set_keys);
	free(c->output);
	memset(c, 0, sizeof(*c));
}
