/* brokerrules.h — which requests may carry a brokered secret: the rules of
 * "broker:SOURCE for HOST only METHOD PATH[, METHOD PATH...]" (pure code).
 *
 * A rule is a method (exact, upper case, or '*' for any) and a path pattern
 * in which '*' stands for any run of characters, '/' included.  It is matched
 * against the path of the request target alone (the query never counts: no
 * "?x=/me/app.git/git-receive-pack" makes a push look allowed), and only once
 * that path has one spelling: a target a server might decode or resolve into
 * another path (percent-encoded '/', '.', '%' or other punctuation, a '.' or
 * '..' segment, '//', '\', ';' or '#') is refused rather than guessed at. */
#ifndef JAIL_BROKERRULES_H
#define JAIL_BROKERRULES_H
#include "util.h"

/* Is rule "METHOD PATTERN" (one space between) well formed? */
bool brokerrules_valid(const char *rule);

/* The path of the request target [t, tend) (origin form up to '?', the path
 * of an https:// URL, or "*"): *path and *len point into it (or at "/" for a
 * URL without one).  -1 and *why when its spelling is ambiguous. */
int brokerrules_path(const char *t, const char *tend, const char **path, size_t *len,
                     const char **why);

/* Does one of the rules allow METHOD on path? */
bool brokerrules_allow(const struct strv *rules, const char *method, size_t mlen,
                       const char *path, size_t plen);
#endif
