/* hide.h — what of the project is hidden inside the jail: its git-ignored
 * paths (all, or only the secret-shaped ones), secret-shaped names in a project
 * without git, and the policy's fs.hide patterns. */
#ifndef JAIL_HIDE_H
#define JAIL_HIDE_H
#include "config.h"
#include "hidetree.h"
#include "ignorecache.h"
#include "session.h"

/* The paths hidden at start, relative to the project (a directory whole). */
struct hide_set {
	struct strv paths;
	size_t ignored;       /* the first `ignored` paths: git-ignored, hidden as such (mode all) */
	size_t secret_shaped; /* the first `secret_shaped`: secret-shaped names of a project without git */
	size_t inner;         /* then, without rules: what repositories inside it ignore */
	bool no_rules;        /* not a git repository: no ignore rules */
};

/* The selection.  A git project: its ignored paths (ignorecache.c) unless they
 * match cfg->show_ignored; with cfg->hide_ignored = secrets only those whose
 * name matches cfg->secret_names (and such names inside ignored directories);
 * none with none.  A project without git: every path whose name matches
 * cfg->secret_names (unless none), and with all what the git repositories
 * inside it ignore.  Then everything cfg->hide matches, tracked or not. */
int hide_select(const struct session *s, const struct jail_config *cfg, struct hide_node *tree,
                struct ignore_prefetch *pre, struct hide_set *out, struct jail_err *e) WUR;
/* Enforce a selection: a whiteout for each path in the session's upper dir, so
 * the agent can neither read nor list them (only with `whiteouts`: the view,
 * hidefs.h, needs none, and its server runs while the overlay is mounted);
 * whiteouts of an earlier run for paths no longer selected are removed; the
 * list is kept in <session>/hidden for the exporter. */
int hide_apply(const struct session *s, const struct hide_set *set, bool whiteouts,
               struct jail_err *e) WUR;
/* hide_select, then hide_apply.  `tree`: the project's walk at start, or NULL;
 * `pre`: git asked during the walk, or NULL (ignorecache.h; always consumed). */
int hide_ignored(const struct session *s, const struct jail_config *cfg, struct hide_node *tree,
                 struct ignore_prefetch *pre, struct hide_set *set, struct jail_err *e) WUR;
/* At start: a project without git has no ignore rules; say so and what is hidden. */
void hide_say_start(const struct session *s, const struct hide_set *set);
/* After a failed command: how many ignored paths were hidden, the first
 * top-level ones, and how to let them in (build output is ignored). */
void hide_hint(const struct session *s, const struct hide_set *set);
void hide_set_free(struct hide_set *set);
/* Whether the rules hide `path` (relative) now, whatever the session's list
 * says: in a project without git (`no_rules`) a secret-shaped name at or
 * above it (unless cfg->show_ignored lets it in), anywhere a cfg->hide
 * pattern.  The exporter asks this of a host file it would diff against: the
 * list is the last start's (the view's server rewrites it while the jail
 * starts), and a host file that appeared since is in no list yet. */
bool hide_by_rule(const struct jail_config *cfg, bool no_rules, const char *path);
/* Whether `path`'s name (or a step of it) is secret-shaped (cfg->secret_names). */
bool hide_secret_name(const struct jail_config *cfg, const char *path);
/* The same when the directories in the first `from` bytes of `path` (up to
 * a '/') are known to have no such name: a caller judging many paths of one
 * directory judges the directory once. */
bool hide_secret_name_after(const struct jail_config *cfg, const char *path, size_t from);
/* A linked worktree's common git dir (outside the project) is overlaid as
 * the host has it, not through the view: a file or directory of a
 * secret-shaped name at its top (a credential store) gets a whiteout in the
 * session's upper of it
 * (`upper`), as the view leaves such files out of the project's .git
 * (hidefs.h).  Nothing unless cfg hides ignored files. */
void hide_gitdir_secrets(const char *lower, const char *upper, const struct jail_config *cfg);
/* The same against a list of such patterns. */
bool hide_names_match(const struct strv *patterns, const char *path);

#endif
