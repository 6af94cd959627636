/* run.c — `jail run` (placeholder while the sandbox is built). */
#include "commands.h"
#include "log.h"
int cmd_run(struct cli *c)
{
	log_error("'jail run' is not implemented yet");
	return EXIT_JAIL_FAIL;
}
