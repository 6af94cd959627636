/* resources.c — placeholder: core dumps off (hardening issue completes it). */
#include "resources.h"

#include <sys/resource.h>

int limits_cgroup_attach(const struct jail_config *cfg, pid_t init_pid, struct jail_err *e)
{
	return 0;
}

int limits_apply_rlimits(const struct jail_config *cfg, bool cgroup_in_force,
                         struct jail_err *e)
{
	struct rlimit none = {0, 0};
	if (setrlimit(RLIMIT_CORE, &none) < 0)
		return jail_err_sys(e, "setrlimit RLIMIT_CORE");
	return 0;
}

void limits_cgroup_cleanup(void) {}
