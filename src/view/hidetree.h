/* hidetree.h — the names of the project that the jail may see, fixed at start.
 *
 * Whiteouts made at start cannot keep an ignored file hidden when it appears on
 * the host later (overlayfs shows lower entries that appear after the mount).
 * So the jail's overlay does not sit on the project itself but on a view of it
 * (hidefs.h) that can only show the names this tree holds: those that existed
 * when the run started, less the hidden ones.  A name that appears on the host
 * during the run is not in the tree, so it is not there for the jail, whatever
 * its name, however it got there.  The tree is built by the view's server
 * while the jail starts (hidefs.h): the view answers nothing that names an
 * entry or reads content before it is final, so "at start" means when the
 * walk read each directory (the command may be running by then, waiting on
 * the view).  Directories named .git are "live": git's
 * internals are not subject to ignore rules, and the host's own git keeps
 * writing there (objects, refs), so their entries are shown as they are. */
#ifndef JAIL_HIDETREE_H
#define JAIL_HIDETREE_H
#include "util.h"

#include <sys/stat.h>

/* What the walk saw of a directory (before reading it) or of a .gitignore:
 * the ignore cache's stamps come from here, so a warm start stats nothing
 * twice (ignorecache.h). */
struct hide_stamp {
	struct timespec mtim, ctim;
	ino_t ino;
	off_t size;
};

struct hide_node {
	char *name;              /* in the same allocation as the node */
	struct hide_node *parent;
	struct hide_node **kids; /* sorted by name (strcmp) */
	size_t n_kids, cap_kids;
	struct hide_stamp *stamp; /* directories and files named .gitignore; else NULL */
	bool live;               /* a .git directory or below: not filtered */
	bool dir;                /* was a directory at start */
	bool walked;             /* a directory whose entries the walk read */
};

/* Walk the project (fd-relative, never following symlinks or crossing into
 * another filesystem) and record every name.  Must run before the ignored paths
 * are asked for: a name that appears after the walk is then never shown, and one
 * that existed before is in git's answer.  (Run in the view's server, beside
 * the jail's start: run.c build_view.) */
int hidetree_build(int project_fd, struct hide_node **root, size_t *count,
                   struct jail_err *e) WUR;

/* The pieces the start-walk cache (hidecache.h) builds trees from. */
struct hide_node *hidetree_node(struct hide_node *parent, const char *name, bool dir);
void hidetree_push(struct hide_node *dir, struct hide_node *kid);
/* Room for n entries in dir (those it has are kept). */
void hidetree_reserve(struct hide_node *dir, size_t n);
void hidetree_sort(struct hide_node *dir);
void hidetree_set_stamp(struct hide_node *n, const struct stat *st);
/* Read the entries of the directory open at `fd` into `dir` (no entries
 * yet), sorted; not below. */
void hidetree_read(int fd, struct hide_node *dir, size_t *count);
/* Read the directory open at `fd` (stamped already) into `dir`, which has no
 * entries yet, and walk below it on the device `dev`; `depth` is dir's. */
void hidetree_walk(int fd, struct hide_node *dir, dev_t dev, int depth, size_t *count);
/* Forget a directory's entries, keeping the node.  Trees are never freed one
 * node at a time: their memory lasts as long as the process (one run). */
void hidetree_free_kids(struct hide_node *dir);
/* Deeper trees are cut here: the view shows the directory, empty. */
#define HIDETREE_DEPTH 256
/* Drop a path (relative, '/'-separated) and all below it; unknown paths are fine. */
void hidetree_drop(struct hide_node *root, const char *path);
/* The node at a relative path ("." is the root), or NULL. */
struct hide_node *hidetree_lookup(struct hide_node *root, const char *path);
/* The child named `name`, or NULL. */
struct hide_node *hidetree_find(const struct hide_node *dir, const char *name);
/* Add a child to a live directory (the entry was found on the host). */
struct hide_node *hidetree_add(struct hide_node *dir, const char *name, bool is_dir);
/* Whether processes forked from now on inherit the trees' memory (by default
 * they do not: git started by the view's server, which builds the tree, is
 * spared a copy of a large tree's page tables and its unmapping at exit). */
void hidetree_inherit(bool yes);
/* The node's path relative to the root ("." for the root); false when too long. */
bool hidetree_path(const struct hide_node *n, char *buf, size_t size);
void hidetree_free(struct hide_node *root);
#endif
