/* caps.h — capabilities (libcap-ng) and no_new_privs for the command. */
#ifndef JAIL_CAPS_H
#define JAIL_CAPS_H
#include "util.h"
/* Empty every capability set (effective, permitted, inheritable, ambient,
 * bounding), lock securebits, set no_new_privs.  Runs in init's child right
 * before seccomp and exec; fails closed. */
int caps_drop_all(struct jail_err *e) WUR;
/* Empty the bounding set alone (init, first thing: caps.c says why); the
 * effective and permitted sets stay.  Fails closed. */
int caps_drop_bounding(struct jail_err *e) WUR;
/* In a child of a thread that ran caps_drop_all (launcher.h): its
 * securebits locked and no capability held, as the kernel answers (the
 * bounding set, which that thread read back empty, cannot grow). */
int caps_check_dropped(struct jail_err *e) WUR;
#endif
