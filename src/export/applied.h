/* applied.h — what `jail apply` already landed in the host repository.
 *
 * After a successful `jail apply`, <session>/applied records, for every path the
 * patch carried, the agent's version that landed: the git mode and blob id, or
 * a deletion.  A later export takes that version as the old side of the path
 * (instead of the session's base commit), so it carries only what the agent
 * changed since; a path still exactly as applied drops out.  The blobs are the
 * host's own (git am wrote them), so `git am -3` can still merge. */
#ifndef JAIL_APPLIED_H
#define JAIL_APPLIED_H
#include "export.h"

struct applied_entry {
	char *path;      /* relative to the project */
	unsigned mode;   /* git mode; 0: the patch deleted the path */
	char oid[65];
	size_t seq;      /* the order records came in: of one path's, the last counts */
};

struct applied {
	struct applied_entry *v;  /* sorted by path */
	size_t n, cap;
};

/* Read <session_dir>/applied (absent: empty). */
void applied_load(const char *session_dir, struct applied *a);
void applied_free(struct applied *a);
/* Parse records "MODE OID\tPATH\0" (git ls-tree -z, or our own file) into *a,
 * replacing entries of the same path; paths must start with prefix, which is
 * stripped. */
void applied_parse(struct applied *a, const char *data, size_t len, const char *prefix);
/* Merge the included changes of cs (their new versions: ls_tree is
 * `git ls-tree -r -z` of the patch's post commit) into what <session_dir>/applied
 * holds, and write the result to <session_dir>/<name> (landing.h: "applied"
 * itself only once the patch is known to have landed). */
int applied_record(const char *session_dir, const char *name, const struct changeset *cs,
                   const char *prefix, const struct strbuf *ls_tree, struct jail_err *e) WUR;
/* The blob ids applied_adjust() asks oid_present about (to ask git once). */
void applied_wanted(const struct applied *a, const struct changeset *cs, struct strv *oids);
/* In export_filter: old sides from the applied versions; deletions already
 * applied drop out.  oid_present says whether the host still has a blob. */
void applied_adjust(const struct applied *a, struct changeset *cs,
                    bool (*oid_present)(void *ctx, const char *oid), void *ctx);
#endif
