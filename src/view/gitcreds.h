/* gitcreds.h — credentials in the project's git config, withheld from the jail.
 *
 * The jail shows the project's .git as it is (git works inside), and a
 * repository's config can hold credentials: a token in a remote's URL
 * (https://user:TOKEN@host/...), or the header CI checkouts leave behind
 * (http.<url>.extraheader = AUTHORIZATION: basic ...), or a [credential]
 * helper with the token inline, in any spelling git reads.  Before the jail
 * starts, a config that holds any (the repository's, and those of its
 * submodules' repositories under modules/) is copied into the session's upper
 * layer without them, so the agent reads that copy; the host's config is never
 * written.  Once the copy exists it is the session's (the agent may change
 * it); what the host adds to its config later is not seen. */
#ifndef JAIL_GITCREDS_H
#define JAIL_GITCREDS_H

#include "util.h"

/* The config text without its credentials, or NULL when it holds none;
 * *withheld counts what was taken out. */
char *gitcreds_redact(const char *text, size_t len, unsigned *withheld);

/* The repository whose git dir is lower/git_rel on the host ("" : lower
 * itself): if its config (or a submodule's, or an included file in it) holds
 * credentials and `upper` (the session's upper layer over lower, a
 * directory the session owns) has no copy of it yet, write the redacted copy
 * there, creating directories as the lower's are.  Below `upper` the agent
 * writes: nothing there is followed.  Says once what was withheld.  With
 * `written`, the copies written now are added to it (paths relative to
 * upper).  Returns how many credentials those copies withheld. */
int gitcreds_withhold(const char *lower, const char *upper, const char *git_rel,
                      struct strv *written, struct jail_err *e) WUR;

#endif
