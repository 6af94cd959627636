/* landing.h — what a `jail apply` lands, written down before `git am` runs.
 *
 * `jail apply` runs `git am` in the project (and in each changed submodule),
 * then records in the session what landed: the agent's commit each series
 * ended at (meta series_head*), so that the next export starts after it, and
 * the versions that landed (applied.h).  A jail killed between the two, or a
 * `git am` that stopped on a conflict the user then resolved with `git am
 * --continue`, landed the patches without the record: the next export carried
 * the agent's commits again, `jail apply` stopped half-way in a conflict with
 * the host's own copy of them, and the series ended in a patch that undid
 * them.  So the record is written first, as an intent (<session>/landing, and
 * <session>/applied.landing), and made the session's own only once the host
 * shows that it landed: a commit after the HEAD it had before carries one of
 * the patches (the same `git patch-id`; a patch whose conflict was resolved by
 * hand differs, its neighbours do not).  HEAD having moved is not enough: the
 * jail may have died before git am ran, and the user committed something
 * else.  Every later command that opens the session settles an intent it
 * finds: landed, kept; not landed (`git am --abort`, or git am never ran),
 * dropped, the export carrying the series as before; a `git am` still stopped
 * in the repository, the command refuses
 * until the user finishes or aborts it. */
#ifndef JAIL_LANDING_H
#define JAIL_LANDING_H

#include "session.h"

struct landing {
	struct strv rec; /* per repository: path, HEAD before, meta key, value,
	                  * "1" for the project or "0" for a submodule, and the
	                  * patch ids of its patches, space-separated (each field a
	                  * string; key "" for none) */
};

/* The repository's HEAD commit, or NULL (no repository, or no commit yet). */
char *landing_head(const char *repo);
/* One repository the apply runs git am in, with its patch files; its HEAD
 * and the patches' ids are read now.  key/value: the meta entry to set once
 * it landed (NULL: none).  The project's (not a submodule's) record is also
 * the session's applied.landing, when there is one, and its meta "applied"
 * (the host commit it made). */
int landing_add(struct landing *l, const char *repo, const struct strv *patches,
                const char *key, const char *value, bool project, struct jail_err *e) WUR;
/* Write the intent before the first git am. */
int landing_begin(const struct session *s, const struct landing *l, struct jail_err *e) WUR;
/* Settle an intent an earlier apply left; 0 when there was none.  succeeded:
 * this apply's git am's all ended well, so what they made landed (a three-way
 * merge may have changed a patch's id). */
int landing_settle(const struct session *s, bool succeeded, struct jail_err *e) WUR;
void landing_free(struct landing *l);

#endif
