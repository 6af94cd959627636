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
#define M_EXPORTS (M(CMD_DIFF) | M(CMD_EXPORT) | M(CMD_STATUS) | M(CMD_APPLY))
#define M_SESSION (M_RUN | M_EXPORTS | M(CMD_RESET) | M(CMD_RM) | M(CMD_STOP) | M(CMD_EXEC))
#define M_PROJECT (M_SESSION | M(CMD_LIST) | M(CMD_POLICY) | M(CMD_TRUST))

/* Each subcommand: its name, what it does, its arguments after the options,
 * and how many it takes (ARGS_ANY: any number; a run's command is required). */
#define ARGS_ANY 1000
static const struct {
	const char *name;
	enum subcmd cmd;
	int max_args;
	const char *args, *help;
} subcmds[] = {
	{"run", CMD_RUN, ARGS_ANY, "[--] COMMAND [ARGS...]", "run a command (the default)"},
	{"exec", CMD_EXEC, ARGS_ANY, "[--] COMMAND [ARGS...]", "run a command in the session's running jail"},
	{"diff", CMD_DIFF, ARGS_ANY, "[PATH...]", "show the session's change as it lands"},
	{"status", CMD_STATUS, ARGS_ANY, "[PATH...]", "what changed, and what is left out and why"},
	{"export", CMD_EXPORT, ARGS_ANY, "[PATH...]", "write the change as patch files for git am"},
	{"apply", CMD_APPLY, ARGS_ANY, "[PATH...]", "land the change in the project with git am"},
	{"reset", CMD_RESET, ARGS_ANY, "[PATH...]", "discard a session's changes (to PATHs only)"},
	{"rm", CMD_RM, 0, "", "delete a session"},
	{"list", CMD_LIST, 0, "", "the sessions of a project (--all: of every project)"},
	{"ps", CMD_PS, 0, "", "the running jails of every project"},
	{"stop", CMD_STOP, 0, "", "stop a session's running jail"},
	{"policy", CMD_POLICY, 1, "[show|list]", "show|list: the effective policy, the available policies"},
	{"trust", CMD_TRUST, 0, "", "honour the project's .jail.ini (records its digest)"},
	{"doctor", CMD_DOCTOR, 0, "", "check that this host can run jail"},
	{"help", CMD_HELP, 1, "[SUBCOMMAND]", "this help, or a subcommand's"},
	{"version", CMD_VERSION, 0, "", "print the version"},
};

enum {
	OPT_NET = 256, OPT_ALLOW, OPT_DNS_UPSTREAM, OPT_PUBLISH, OPT_RO, OPT_RW, OPT_COW, OPT_HIDE,
	OPT_SHOW, OPT_TMPFS, OPT_ENV, OPT_SETENV, OPT_HOME, OPT_COPY, OPT_SECRET, OPT_MEMORY,
	OPT_PIDS, OPT_CPUS, OPT_ALLOW_SYSCALL, OPT_STAT, OPT_NAME_STATUS, OPT_NO_EXPORT,
	OPT_EXPORT_DENY, OPT_ALLOW_BINARY, OPT_HIDE_START_ONLY, OPT_MAX_SIZE, OPT_REVOKE, OPT_VERSION,
	OPT_DISK, OPT_EXPORT_ALLOW, OPT_DISK_INODES, OPT_ACCEPT_FLAGGED, OPT_SQUASH, OPT_NO_TRAILER, OPT_ALL, OPT_COLOR, OPT_TIMEOUT,
	OPT_HIDE_IGNORED, OPT_SECRET_NAME, OPT_PATH,
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
	{{"cow", 1, 0, OPT_COW}, 0, M_RUN, "fs.cow", "DIR", "see a host directory copy-on-write: writes stay in the session"},
	{{"hide", 1, 0, OPT_HIDE}, 0, M_RUN, "fs.hide", "PATTERN", "hide more project paths"},
	{{"show", 1, 0, OPT_SHOW}, 0, M_RUN, "fs.show_ignored", "PATTERN", "show a git-ignored project path"},
	{{"hide-ignored", 1, 0, OPT_HIDE_IGNORED}, 0, M_RUN, "fs.hide_ignored", "MODE", "all (default), secrets or none: which ignored paths are hidden"},
	{{"secret-name", 1, 0, OPT_SECRET_NAME}, 0, M_RUN, "fs.secret_names", "PATTERN", "one more secret-shaped name to hide"},
	{{"hide-start-only", 0, 0, OPT_HIDE_START_ONLY}, 0, M_RUN, "fs.hide_start_only", NULL, "hide ignored files as at start only (no /dev/fuse)"},
	{{"tmpfs", 1, 0, OPT_TMPFS}, 0, M_RUN, "fs.tmpfs", "PATH", "mount a tmpfs at PATH"},
	{{"env", 1, 0, OPT_ENV}, 'e', M_RUN, "env.pass", "NAME", "pass a host variable"},
	{{"path", 1, 0, OPT_PATH}, 0, M_RUN, "env.path", "DIR", "put DIR before the default PATH"},
	{{"setenv", 1, 0, OPT_SETENV}, 0, M_RUN, "env.set", "NAME=VALUE", "set a variable"},
	{{"home", 1, 0, OPT_HOME}, 0, M_RUN, "home.mode", "MODE", "fresh (default) or persistent"},
	{{"copy", 1, 0, OPT_COPY}, 0, M_RUN, "home.copy", "PATH", "copy a host file into the fake home"},
	{{"secret", 1, 0, OPT_SECRET}, 0, M_RUN, "secrets", "NAME=SOURCE", "inject a secret (env:VAR, file:PATH, cmd:CMD, broker:SRC for HOST)"},
	{{"memory", 1, 0, OPT_MEMORY}, 0, M_RUN, "limits.memory", "SIZE", "memory limit (e.g. 4G)"},
	{{"pids", 1, 0, OPT_PIDS}, 0, M_RUN, "limits.pids", "N", "process limit"},
	{{"cpus", 1, 0, OPT_CPUS}, 0, M_RUN, "limits.cpus", "N", "CPU limit (e.g. 1.5)"},
	{{"disk", 1, 0, OPT_DISK}, 0, M_RUN, "limits.disk", "SIZE", "disk space a run may add (e.g. 2G)"},
	{{"disk-inodes", 1, 0, OPT_DISK_INODES}, 0, M_RUN, "limits.disk_inodes", "N", "files a run may add (default: one per KiB of --disk)"},
	{{"allow-syscall", 1, 0, OPT_ALLOW_SYSCALL}, 0, M_RUN, "syscalls.allow", "NAME", "allow a refused syscall back"},
	{{"no-export", 0, 0, OPT_NO_EXPORT}, 0, M_RUN, NULL, NULL, "do not write patches when the command ends"},
	{{"export-deny", 1, 0, OPT_EXPORT_DENY}, 0, M_RUN | M_EXPORTS, "export.deny", "PATTERN", "leave more paths out of the patch"},
	{{"export-allow", 1, 0, OPT_EXPORT_ALLOW}, 0, M_RUN | M_EXPORTS, "export.allow", "PATTERN", "let a default left-out path through"},
	{{"allow-binary", 0, 0, OPT_ALLOW_BINARY}, 0, M_RUN | M_EXPORTS, "export.binary", NULL, "export binary files too"},
	{{"max-size", 1, 0, OPT_MAX_SIZE}, 0, M_RUN | M_EXPORTS, "export.max_size", "SIZE", "largest file exported (default 5M)"},
	{{"squash", 0, 0, OPT_SQUASH}, 0, M_RUN | M_EXPORTS, "export.series", NULL, "one patch instead of one per commit of the agent"},
	{{"no-trailer", 0, 0, OPT_NO_TRAILER}, 0, M_RUN | M_EXPORTS, "export.trailer", NULL, "no Jail-Session: trailer on the patches"},
	{{"message", 1, 0, 'm'}, 'm', M(CMD_EXPORT) | M(CMD_APPLY), NULL, "MSG", "subject of the uncommitted changes' patch"},
	{{"stat", 0, 0, OPT_STAT}, 0, M(CMD_DIFF), NULL, NULL, "diffstat instead of the diff"},
	{{"name-status", 0, 0, OPT_NAME_STATUS}, 0, M(CMD_DIFF), NULL, NULL, "names and status letters only"},
	{{"output", 1, 0, 'o'}, 'o', M(CMD_EXPORT), NULL, "DIR", "write the patches to DIR"},
	{{"three-way", 0, 0, '3'}, '3', M(CMD_APPLY), NULL, NULL, "fall back to a three-way merge"},
	{{"accept-flagged", 0, 0, OPT_ACCEPT_FLAGGED}, 0, M(CMD_APPLY), NULL, NULL, "apply even if control files (.gitignore, ...) changed"},
	{{"revoke", 0, 0, OPT_REVOKE}, 0, M(CMD_TRUST), NULL, NULL, "forget the recorded trust"},
	{{"all", 0, 0, OPT_ALL}, 0, M(CMD_LIST) | M(CMD_RESET), NULL, NULL, "list: every project's sessions; reset: all changes, without asking"},
	{{"color", 2, 0, OPT_COLOR}, 0, M(CMD_DIFF), NULL, "[=WHEN]", "colour the diff: always, never or auto (default)"},
	{{"timeout", 1, 0, OPT_TIMEOUT}, 0, M(CMD_STOP), NULL, "SECONDS", "stop: SIGKILL after SECONDS (default 10)"},
	{{"help", 0, 0, 'h'}, 'h', ~0u, NULL, NULL, "this help"},
	{{"version", 0, 0, 'V'}, 'V', ~0u, NULL, NULL, "print the version"},
};

static void usage_opts(FILE *f, unsigned mask)
{
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		if (!(opts[i].cmds & mask))
			continue;
		const char *arg = opts[i].arg ? opts[i].arg : "";
		const char *sep = arg[0] && arg[0] != '[' ? " " : "";
		char left[64];
		if (opts[i].shortopt)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", opts[i].shortopt,
			         opts[i].lo.name, sep, arg);
		else
			snprintf(left, sizeof(left), "    --%s%s%s", opts[i].lo.name, sep, arg);
		fprintf(f, "  %-30s %s\n", left, opts[i].help);
	}
}

void cli_usage(FILE *f)
{
	fprintf(f,
	        "usage: jail [OPTIONS] [--] COMMAND [ARGS...]   run COMMAND in a jail over the project\n"
	        "       jail SUBCOMMAND [OPTIONS] [ARGS]        (jail SUBCOMMAND --help: its options)\n\n"
	        "subcommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(subcmds); i++)
		fprintf(f, "  %-9s %s\n", subcmds[i].name, subcmds[i].help);
	fprintf(f, "\noptions:\n");
	usage_opts(f, ~0u);
	fprintf(f, "\nSee jail(1) and jail.ini(5).\n");
}

void cli_usage_cmd(FILE *f, enum subcmd c)
{
	for (size_t i = 0; i < ARRAY_SIZE(subcmds); i++) {
		if (subcmds[i].cmd != c)
			continue;
		if (c == CMD_HELP) {
			cli_usage(f);
			return;
		}
		/* run is the default: its name is optional, and it lists only its own
		 * options (jail --help lists every subcommand's) */
		fprintf(f, "usage: jail %s [OPTIONS]%s%s\n  %s\n\noptions:\n",
		        c == CMD_RUN ? "[run]" : subcmds[i].name,
		        subcmds[i].args[0] ? " " : "", subcmds[i].args, subcmds[i].help);
		usage_opts(f, M(c));
		fprintf(f, "\nSee jail(1).\n");
		return;
	}
	cli_usage(f);
}

static const char *subcmd_name(enum subcmd c)
{
	for (size_t i = 0; i < ARRAY_SIZE(subcmds); i++)
		if (subcmds[i].cmd == c)
			return subcmds[i].name;
	return "run";
}

/* One project a jail: a second -D naming another directory would silently
 * replace the first (`jail -D ../lib -D . -- npm test` ran without ../lib). */
static int set_project(struct cli *c, const char *arg, struct jail_err *e)
{
	_cleanup_free_ char *dir = expand_home(arg);
	if (c->dir_given && strcmp(dir, c->cfg.project) != 0) {
		_cleanup_free_ char *a = escape_name(c->cfg.project);
		_cleanup_free_ char *b = escape_name(dir);
		return jail_err_set(e, 0, "-D given twice ('%s', '%s'): a jail has one project; "
		                    "show another directory with --ro or --rw", a, b);
	}
	free(c->cfg.project);
	c->cfg.project = steal_ptr(&dir);
	c->dir_given = true;
	return 0;
}

static int set_value(struct cli *c, const struct opt *o, const char *arg, struct jail_err *e)
{
	struct jail_config *g = &c->cfg;
	if (o->key && !strv_contains(&c->set_keys, o->key))
		strv_push(&c->set_keys, o->key);
	switch (o->lo.val) {
	/* ~/ as --ro and the other paths take it: the shell leaves --dir=~/x as is */
	case 'D': return set_project(c, arg, e);
	case 's': free(g->session); g->session = xstrdup(arg); return 0;
	case 'p': strv_push(&g->policies, arg); return 0;
	case 'q': g->quiet = true; return 0;
	case 'o': free(c->output); c->output = expand_home(arg); return 0;
	case '3': c->three_way = true; return 0;
	case 'm':
		/* an empty subject would let the body's first line take its place */
		if (!arg[strspn(arg, " \t\n")])
			return jail_err_set(e, 0, "-m: the message is empty; give a subject, or leave -m "
			                    "out for one that names what changed");
		free(c->message);
		c->message = xstrdup(arg);
		return 0;
	case OPT_SQUASH: g->export_series = false; return 0;
	case OPT_NO_TRAILER: g->export_trailer = false; return 0;
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
	case OPT_COW: strv_push(&g->cow_binds, arg); return 0;
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
	case OPT_HIDE_START_ONLY: g->hide_start_only = true; return 0;
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
			return jail_err_set(e, 0, "--secret %s: expected NAME=SOURCE (env:VAR, file:PATH, "
			                    "cmd:COMMAND or broker:SOURCE for HOST)", arg);
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
	case OPT_ALL: c->all = true; return 0;
	case OPT_COLOR:
		if (!arg || strcmp(arg, "always") == 0) c->color = COLOR_ALWAYS;
		else if (strcmp(arg, "never") == 0) c->color = COLOR_NEVER;
		else if (strcmp(arg, "auto") == 0) c->color = COLOR_AUTO;
		else return jail_err_set(e, 0, "--color=%s: use always, never or auto", arg);
		return 0;
	case OPT_TIMEOUT: {
		char *end;
		errno = 0;
		long v = strtol(arg, &end, 10);
		if (errno || *end || end == arg || v < 0 || v > 86400)
			return jail_err_set(e, 0, "--timeout %s: expected whole seconds (0-86400)", arg);
		c->timeout = (int)v;
		return 0;
	}
	default: return jail_err_set(e, 0, "internal: unhandled option --%s", o->lo.name);
	}
}

static int find_subcmd(const char *word)
{
	for (size_t i = 0; i < ARRAY_SIZE(subcmds); i++)
		if (strcmp(word, subcmds[i].name) == 0)
			return (int)i;
	return -1;
}

static const struct opt *find_opt(int val)
{
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		if (opts[i].lo.val == val)
			return &opts[i];
	return NULL;
}

/* Edit distance with adjacent transpositions ("stauts" is 1 from "status"). */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 31 || lb > 31)
		return 99;
	size_t d[32][32];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t v = d[i - 1][j - 1] + cost;
			if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

const char *cli_suggest(const char *word)
{
	size_t n = strlen(word);
	if (n < 2 || strchr(word, '/'))
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(subcmds); i++) {
		size_t d = edit_distance(word, subcmds[i].name);
		if (d <= (n >= 5 ? 2u : 1u))
			return subcmds[i].name;
	}
	return NULL;
}

/* The long option a mistyped one probably meant (--stats → --stat), among
 * those the subcommand takes; NULL when none is close. */
static const char *suggest_option(const char *typed, enum subcmd cmd)
{
	char name[32];
	size_t n = strcspn(typed, "=");
	if (n < 2 || n >= sizeof(name))
		return NULL;
	memcpy(name, typed, n);
	name[n] = '\0';
	const char *best = NULL;
	size_t best_d = n >= 5 ? 2 : 1;
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		if (!(opts[i].cmds & M(cmd)))
			continue;
		size_t d = edit_distance(name, opts[i].lo.name);
		if (d < best_d || (d == best_d && !best)) {
			best = opts[i].lo.name;
			best_d = d;
		}
	}
	return best;
}

/* getopt takes a unique prefix of a long option (--pub for --publish); one
 * that several options share is refused: name them.  True when it was. */
static bool ambiguous_option(const char *typed, struct jail_err *e)
{
	size_t n = strcspn(typed, "=");
	struct strbuf b = {0};
	int hits = 0;
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		if (n && strncmp(opts[i].lo.name, typed, n) == 0)
			sb_printf(&b, "%s--%s", hits++ ? ", " : "", opts[i].lo.name);
	if (hits > 1)
		jail_err_set(e, 0, "option --%.*s is ambiguous (%s); write the option in full",
		             (int)n, typed, b.s);
	sb_free(&b);
	return hits > 1;
}

/* Is word a program in one of $PATH's directories? */
static bool on_path(const char *word)
{
	const char *path = getenv("PATH");
	if (!path || strchr(word, '/'))
		return true;
	_cleanup_free_ char *copy = xstrdup(path);
	char *save = NULL;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		_cleanup_free_ char *p = xasprintf("%s/%s", d[0] ? d : ".", word);
		if (access(p, X_OK) == 0)
			return true;
	}
	return false;
}

static void build_getopt(struct option *lopts, char *shorts)
{
	size_t sl = strlen(shorts);
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		lopts[i] = opts[i].lo;
		if (opts[i].shortopt) {
			shorts[sl++] = opts[i].shortopt;
			if (opts[i].lo.has_arg)
				shorts[sl++] = ':';
		}
		/* -e is the short form of --env */
		if (opts[i].shortopt == 'e')
			lopts[i].val = 'e';
	}
	shorts[sl] = '\0';
	memset(&lopts[ARRAY_SIZE(opts)], 0, sizeof(struct option));
}

/* A value given as its own word never starts with '-': `--hide -- true` is a
 * forgotten value, not the pattern "--" (--hide=-x says it on purpose). */
static int check_value_word(const struct opt *o, const char *arg, char *const *argv,
                            struct jail_err *e)
{
	if (o->lo.has_arg != 1 || arg != argv[optind - 1] || arg[0] != '-' || !arg[1])
		return 0;
	/* as typed: -D or --dir */
	bool is_short = argv[optind - 2][0] == '-' && argv[optind - 2][1] != '-';
	char name[40];
	if (is_short)
		snprintf(name, sizeof(name), "-%c", o->shortopt);
	else
		snprintf(name, sizeof(name), "--%s", o->lo.name);
	return jail_err_set(e, 0, "option %s needs a value (%s), got '%s'; give it one (or %s%s "
	                    "for a value that starts with '-')", name, o->arg ? o->arg : "",
	                    arg, name, is_short ? "VALUE" : "=VALUE");
}

static int take_option(struct cli *out, int ch, char *const *argv, struct jail_err *e)
{
	if (ch == '?') {
		const char *bad = argv[optind - 1];
		if (optopt)
			return jail_err_set(e, 0, "unknown option -%c; see jail %s --help", optopt,
			                    subcmd_name(out->cmd));
		if (strncmp(bad, "--", 2) == 0 && ambiguous_option(bad + 2, e))
			return -1;
		const char *near = strncmp(bad, "--", 2) == 0 ? suggest_option(bad + 2, out->cmd) : NULL;
		if (near)
			return jail_err_set(e, 0, "unknown option %s (did you mean --%s?); see jail %s "
			                    "--help", bad, near, subcmd_name(out->cmd));
		return jail_err_set(e, 0, "unknown option %s; see jail %s --help", bad,
		                    subcmd_name(out->cmd));
	}
	if (ch == ':')
		return jail_err_set(e, 0, "option %s needs a value; see jail %s --help",
		                    argv[optind - 1], subcmd_name(out->cmd));
	const struct opt *o = find_opt(ch == 'e' ? OPT_ENV : ch);
	if (!o)
		return jail_err_set(e, 0, "internal: unknown option code %d", ch);
	if (o->lo.val == 'h' || o->lo.val == 'V')
		return 1;
	if (!(o->cmds & M(out->cmd)))
		return jail_err_set(e, 0, "option --%s does not apply to 'jail %s'; see jail %s --help",
		                    o->lo.name, subcmd_name(out->cmd), subcmd_name(out->cmd));
	if (check_value_word(o, optarg, argv, e) < 0)
		return -1;
	/* `--color always`: the value of an optional argument is attached, and
	 * "always" would be taken for a PATH */
	const char *next = argv[optind];
	if (o->lo.has_arg == 2 && !optarg && next &&
	    (!strcmp(next, "always") || !strcmp(next, "never") || !strcmp(next, "auto")))
		return jail_err_set(e, 0, "--%s %s: write --%s=%s (the value is attached with '=')",
		                    o->lo.name, next, o->lo.name, next);
	return set_value(out, o, optarg, e);
}

/* Options that ask for two different things at once: one would be ignored. */
static int check_conflicts(const struct cli *out, struct jail_err *e)
{
	if (out->stat && out->name_status)
		return jail_err_set(e, 0, "--stat and --name-status: give one of them");
	if (out->cmd == CMD_LIST && out->all && out->dir_given)
		return jail_err_set(e, 0, "jail list: --all lists every project, -D one; give one "
		                    "of them");
	return 0;
}

/* The words after the options: a command, or a subcommand's arguments. */
static int check_args(struct cli *out, int sub, bool dashdash, struct jail_err *e)
{
	size_t n = 0;
	while (out->args[n])
		n++;
	if (out->cmd == CMD_RUN || out->cmd == CMD_EXEC) {
		const char *u = out->cmd == CMD_RUN ? "jail [-D DIR] -- COMMAND [ARGS...]"
		                                    : "jail exec [-D DIR] [-s NAME] -- COMMAND [ARGS...]";
		if (!n)
			return jail_err_set(e, 0, "no command given; usage: %s", u);
		out->cfg.argv = out->args;
		/* `jail -D DIR status`: the subcommand after the options would run a
		 * program of that name (diff, ps and reset are on PATH), never the
		 * subcommand; -- says a program is meant */
		if (sub < 0 && !dashdash && find_subcmd(out->args[0]) >= 0)
			return jail_err_set(e, 0, "'%s' is a jail subcommand, which comes first: jail %s "
			                    "[OPTIONS]; for a program of that name write -- before it",
			                    out->args[0], out->args[0]);
		/* `jail stauts`: a typo of a subcommand, not a program to run */
		const char *near = sub < 0 && !dashdash ? cli_suggest(out->args[0]) : NULL;
		if (near && !on_path(out->args[0])) {
			_cleanup_free_ char *esc = escape_name(out->args[0]);
			return jail_err_set(e, 0, "'%s' is not a jail command (did you mean '%s'?) nor "
			                    "found on PATH", esc, near);
		}
		return 0;
	}
	int max = sub >= 0 ? subcmds[sub].max_args : 0;
	if ((int)n > max) {
		_cleanup_free_ char *esc = escape_name(out->args[max]);
		return jail_err_set(e, 0, "'jail %s' takes %s, got '%s'; see jail %s --help",
		                    subcmd_name(out->cmd), max ? "fewer arguments" : "no arguments",
		                    esc, subcmd_name(out->cmd));
	}
	return 0;
}

int cli_parse(int argc, char **argv, struct cli *out, struct jail_err *e)
{
	memset(out, 0, sizeof(*out));
	config_init(&out->cfg);
	out->timeout = 10;
	out->help_cmd = CMD_HELP; /* bare `jail help`: the whole usage */
	int sub = argc > 1 && argv[1][0] != '-' ? find_subcmd(argv[1]) : -1;
	int first = sub >= 0 ? 2 : 1;
	out->cmd = sub >= 0 ? subcmds[sub].cmd : CMD_RUN;
	struct option lopts[ARRAY_SIZE(opts) + 1];
	/* a run stops at its command; the other subcommands take options anywhere
	 * (`jail diff README -s x`); ':' reports missing values */
	char shorts[64];
	strcpy(shorts, out->cmd == CMD_RUN || out->cmd == CMD_EXEC ? "+:" : ":");
	build_getopt(lopts, shorts);
	int sub_argc = argc - first + 1;
	char **sub_argv = argv + first - 1;
	optind = 1;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(sub_argc, sub_argv, shorts, lopts, NULL)) != -1) {
		int r = take_option(out, ch, sub_argv, e);
		if (r < 0)
			return -1;
		if (r == 1) {
			/* jail --help: everything; jail SUBCOMMAND --help: its own */
			out->help_cmd = sub >= 0 ? out->cmd : CMD_HELP;
			out->cmd = ch == 'h' ? CMD_HELP : CMD_VERSION;
			return 0;
		}
	}
	if (check_conflicts(out, e) < 0)
		return -1;
	out->args = sub_argv + optind;
	bool dashdash = optind > 1 && strcmp(sub_argv[optind - 1], "--") == 0;
	if (check_args(out, sub, dashdash, e) < 0)
		return -1;
	if (out->cmd == CMD_HELP && out->args[0]) {
		int h = find_subcmd(out->args[0]);
		if (h < 0) {
			_cleanup_free_ char *esc = escape_name(out->args[0]);
			return jail_err_set(e, 0, "jail help %s: no such subcommand; see jail --help", esc);
		}
		out->help_cmd = subcmds[h].cmd;
	}
	return 0;
}

bool cli_sets(const struct cli *c, const char *key) { return strv_contains(&c->set_keys, key); }

void cli_free(struct cli *c)
{
	config_free(&c->cfg);
	strv_free(&c->set_keys);
	free(c->output);
	free(c->message);
	memset(c, 0, sizeof(*c));
}
