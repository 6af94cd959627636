/* commands.h — one entry point per subcommand; each returns jail's exit status. */
#ifndef JAIL_COMMANDS_H
#define JAIL_COMMANDS_H
#include "cli.h"

int cmd_run(struct cli *c);     /* run.c */
int cmd_reset(struct cli *c);   /* sessions.c */
int cmd_list(struct cli *c);    /* sessions.c */
int cmd_doctor(struct cli *c);  /* doctor.c */
int cmd_diff(struct cli *c);    /* cmd_export.c */
int cmd_export(struct cli *c);  /* cmd_export.c */
int cmd_status(struct cli *c);  /* cmd_export.c */
int cmd_apply(struct cli *c);   /* cmd_export.c */
int cmd_policy(struct cli *c);  /* cmd_policy.c */
int cmd_trust(struct cli *c);   /* cmd_policy.c */
int cmd_rm(struct cli *c);      /* sessions.c */
int cmd_ps(struct cli *c);      /* live.c */
int cmd_stop(struct cli *c);    /* live.c */
int cmd_exec(struct cli *c);    /* live.c */

/* After the command of `jail run` ended: export the session's change and print the
 * summary (cmd_export.c).  `view`: the run's view server, whose hidden list
 * the export waits for when there is something to export (or NULL).
 * Returns 0, or -1 with *e set. */
struct session;
struct hidefs;
int export_after_run(struct session *s, const struct jail_config *cfg, struct hidefs *view,
                     struct jail_err *e) WUR;

#endif
