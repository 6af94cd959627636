/* series.h — the agent's commits as a patch series, each one filtered.
 *
 * When the agent committed inside the jail, the export is one patch per commit
 * of the first-parent chain from the session's base to the agent's HEAD, then
 * one for the uncommitted rest.  Every path a commit changes passes the
 * working-tree export's rules (names, deny list, tracked or not ignored on the
 * host, symlinks, size, binary); a change left out keeps the path at the base
 * version.  So each patch is the diff between two filtered trees F(i-1) and
 * F(i), F(0) the base: nothing the filter refuses is ever carried, also not in
 * a commit whose successor deletes it again, and the series ends exactly where
 * the single squashed patch does.  A commit whose every change was left out is
 * dropped.  History that is not a chain on top of the base (a reset, rebase or
 * amend below it, a chain that reaches the base only through a merged branch)
 * falls back to the single patch, and the summary says why.  With pathspecs
 * (`jail export src/`) only the changes under them count: a commit keeps the
 * paths asked for, and one that changes none of them is dropped. */
#ifndef JAIL_SERIES_H
#define JAIL_SERIES_H
#include "export.h"
#include "patch.h"

struct series_opts {
	const char *session;       /* the session's name */
	const char *session_dir;   /* the agent's git dir is read there */
	const char *scratch_dir;   /* where the temporary repositories go: the session
	                            * dir, or a live read's own place (scratchroom.h) */
	const char *trailer;       /* "project/session", or NULL: no trailer */
	const char *author;        /* "Name <email>": the user, for the uncommitted rest */
	const char *repo_author;   /* the repository's own user.name/email, or NULL */
	const char *subject;       /* the uncommitted rest's subject, or NULL: a default */
	const char *series_head;   /* the agent's commit a `jail apply` landed, or NULL */
	struct scratch *post;      /* the working-tree export (its post commit), or NULL */
	const char *base;          /* the commit the series stands on, NULL: x->base */
	const char *super;         /* a submodule's: the superproject, and its path in it */
	const char *sub;
	const struct strv *pathspec; /* the paths asked for (pathspec.h), or NULL: all */
};

struct series_commit {
	char oid[65];              /* the agent's commit */
	char *subject;             /* first line of its message */
	char *author;              /* "Name <email>" when not the user's, else NULL */
	struct strv left_out;      /* "path: reason" */
	size_t changes;            /* changes that go out; 0: the commit is dropped */
	size_t outside;            /* changes outside the paths asked for (not counted) */
	bool merge;
};

struct series {
	bool active;               /* a series was built (else: the single patch) */
	char head[65];             /* the agent's HEAD it was built from */
	char *what;                /* "branch 'main'", "a detached HEAD" */
	struct series_commit *v;
	size_t n;
	bool remainder;            /* a last patch of uncommitted changes */
	struct strv notes;         /* what jail did, for the summary */
	struct scratch raw, sc;
	struct strv files;         /* format-patch's output, in order */
	struct strv touched;       /* sorted: every path a patch of the series changes */
	struct strv flagged;       /* "path: reason": control files (path_flag_reason) a
	                            * patch changes that the end result leaves as they were */
};

/* Build the series of the session's commits, when there are any. */
int series_build(struct series *sr, struct export_ctx *x, const struct changeset *cs,
                 const struct series_opts *o, struct jail_err *e) WUR;
/* Copy the patches into dfd; *paths gets dir/NAME of each. */
int series_write(const struct series *sr, int dfd, const char *dir, struct strv *paths,
                 struct jail_err *e) WUR;
/* The series as `git log -p` shows it, oldest first, each patch's author, date
 * and message before its diff (prefix before every path, or NULL): what lands,
 * the commits' own changes too, where the total leaves them out (a file one
 * commit adds and a later one deletes). */
int series_diff(const struct series *sr, const char *prefix, struct strbuf *out,
                struct jail_err *e) WUR;
/* The control files only the series' history changes (sr->flagged), one line
 * each, for the summary and `jail apply`'s refusal: their number. */
size_t series_flags_render(const struct series *sr, const char *indent, struct strbuf *out);
/* The summary lines of the series (empty when there is none to tell about). */
void series_summary(const struct series *sr, struct strbuf *out);
void series_free(struct series *sr);
#endif
