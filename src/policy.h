/* policy.h — the layered INI policy (see jail.ini(5)).
 *
 * Layers, later wins: the embedded default (policies/default.ini compiled in),
 * policies named by `include =` or -p NAME, ~/.config/jail/jail.ini, the
 * project's .jail.ini when `jail trust` recorded its digest, then the flags.
 * Every key goes through one table (section, key, type, check, help); each value
 * keeps the file:line it came from, for `jail policy show`.
 */
#ifndef JAIL_POLICY_H
#define JAIL_POLICY_H
#include "cli.h"

/* The effective configuration: all layers, then the flags in *cli (moved out of
 * it).  project: the project's real path (NULL: no project file). */
int policy_resolve(struct cli *cli, const char *project, struct jail_config *out,
                   struct jail_err *e) WUR;

/* A policy being built, with the provenance of every value. */
struct policy {
	struct jail_config cfg;
	char **origin;              /* per key: where a scalar or the list was last set */
	struct strv *item_origin;   /* per key: per list item, "file:line" */
	struct strv layers;         /* what was read, in order, for `policy show` */
	struct strv done;           /* policies already read (an include is read once) */
	struct strv stack;          /* the include chain, for cycle errors */
	char *description;          /* the top-level `description =` of the last file */
	bool project_ignored;       /* the project's file exists but is not trusted */
};

void policy_init(struct policy *p);
void policy_free(struct policy *p);
/* One layer from text held in memory.  name is what errors and `policy show`
 * call it ("/home/u/.config/jail/jail.ini"). */
int policy_load_text(struct policy *p, const char *name, const char *text,
                     struct jail_err *e) WUR;
/* The same for text of len bytes, which may hold a NUL (an error). */
int policy_load_buf(struct policy *p, const char *name, const char *text, size_t len,
                    struct jail_err *e) WUR;
/* A named policy (-p NAME, include = NAME) or, when it holds a '/', a file. */
int policy_load_named(struct policy *p, const char *name, struct jail_err *e) WUR;
/* Every layer, then the flags of *cli (copied, not moved). */
int policy_load_all(struct policy *p, const struct cli *cli, const char *project,
                    struct jail_err *e) WUR;
/* The effective policy as INI, each value annotated with its origin; secrets
 * are shown by source kind only. */
void policy_print(const struct policy *p, FILE *f);

/* ${XDG_CONFIG_HOME:-~/.config}/jail */
char *policy_config_dir(void);
/* The directories searched for NAME.ini, in order (NULL-terminated, owned). */
void policy_search_dirs(struct strv *out);
/* Where the named policy is; NULL with *e set when nowhere. */
char *policy_find(const char *name, struct jail_err *e);

/* Trust of a project's .jail.ini: the file of the record, and the check. */
char *policy_trust_record(const char *project);
/* 1 when the recorded digest matches text, 0 when not (or none recorded). */
int policy_trusted(const char *project, const char *text, size_t len);
/* Read PROJECT/.jail.ini (not through a symlink).  0 and *text = NULL when
 * there is none. */
int policy_read_project(const char *project, char **text, size_t *len,
                        struct jail_err *e) WUR;

/* The key table, for the man page test and `policy show`. */
size_t policy_key_count(void);
/* "fs", "ro"; section "secrets" has the name "NAME". */
void policy_key_at(size_t i, const char **section, const char **name);

#endif
