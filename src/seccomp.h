/* seccomp.h — the syscall filter (libseccomp), installed last before exec. */
#ifndef JAIL_SECCOMP_H
#define JAIL_SECCOMP_H
#include "config.h"
int seccomp_install(const struct jail_config *cfg, struct jail_err *e) WUR;
#endif
