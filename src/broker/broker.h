/* broker.h — secrets the agent never holds ([secrets] NAME = broker:SOURCE
 * for HOST).
 *
 * The jail gets a placeholder of the real value's shape, random per session
 * and kept for the session's later runs (secrets.c stores it).
 * Its connections to HOST:443 reach the supervisor (the jail's DNS answers
 * HOST with BROKER_ADDR, where a socket init made in the jail's netns
 * listens), which terminates TLS with a per-session CA trusted only inside the
 * jail, puts the real value in place of the placeholder in the secret's
 * credential headers, and talks to HOST with full certificate verification
 * against the host's trust store.  Everything else stays as the agent sent it.
 *
 * The real values live in pages marked MADV_WIPEONFORK: the jail's init, a
 * copy of the supervisor's memory, never holds them.  The CA's key exists only
 * while the host certificates are signed, before the clone. */
#ifndef JAIL_BROKER_H
#define JAIL_BROKER_H
#include "util.h"

#define BROKER_ADDR "127.0.0.2"   /* in the jail's netns, on lo */
#define BROKER_PORT 443
#define BROKER_MAX_SECRETS 16
#define BROKER_CA_FILE "/etc/jail-session-ca.crt"      /* the session CA alone */
#define BROKER_BUNDLE_FILE "/etc/jail-ca-certificates.crt" /* the host's CAs and it */

/* A parsed "broker:SOURCE for HOST[,HOST] [in HEADER[,HEADER]]
 * [only METHOD PATH[, METHOD PATH]]". */
struct broker_spec {
	char *source;           /* env:VAR, file:PATH, cmd:COMMAND */
	struct strv hosts;      /* normalized DNS names */
	struct strv headers;    /* default: Authorization, x-api-key */
	struct strv rules;      /* "METHOD PATTERN" (brokerrules.h); none: any request */
};
/* Is value a broker: source?  Parse it (pure; errors name the secret). */
bool broker_is_spec(const char *value);
int broker_spec_parse(const char *name, const char *value, struct broker_spec *out,
                      struct jail_err *e) WUR;
void broker_spec_free(struct broker_spec *s);

/* A placeholder of val's shape: the same length, its format prefix kept
 * (words of a few letters and digits, each ended by '-' or '_', within the
 * first 16 characters: sk-ant-api03-, ghp_; never a UUID's groups), every
 * other character not a letter or digit kept, and each letter or digit
 * random, of the kinds (digit, small, capital letter) its run of them holds,
 * not of its own character's kind.  -1 when too little of it would be
 * random to tell it apart (fewer than 16 characters). */
int broker_placeholder(const char *val, char *out, size_t cap);
/* Could ph be a placeholder of val: its length and prefix, every other
 * character of its run's kinds (or the same, not a letter or digit), not
 * val itself, and not one an older jail made (kept characters past the
 * format prefix, or each of its value character's own kind)?  (Pure; a
 * stored placeholder is reused only if so.) */
bool broker_placeholder_fits(const char *val, const char *ph);

struct broker;
struct broker *broker_new(void);
/* Take a resolved secret (the value is copied into wipe-on-fork memory; the
 * caller wipes its own copy); *placeholder is what the jail gets: stored (an
 * earlier run's, or NULL) when it still fits the value, else a new one. */
int broker_add(struct broker *b, const char *name, const char *val, struct broker_spec *spec,
               const char *stored, const char **placeholder, struct jail_err *e) WUR;
/* NAME=PLACEHOLDER of each secret, appended to out (to be stored). */
void broker_placeholders(const struct broker *b, struct strv *out);
/* The session CA and each host's certificate (before the clone); the trust
 * bundle for the jail is the host's CAs plus the session CA. */
int broker_prepare(struct broker *b, struct jail_err *e) WUR;
const char *broker_ca_pem(const struct broker *b);
const char *broker_bundle_pem(const struct broker *b);
/* Does a real value reach the jail another way: in a variable or a file
 * it gets (a passed ANTHROPIC_API_KEY beside a brokered copy)?  -1 names it. */
int broker_check_leaks(const struct broker *b, const struct strv *env, const char *const *files,
                       const size_t *lens, size_t n_files, struct jail_err *e) WUR;
/* Is name (normalized) one of the brokered hosts? */
bool broker_serves(const struct broker *b, const char *name);

/* supervisor: serve the listening socket init made (taken over). */
int broker_start(struct broker *b, int listen_fd, struct jail_err *e) WUR;
/* End every connection; print the counts (unless quiet) and the reports. */
void broker_stop(struct broker *b, bool quiet);
void broker_free(struct broker *b);
#endif
