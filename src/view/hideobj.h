/* hideobj.h — hidden files' content as git objects of the project.
 *
 * The project's .git directories are shown as they are (hidetree.h: "live"),
 * object store included.  A hidden file whose content was ever handed to git
 * (staged by mistake and unstaged, `git stash --all`, an old commit) is there
 * as a blob, and `git cat-file` would print what the view hides.  So the view
 * withholds the loose objects whose id is the blob id of a hidden secret's
 * content now: computed at start for the hidden files of a secret-shaped name
 * ([fs] secret_names) or one fs.hide names, at or below the hidden paths,
 * both as SHA-1 and as SHA-256 (a repository of either format).  Not every
 * ignored file (build output would cost every start a read of it).  A packed
 * object is blanked in its pack instead (hidepack.h).  Two other copies of
 * the content in a .git directory go by the same ids: git-lfs's store
 * (lfs/objects/ab/cd/OID, OID the SHA-256 of the content alone; what
 * lfs/tmp and lfs/incomplete hold is not served while anything is withheld)
 * and what `git fsck --lost-found` wrote (lost-found/other/ID). */
#ifndef JAIL_HIDEOBJ_H
#define JAIL_HIDEOBJ_H
#include "config.h"
#include "hidetree.h"

/* Files larger than this are not hashed (secrets are small). */
#define HIDEOBJ_FILE_MAX (64u << 10)
/* Names below hidden directories looked at, in all: a hidden node_modules
 * holds 100,000 (every name matched against secret_names cost 80 ms). */
#define HIDEOBJ_NAMES_MAX 4096u
/* The start reads at most this much of hidden files in all. */
#define HIDEOBJ_TOTAL_MAX (16u << 20)

/* The object names ("ab/cdef…", relative to an objects/ directory; for
 * git-lfs "ab/cd/OID", relative to lfs/objects) of the
 * blobs that hold the content of the hidden `paths` (relative to the project
 * open at `project_fd`, found in `tree` before they are dropped from it),
 * appended to `out`, sorted.  Files are opened below project_fd without
 * following a link; what cannot be read is skipped.  `cache` (a file of the
 * session's, or NULL): the ids the last start found, taken again for a file
 * whose stamp is the same, so an unchanged secret is not read at each start. */
void hideobj_collect(int project_fd, const struct jail_config *cfg, struct hide_node *tree,
                     const struct strv *paths, const char *cache, struct strv *out);
/* Older versions too: the objects at secret paths (as hideobj_collect
 * chooses them: a blob, or the tree of a secret-shaped directory) in the
 * untracked trees of every stash entry (`git stash -u`/`--all` keeps what
 * .env held then, and later edits leave it there), added to `out`, sorted.
 * Two git runs, only when the stash's ref or reflog changed since the
 * last start (`cache`: a file of the session's, or NULL).  Nothing for a
 * linked worktree (its object store is outside the view). */
void hideobj_stash(const char *project, const struct jail_config *cfg, const char *cache,
                   struct strv *out);
/* Keep in `objs` only what the jail does not show anyway: a blob a shown
 * tracked file has in the project's index (an .env.example the .env was
 * copied from) is git's to read, and withholding it would break git on that
 * file.  `hidden`: the hidden paths (a tracked file among them stays
 * withheld).  On any failure of git's, all stay.  `cache` (a file of the
 * session's, or NULL): what the last start found, taken again while the
 * index, the ids and the hidden paths are the same (git costs a start a few
 * ms of the view server's, on the way to its tree). */
void hideobj_drop_shown(const char *project, const char *cache, const struct strv *hidden,
                        struct strv *objs);
/* The list kept in the session (<session>/withheld) for the export: the
 * agent cannot read those objects, but it can name them in a tree of its
 * own, and the export would take them from the host's store.  One full id
 * a line; `objs` as hideobj_collect made it. */
int hideobj_save(const char *path, const struct strv *objs, struct jail_err *e) WUR;
/* The ids of a saved list, sorted (none when there is no list). */
void hideobj_load(const char *path, struct strv *ids);
/* Whether the full hex `id` is in `ids` (sorted, as hideobj_load made it). */
bool hideobj_has(const struct strv *ids, const char *id);
/* Whether `name` in the directory `dir` is such an object: dir is a two-hex
 * fan-out directory below one named objects (the store's own, or a
 * quarantine's in it).  `ids` sorted.  While any id is withheld, a name
 * there that is not an object id (git's tmp_obj_* of an object it is
 * writing) is withheld too: its content has no id yet to be checked by;
 * and so are git's own files that quote what was staged, in any git
 * directory (COMMIT_EDITMSG: `git commit -v` left the diff it showed there;
 * addp-hunk-edit.diff: a hunk `git add -p` had edited; ADD_EDIT.patch,
 * `git add -e`'s, left when it died), whatever staged
 * content they hold. */
bool hideobj_withheld(const struct strv *ids, const struct hide_node *dir, const char *name);
/* Whether a live directory is in a git object store: it or one above it,
 * within the .git directory, is named objects. */
bool hideobj_in_store(const struct hide_node *dir);
#endif
