/* hidetree.h — the names of the project that the jail may see, fixed at start.
 *
 * Whiteouts made at start cannot keep an ignored file hidden when it appears on
 * the host later (overlayfs shows lower entries that appear after the mount).
 * So the jail's overlay does not sit on the project itself but on a view of it
 * (hidefs.h) that can only show the names this tree holds: those that existed
 * when the run started, less the hidden ones.  A name that appears on the host
 * during the run is not in the tree, so it is not there for the jail, whatever
 * its name, however it got there.  Directories named .git are "live": git's
 * internals are not subject to ignore rules, and the host's own git keeps
 * writing there (objects, refs), so their entries are shown as they are. */
#ifndef JAIL_HIDETREE_H
#define JAIL_HIDETREE_H
#include "util.h"

struct hide_node {
	char *name;
	struct hide_node *parent;
	struct hide_node **kids; /* sorted by name (strcmp) */
	size_t n_kids, cap_kids;
	bool live;               /* a .git directory or below: not filtered */
	bool dir;                /* was a directory at start */
};

/* Walk the project (fd-relative, never following symlinks or crossing into
 * another filesystem) and record every name.  Must run before the ignored paths
 * are asked for: a name that appears after the walk is then never shown, and one
 * that existed before is in git's answer. */
int hidetree_build(int project_fd, struct hide_node **root, size_t *count,
                   struct jail_err *e) WUR;
/* Drop a path (relative, '/'-separated) and all below it; unknown paths are fine. */
void hidetree_drop(struct hide_node *root, const char *path);
/* The child named `name`, or NULL. */
struct hide_node *hidetree_find(const struct hide_node *dir, const char *name);
/* Add a child to a live directory (the entry was found on the host). */
struct hide_node *hidetree_add(struct hide_node *dir, const char *name, bool is_dir);
/* The node's path relative to the root ("." for the root); false when too long. */
bool hidetree_path(const struct hide_node *n, char *buf, size_t size);
void hidetree_free(struct hide_node *root);
#endif
