/* pathspec.h — the paths a subcommand is limited to (`jail diff src/`,
 * `jail reset notes.txt`): each a file, a directory (everything below it) or a
 * glob ("*.c"), relative to the current directory when that is inside the
 * project, else to the project. */
#ifndef JAIL_PATHSPEC_H
#define JAIL_PATHSPEC_H
#include "session.h"

/* A path as the user typed it → the path inside the project, normalised
 * ("src/a.c", "" for the project itself); NULL with *e set when it leaves the
 * project. */
char *pathspec_project_path(const struct session *s, const char *given, struct jail_err *e);
/* All of args into out (project paths). */
int pathspec_resolve(const struct session *s, char *const *args, struct strv *out,
                     struct jail_err *e) WUR;
/* Does path (inside the project) fall under one of specs?  No specs: yes. */
bool pathspec_match(const struct strv *specs, const char *path);
#endif
