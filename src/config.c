/* config.c — defaults for struct jail_config. */
#include "config.h"

#include <string.h>

void config_init(struct jail_config *c)
{
	memset(c, 0, sizeof(*c));
	c->project = xstrdup(".");
	c->session = xstrdup("default");
	c->export_max_size = 5LL * 1024 * 1024;
	c->export_series = true;
	c->export_trailer = true;
}

void config_free(struct jail_config *c)
{
	free(c->project);
	free(c->session);
	free(c->dns_upstream);
	struct strv *lists[] = {&c->policies, &c->ro_binds, &c->rw_binds, &c->cow_binds, &c->cow_lowers,
	                        &c->hide,
	                        &c->show_ignored, &c->tmpfs, &c->home_copy, &c->env_pass,
	                        &c->env_set, &c->secrets, &c->allow, &c->publish,
	                        &c->export_deny, &c->export_allow, &c->syscalls_allow,
	                        &c->secret_names, &c->env_path};
	for (size_t i = 0; i < ARRAY_SIZE(lists); i++)
		strv_free(lists[i]);
	memset(c, 0, sizeof(*c));
}
