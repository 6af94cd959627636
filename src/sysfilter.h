/* sysfilter.h — the syscall filter (libseccomp), installed last before exec.
 * (Not named seccomp.h: with -Isrc it would shadow libseccomp's <seccomp.h>.) */
#ifndef JAIL_SYSFILTER_H
#define JAIL_SYSFILTER_H
#include "config.h"
/* Init's child, after caps_drop_all and right before close_range and exec:
 * load the filter described in sysfilter.c.  cfg->syscalls_allow names
 * syscalls to leave out of it.  Fails closed. */
int seccomp_install(const struct jail_config *cfg, struct jail_err *e) WUR;
/* Validation for the supervisor (policy/CLI time, before anything is set up):
 * every name in cfg->syscalls_allow must be a syscall.  seccomp_install checks
 * it again. */
int sysfilter_check_config(const struct jail_config *cfg, struct jail_err *e) WUR;
#endif
