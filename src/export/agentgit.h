/* agentgit.h — the agent's git repository in a session, read as data.
 *
 * Inside the jail the project's .git is an overlay: the host's git dir below,
 * the session's upper (upper/.git, or git-upper for a linked worktree's common
 * dir) on top.  What the agent committed lives in that upper.  jail reads it as
 * data only: refs are parsed here (fd-relative, never through a symlink, bounded
 * sizes), and objects are copied (loose objects and packs, nothing else of the
 * objects dir: no info/alternates) into a raw throwaway repository, from which
 * git packs the commits between the base and the agent's HEAD and index-pack
 * --strict brings them into jail's own throwaway repository, each object
 * re-hashed and checked by git's fsck rules.  No git process ever runs with a
 * GIT_DIR, config, hook, attributes file or alternates list the agent wrote. */
#ifndef JAIL_AGENTGIT_H
#define JAIL_AGENTGIT_H
#include "util.h"

struct agentgit {
	int upper_fd;        /* the session's upper of the repository's git dir */
	int lower_fd;        /* the host's git dir (the common dir of a worktree) */
	char *host_objects;  /* absolute: the host's objects dir */
	char *head_rel;      /* "HEAD", or "worktrees/NAME/HEAD" for a linked worktree */
};

/* Find the agent's repository of a session over project.  Returns 0 when there
 * is one, 1 when the session holds no git dir of its own (the project is not a
 * repository's top, or the agent never touched .git), -1 on error. */
int agentgit_open(struct agentgit *g, const char *project, const char *session_dir,
                  struct jail_err *e) WUR;
/* The same for the submodule at sub (a path below super): its git dir in the
 * superproject's .git/modules (or its own .git), under the session's upper. */
int agentgit_open_sub(struct agentgit *g, const char *super, const char *sub,
                      const char *session_dir, struct jail_err *e) WUR;
void agentgit_close(struct agentgit *g);

/* The commit the agent's HEAD names (hexlen hex digits: the host's object
 * format) into oid; *what says how ("branch 'NAME'" or "a detached HEAD").
 * Returns 1 when HEAD names no commit (an unborn branch), -1 on a malformed or
 * hostile HEAD or ref, with a line saying so. */
int agentgit_head(const struct agentgit *g, size_t hexlen, char oid[65], char **what,
                  struct jail_err *e) WUR;

/* Bring the objects of base..head into the repository dst_gitdir (whose
 * alternates must name the host's objects: the caller writes them), through a
 * raw repository made in raw_dir.  Malformed, hostile or missing objects are
 * an error, and so is an object in `withheld` (sorted full ids, hideobj.h):
 * the jail did not show it, so the agent could name it (a tree of its own
 * that lists the id) but not know it, and the host's store would fill it in.
 * As a change's old side it is one only where the path is exported:
 * hidden(ctx, path) says where it is not (a hidden file the agent deleted or
 * changed is left out, its old content never in a patch). */
struct withheld_ids {
	const struct strv *ids;
	bool (*hidden)(const void *ctx, const char *path);
	const void *ctx;
};
int agentgit_import(const struct agentgit *g, const char *raw_dir, const char *dst_gitdir,
                    const char *head, const char *base, const struct withheld_ids *withheld,
                    struct jail_err *e) WUR;

/* ---- pure parts (unit-tested) ---- */

/* A ref name jail follows: "refs/..." by git's check-ref-format rules. */
bool agentgit_refname_ok(const char *name);
/* HEAD's text: 0 and oid for a detached HEAD, 1 and *ref for "ref: NAME", -1
 * when it is neither. */
int agentgit_parse_head(const char *text, size_t len, size_t hexlen, char oid[65], char **ref);
/* The oid of ref in a packed-refs file; 0 found, 1 absent. */
int agentgit_packed_find(const char *data, size_t len, const char *ref, size_t hexlen,
                         char oid[65]);
#endif
