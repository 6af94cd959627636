/* cover.h — where a bind would show a host path the jail hides.
 *
 * The jail shows a fake $HOME, but a directory bound in may hold the real
 * one: a system bind (/home -> /usr/home puts it in /usr), or a bind the user
 * named (--ro /data with the home at /data/home/u).  A bind of host directory
 * `src` (resolved) at `at` in the jail shows a host path `hidden` (resolved)
 * strictly below src at `at` + (hidden - src); the jail covers it there.  A
 * bind of `hidden` itself or of a part of it (--ro ~/.local) is what the user
 * named: nothing of it is covered for `hidden`. */
#ifndef JAIL_COVER_H
#define JAIL_COVER_H
#include <stdbool.h>

/* The path in the jail where the bind shows `hidden`, or NULL when it does
 * not show it.  All three are absolute and normalized ("/" for the root). */
char *cover_point(const char *at, const char *src, const char *hidden);

/* The directory a system bind (/usr) must not show with the home in it
 * (/home -> /usr/home: /usr/home, other users' homes too): the real home's
 * parent when it lies strictly below sys_dir, else NULL (a home right below
 * sys_dir is covered alone: sys_dir itself stays). */
char *cover_homes_dir(const char *sys_dir, const char *home_real);

/* A writable bind of host directory `src` (resolved) would let the agent
 * move `hidden` out from under its cover: true when a directory between them
 * (strictly below src, strictly above hidden) can be renamed in the jail.
 * The cover is a mount on `hidden` (renaming it is refused, EBUSY), but a
 * parent renamed carries the real directory to a path the next start, which
 * covers it by its name, does not know (--rw ~/.local: mv ~/.local/state s2). */
bool cover_movable(const char *src, const char *hidden);
#endif
