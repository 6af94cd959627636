/* secrets.h — [secrets] resolved on the host before the jail starts.
 *
 * NAME = env:VAR | file:PATH | cmd:COMMAND | broker:SOURCE for HOST (broker.h).  A NAME that is a variable name
 * becomes a variable of the jail; a NAME of the form ~/PATH becomes a file of
 * the fake home (mode 0600).  The values live only in memory: nothing here
 * writes them to the session dir, a log or the terminal; errors name the secret
 * and its source kind, never a value.
 */
#ifndef JAIL_SECRETS_H
#define JAIL_SECRETS_H
#include "plan.h"

#define SECRET_MAX_SIZE (1 << 20)

/* Resolve each NAME=SOURCE of secrets: variables appended to *env as NAME=VALUE,
 * files appended to *files (paths relative to the fake home); a brokered one
 * goes to *broker (made on first use) and its placeholder to *env: the one
 * stored for NAME (NAME=PLACEHOLDER lines, or NULL) if it still fits. */
int secrets_resolve(const struct strv *secrets, const struct strv *stored, struct strv *env,
                    struct secret_file **files, size_t *n_files, struct broker **broker,
                    struct jail_err *e) WUR;
/* For the plan: the secrets of p->cfg into p->env and p->secret_files, and the
 * sanitized ~/.gitconfig (unless a secret names that file).  Brokered secrets
 * keep their placeholders across the session's runs: stored in its state dir
 * (only the placeholders, never a value). */
int secrets_plan(struct jail_plan *p, struct jail_err *e) WUR;
/* Wipe and free what secrets_resolve gave out. */
void secret_files_free(struct secret_file *files, size_t n);

/* The jail's ~/.gitconfig: only user.name and user.email of the host's global
 * git config (no credential helpers, aliases, includes).  NULL when neither is
 * set or git is missing. */
char *gitidentity_gitconfig(void);
/* The user's "Name <email>" from the host's git config, or NULL. */
char *gitidentity_author(void);
/* The content of the host's global git ignore file (core.excludesFile, or
 * ~/.config/git/ignore), its length in *len; NULL when there is none, or it
 * is not a regular file. */
char *gitidentity_user_ignore(size_t *len);

#endif
