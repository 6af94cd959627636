/* discard.h — `jail reset PATH...`: throw away the session's changes to some
 * paths and keep the rest. */
#ifndef JAIL_DISCARD_H
#define JAIL_DISCARD_H
#include "session.h"

/* Remove each path's entry from the upper dir (the session must be locked and
 * not running): a modified or new file goes, a deletion is undone, a directory
 * goes whole.  Every path is checked before anything is removed. */
int session_discard_paths(const struct session *s, char *const *paths, struct jail_err *e) WUR;
#endif
