/* export.h — what the agent changed: the upper dir walked against the lower.
 *
 * export_scan() walks the session's upper dir fd-relatively (never following a
 * symlink, never leaving the tree) and compares each entry with the lower (the
 * real project dir, read-only here): whiteouts are deletions, opaque directories
 * delete the lower entries they do not hold, equal content is no change.
 * export_filter() then decides, for each change, whether it may leave the jail
 * (pathrules.h, plus the host repository's index and ignore rules).
 */
#ifndef JAIL_EXPORT_H
#define JAIL_EXPORT_H

#include "pathrules.h"

enum ftype { FT_NONE = 0, FT_FILE, FT_SYMLINK, FT_DIR, FT_SPECIAL };

/* Where the patch's old side of a path comes from. */
enum pre_source {
	PRE_NONE = 0,  /* nothing: the path is new to git */
	PRE_LOWER,     /* the project's file as it is now (no base commit, or not in it) */
	PRE_BASE,      /* the blob in the session's base commit: the agent started there */
};

enum change_flag {
	CF_EXEC_ADDED = 1 << 0,  /* a file became executable (or is new and executable) */
	CF_SYMLINK = 1 << 1,     /* a symlink was added or retargeted */
	CF_REVIEW = 1 << 2,      /* .gitattributes and friends: see path_flag_reason() */
	CF_CONTROLS = 1 << 3,    /* text with terminal controls: content_drives_terminal() */
};

struct change {
	char *path;              /* relative to the project dir */
	enum ftype old_type, new_type;
	bool old_exec, new_exec;
	enum pre_source pre;
	unsigned base_mode;      /* PRE_BASE: git mode (0100644, 0100755, 0120000) */
	char base_oid[65];       /* PRE_BASE: blob id */
	bool in_diff;            /* git found a difference (set with the numstat) */
	long long new_size;
	const char *special;     /* what kind of special file the new entry is */
	char *reason;            /* why it is left out; NULL when it goes out */
	unsigned flags;
	const char *flag_why;    /* CF_REVIEW: why (a static string) */
	long added, deleted;     /* from git's numstat; -1 for binary */
	bool has_cr;             /* a side holds '\r': `git am` would strip it from text */
	bool base_cr, base_cr_known;  /* PRE_BASE: the base blob holds '\r'; known
	                               * already (crcache.h: not read again) */
	char *note;              /* CF_REVIEW: more lines to show under the flag, each
	                          * escaped, '\n'-ended (controlfiles.h), or NULL */
	int kept_fd1;            /* the agent's file as the filter opened it, + 1 (0:
	                          * none): the pack reads it from there (scratchobj.c) */
};

struct changeset {
	struct change *v;
	size_t n, cap;
	struct strv git_dirs;    /* .git entries found in the upper dir (left out) */
	size_t path_bytes;       /* of the paths above: the walk's memory bound */
	bool truncated;          /* the walk stopped at its bound: too many changes */
};

struct export_ctx {
	const char *project;     /* the lower: real project dir */
	const char *upper;       /* the session's upper dir */
	int project_fd, upper_fd;
	bool is_repo;            /* the project is (inside) a git work tree */
	char *prefix;            /* the project's path inside its repository, "" or "sub/" */
	char *objects;           /* the repository's object directory (absolute), or NULL */
	char *index;             /* its index file (absolute), or NULL */
	char *user_excludes;     /* "core.excludesFile=PATH" of the user's own git, or NULL */
	char *base;              /* the host commit the session started from, or NULL */
	struct strv hidden;      /* sorted: paths the supervisor whited out at start */
	struct strv withheld;    /* sorted: ids of the objects the view withheld (hideobj.h) */
	void *applied;           /* struct applied (applied.h): what `jail apply` landed */
	struct strv submodules;  /* initialised submodules holding changes (submodule.h) */
	char *owned_project;     /* export_ctx_open_sub(): the storage of project */
	struct pathrules rules;
	const struct jail_config *cfg; /* what hides a path now (hide_by_rule) */
};

/* Open the dirs, read the hidden list, ask the host's git where the project is. */
int export_ctx_open(struct export_ctx *x, const char *project, const char *session_dir,
                    const struct jail_config *cfg, struct jail_err *e) WUR;
void export_ctx_close(struct export_ctx *x);
/* The initialised submodule at `sub` (a path of parent->submodules) as an export
 * of its own: its work tree against the upper dir's matching subtree, its own
 * index and ignore rules; no base commit (the old side is its files now). */
int export_ctx_open_sub(struct export_ctx *x, const struct export_ctx *parent, const char *sub,
                        const struct jail_config *cfg, struct jail_err *e) WUR;

int export_scan(struct export_ctx *x, struct changeset *cs, struct jail_err *e) WUR;
int export_filter(struct export_ctx *x, struct changeset *cs, struct jail_err *e) WUR;
void changeset_free(struct changeset *cs);
/* A change's kept file (kept_fd1): closed; or handed on (-1: none). */
void change_drop_fd(struct change *c);
int change_take_fd(struct change *c);
/* Number of changes that go out. */
size_t changeset_included(const struct changeset *cs);

/* Open rel below dirfd without following any symlink on the way (openat2
 * RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, or a component walk where it is missing),
 * non-blocking (a fifo opens at once; callers check the type with fstat). */
int open_beneath(int dirfd, const char *rel, int flags);
/* The overlay's marks in the upper dir: a whiteout (0/0 character device)
 * deletes, an opaque directory (user. or trusted.overlay.opaque = y) hides the
 * lower entries below it. */
struct stat;
/* Is path (or a directory above it) hidden in the jail (the session's hidden
 * list: ignored files, fs.hide, secret-shaped names)?  Never exported: a patch
 * that changes it would carry the host's content. */
bool export_path_hidden(const struct export_ctx *x, const char *path);
/* ... or hidden by the rules now (hide_by_rule), for a path the host holds
 * (on_host): one that appeared since the last start's list was made. */
bool export_path_hidden_now(const struct export_ctx *x, const char *path, bool on_host);
bool overlay_is_whiteout(const struct stat *st);
bool overlay_is_opaque(int dirfd);
/* Read a file or symlink target below dirfd into *out (max bytes). */
int read_entry(int dirfd, const char *rel, enum ftype t, size_t max, struct strbuf *out,
               struct jail_err *e) WUR;

#endif
