/* cowdirs.h — host directories seen copy-on-write (`[fs] cow`, `--cow DIR`).
 *
 * A package cache (~/.npm, ~/.cache/pip) must be writable for its tool to work
 * at all, yet the host's copy must never be written.  Each such directory is an
 * overlay in the jail: the host directory is the read-only lower layer, the
 * upper layer lives in the session (cow/<hash of the path>/), so what the agent
 * adds stays with the session, is never exported, and goes with `jail rm`. */
#ifndef JAIL_COWDIRS_H
#define JAIL_COWDIRS_H

#include "session.h"
#include "util.h"

/* The session directory holding the layers of host directory `path`. */
char *cow_layer_dir(const struct session *s, const char *path);

/* Make the layers of each directory in `paths`; a path the host lacks is
 * dropped from the list (policies name optional caches), one that is not a
 * directory, or lies in the project, is an error.  `lowers` gets each kept
 * path as the host resolves it (a symlink on the way, such as a home behind
 * /home -> /usr/home), which init opens without following links; the jail
 * shows the directory at the path as named. */
int cow_prepare(const struct session *s, struct strv *paths, struct strv *lowers,
                struct jail_err *e) WUR;

#endif
