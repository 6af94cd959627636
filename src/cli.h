/* cli.h — the command line: subcommand and flags into struct cli. */
#ifndef JAIL_CLI_H
#define JAIL_CLI_H

#include "config.h"

enum subcmd {
	CMD_RUN = 0, CMD_RESET, CMD_LIST, CMD_DOCTOR, CMD_DIFF, CMD_EXPORT, CMD_STATUS,
	CMD_POLICY, CMD_TRUST, CMD_APPLY, CMD_HELP, CMD_VERSION, CMD_RM, CMD_PS, CMD_STOP,
	CMD_EXEC,
};

enum color_when { COLOR_AUTO = 0, COLOR_ALWAYS, COLOR_NEVER };

struct cli {
	enum subcmd cmd;
	struct jail_config cfg;  /* flags that override the policy */
	struct strv set_keys;    /* which [section] key the flags set, for policy layering */
	/* subcommand options */
	bool stat, name_status;  /* diff */
	char *output;            /* export -o DIR */
	bool three_way;          /* apply -3 */
	bool accept_flagged;     /* apply --accept-flagged */
	char *message;           /* export/apply -m: subject of the uncommitted changes */
	bool revoke;             /* trust --revoke */
	bool all;                /* list --all, reset --all */
	bool dir_given;          /* -D on the line (list --all takes none) */
	enum color_when color;   /* diff --color */
	int timeout;             /* stop --timeout (seconds) */
	enum subcmd help_cmd;    /* help: whose usage */
	char **args;             /* positional args of a subcommand (policy show|list) */
};

/* Parse argv; on error fill *e (one line, naming the flag and the fix). */
int cli_parse(int argc, char **argv, struct cli *out, struct jail_err *e) WUR;
void cli_free(struct cli *c);
void cli_usage(FILE *f);
/* One subcommand's usage and options (`jail diff --help`). */
void cli_usage_cmd(FILE *f, enum subcmd c);
/* The subcommand a mistyped word probably meant ("stauts" → "status"), or NULL. */
const char *cli_suggest(const char *word);
/* Did the command line set this config key ("net.mode", "limits.memory")? */
bool cli_sets(const struct cli *c, const char *key);

#endif
