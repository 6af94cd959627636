/* cmd_policy.c — policy show|list, trust (placeholder until policies land). */
#include "commands.h"
#include "log.h"

int cmd_policy(struct cli *c)
{
	log_error("'jail policy' is not implemented yet");
	return EXIT_JAIL_FAIL;
}
int cmd_trust(struct cli *c)
{
	log_error("'jail trust' is not implemented yet");
	return EXIT_JAIL_FAIL;
}
