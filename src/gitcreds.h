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

/* If `git_dir`/config (on the host) holds credentials and `upper_git_dir` has
 * no config yet, write the redacted copy there (creating the directory with
 * git_dir's mode).  Says once what was withheld. */
int gitcreds_withhold(const char *git_dir, const char *upper_git_dir, struct jail_err *e) WUR;

#endif
