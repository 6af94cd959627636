/* policy.c — placeholder: the flags alone, until the INI policies land. */
#include "policy.h"

#include <string.h>

int policy_resolve(struct cli *cli, const char *project, struct jail_config *out,
                   struct jail_err *e)
{
	*out = cli->cfg;
	config_init(&cli->cfg);
	return 0;
}
