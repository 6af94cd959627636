/* cmd_export.c — diff, status, export, apply (placeholder until the export lands). */
#include "commands.h"
#include "log.h"

static int not_yet(const char *what)
{
	log_error("'jail %s' is not implemented yet", what);
	return EXIT_JAIL_FAIL;
}
int cmd_diff(struct cli *c) { return not_yet("diff"); }
int cmd_export(struct cli *c) { return not_yet("export"); }
int cmd_status(struct cli *c) { return not_yet("status"); }
int cmd_apply(struct cli *c) { return not_yet("apply"); }
int export_after_run(struct session *s, const struct jail_config *cfg, struct jail_err *e)
{
	return 0;
}
