/* cli.h — the command line: subcommand and flags into struct cli. */
#ifndef JAIL_CLI_H
#define JAIL_CLI_H

#include "config.h"

enum subcmd {
	CMD_RUN = 0, CMD_RESET, CMD_LIST, CMD_DOCTOR, CMD_DIFF, CMD_EXPORT, CMD_STATUS,
	CMD_POLICY, CMD_TRUST, CMD_APPLY, CMD_HELP, CMD_VERSION,
};

struct cli {
	enum subcmd cmd;
	struct jail_config cfg;  /* flags that override the policy */
	struct strv set_keys;    /* which [section] key the flags set, for policy layering */
	/* subcommand options */
	bool stat, name_status;  /* diff */
	char *output;            /* export -o DIR */
	bool three_way;          /* apply -3 */
	bool accept_flagged;     /* apply --accept-flagged */
	bool revoke;             /* trust --revoke */
	char **args;             /* positional args of a subcommand (policy show|list) */
};

/* Parse argv; on error fill *e (one line, naming the flag and the fix). */
int cli_parse(int argc, char **argv, struct cli *out, struct jail_err *e) WUR;
void cli_free(struct cli *c);
void cli_usage(FILE *f);
/* Did the command line set this config key ("net.mode", "limits.memory")? */
bool cli_sets(const struct cli *c, const char *key);

#endif
