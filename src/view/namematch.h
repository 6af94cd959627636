/* namematch.h — the rules of hide.c (secret-shaped names, fs.hide, --show)
 * for a walk that judges many names one at a time (bindcover.h: a bind
 * inside the project, node_modules with 100,000 entries).  The patterns are
 * read once; most secret_names are a plain name, a prefix (".env*") or a
 * suffix ("*.pem"), compared on the lower-cased name without fnmatch. */
#ifndef JAIL_NAMEMATCH_H
#define JAIL_NAMEMATCH_H
#include "config.h"

struct namematch;

/* The rules of cfg: secret_names (unless hide_ignored = none), hide, and
 * show_ignored. */
struct namematch *namematch_new(const struct jail_config *cfg);
void namematch_free(struct namematch *m);

enum name_verdict {
	NAME_KEEP,   /* shown: a directory is walked further */
	NAME_COVER,  /* hidden: a secret-shaped name or an fs.hide pattern */
	NAME_SHOWN,  /* --show names it: shown with all below it */
};

/* The verdict on `path` (relative to the project, no leading '/'), whose
 * directories above were kept.  As the view judges it: --show wins over a
 * secret-shaped name, fs.hide over --show (hide.c). */
enum name_verdict namematch_judge(const struct namematch *m, const char *path);

/* Does one of `patterns` name `path` (relative to the project): the whole
 * path, its last name, or a directory above it spelled out?  (fnmatch: the
 * rule of hide.c's patterns, fs.hide and --show.) */
bool namematch_any(const struct strv *patterns, const char *path);

/* Does fs.hide name `path`?  Below a directory --show names, where it is
 * the only rule that still hides. */
bool namematch_hides(const struct namematch *m, const char *path);
#endif
