/* main.c — parse the command line and dispatch; the only place jail exits. */
#include "commands.h"
#include "log.h"

#include <errno.h>
#include <string.h>

#include "version.h" /* made by the Makefile: git describe, or a tarball's VERSION */

int main(int argc, char **argv)
{
	struct cli c;
	struct jail_err e = {0};
	if (cli_parse(argc, argv, &c, &e) < 0) {
		log_error("%s", e.msg);
		cli_free(&c);
		return EXIT_JAIL_FAIL;
	}
	log_set_quiet(c.cfg.quiet);
	int rc;
	switch (c.cmd) {
	case CMD_RUN: rc = cmd_run(&c); break;
	case CMD_RESET: rc = cmd_reset(&c); break;
	case CMD_LIST: rc = cmd_list(&c); break;
	case CMD_DOCTOR: rc = cmd_doctor(&c); break;
	case CMD_DIFF: rc = cmd_diff(&c); break;
	case CMD_EXPORT: rc = cmd_export(&c); break;
	case CMD_STATUS: rc = cmd_status(&c); break;
	case CMD_APPLY: rc = cmd_apply(&c); break;
	case CMD_POLICY: rc = cmd_policy(&c); break;
	case CMD_TRUST: rc = cmd_trust(&c); break;
	case CMD_RM: rc = cmd_rm(&c); break;
	case CMD_PS: rc = cmd_ps(&c); break;
	case CMD_STOP: rc = cmd_stop(&c); break;
	case CMD_EXEC: rc = cmd_exec(&c); break;
	case CMD_VERSION: printf("jail %s\n", JAIL_VERSION); rc = 0; break;
	case CMD_HELP:
	default: cli_usage_cmd(stdout, c.help_cmd); rc = 0; break;
	}
	/* what jail itself printed (help, version, list, ps, ...) must have
	 * reached standard output: `jail list >/dev/full` is no success.  A run's
	 * and an exec's status is the command's, and their output is its own. */
	if (c.cmd != CMD_RUN && c.cmd != CMD_EXEC && rc == 0) {
		int err = fflush(stdout) != 0 ? errno : ferror(stdout) ? EIO : 0;
		if (err) {
			log_error("write to standard output: %s", strerror(err));
			rc = EXIT_JAIL_FAIL;
		}
	}
	cli_free(&c);
	return rc;
}
