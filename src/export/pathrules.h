/* pathrules.h — which changed paths may leave the jail, and why the others may not.
 *
 * Pure functions: no I/O.  The exporter (export.c) asks these about each change;
 * each "no" comes with a reason the user reads in the summary.
 */
#ifndef JAIL_PATHRULES_H
#define JAIL_PATHRULES_H

#include "config.h"

/* A deny pattern: gitignore-like.  "name" matches that name at any depth, "dir/"
 * matches a directory (and everything below), a pattern with an inner '/' matches
 * that sub-path at any depth, a leading '/' anchors it to the project root;
 * '*', '?' and '[...]' as in fnmatch(3) within one path component. */
struct deny_rule {
	char *pattern;
	char *why;
};

struct pathrules {
	struct deny_rule *rules;
	size_t n;
	bool binary_ok;
	long long max_size;
};

/* The default left-out patterns minus cfg->export_allow, plus cfg->export_deny. */
void pathrules_init(struct pathrules *r, const struct jail_config *cfg);
void pathrules_free(struct pathrules *r);
/* One more rule: paths matching pattern are left out with reason why. */
void pathrules_deny(struct pathrules *r, const char *pattern, const char *why);
/* The anchored pattern for rel (relative to the project, not empty) as it
 * is, fnmatch's special characters escaped: a directory and what is below it
 * when dir, else that path alone. */
char *pathrules_path_pattern(const char *rel, bool dir);

/* Does pattern match path (a file, or a directory when is_dir)? */
bool pattern_match(const char *pattern, const char *path, bool is_dir);
/* How many spans of components the matching has tried (fnmatch calls): the
 * unit tests bound it, so that the cost stays linear in a path's depth. */
extern size_t pathrules_spans_tried;
/* The reason a deny rule leaves path out (malloc'd), or NULL. */
char *pathrules_denied(const struct pathrules *r, const char *path, bool is_dir);
/* The same for a symlink at path: also a rule that would leave out a path
 * below it, since every path below it names what it leads to (`.claude -> cl`
 * brings cl/settings.json in as .claude/settings.json). */
char *pathrules_denied_link(const struct pathrules *r, const char *path);

/* Is any component of path ".git"?  Git internals never leave the jail. */
/* path as a case-insensitive file system (macOS, Windows) and NTFS read it:
 * each component in ASCII lower case (the few other characters such systems
 * take for ASCII letters too: the Kelvin sign, the long s, ...), cut at an
 * NTFS stream, trailing dots and spaces dropped.  Allocated. */
char *path_fold(const char *path);
bool path_in_git_dir(const char *path);
/* Why git would refuse path in a patch (and with it every other change):
 * a component it takes for ".git" (".GIT", ".git.", "git~1"), or a symlink
 * named .gitmodules; NULL when it takes it. */
const char *path_git_refuses(const char *path, bool symlink);
/* Why a name cannot go into a patch (control characters, invalid UTF-8), or NULL. */
const char *path_name_problem(const char *path);
/* Does a symlink at linkpath with this target, read as text, climb out of the
 * project (absolute, or more ".." than names)?  Where it leads in the tree is
 * linkcheck.c's question. */
bool symlink_leaves_tree(const char *linkpath, const char *target);
/* git's own test: a NUL byte in the first 8000 bytes.  The export goes on
 * looking past them (a NUL anywhere is binary): export.c, series.c. */
bool content_is_binary(const char *buf, size_t n);
/* Does text hold bytes that drive a terminal or reorder what it shows: ESC
 * and the other C0 controls but tab, newline, carriage return and form feed;
 * DEL; C1 controls; the bidirectional embeddings, overrides and isolates
 * (Trojan Source)?  A character cut at the end of buf counts for nothing. */
bool content_drives_terminal(const char *buf, size_t n);
#define BINARY_PROBE_LEN 8000
/* Paths whose change is kept but flagged for review (they change how git or its
 * tools treat the repository): the reason, or NULL.  A symlink is flagged also
 * where it names a flagged directory or one above it (".github -> ci"). */
const char *path_flag_reason(const char *path, bool symlink);

/* The built-in default patterns (for the summary, man page and tests). */
extern const struct deny_rule pathrules_defaults[];
extern const size_t pathrules_ndefaults;

#endif
