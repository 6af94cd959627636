/* homelinks.h — a change to a file the user's home links to.
 *
 * A dotfiles repository is a project like any other (stow, or links made by
 * hand: ~/.bashrc -> src/dotfiles/bashrc, ~/.config/nvim -> src/dotfiles/nvim,
 * ~/.ssh/config -> src/dotfiles/ssh_config): what lands there is what the
 * user's shell, editor, git and ssh run on their own, at the next login or the
 * next command.  A change to a file a symlink of the home leads to (the home's
 * top, ~/.config, ~/.ssh) is flagged, with the name the home gives it. */
#ifndef JAIL_HOMELINKS_H
#define JAIL_HOMELINKS_H
#include "export.h"

/* Flag (CF_REVIEW, c->flag_why, a note) the included changes of cs at or below
 * a path of the project that a symlink of $HOME leads to.  Best effort: a
 * directory of the home that cannot be read flags nothing. */
void homelinks_review(const struct export_ctx *x, struct changeset *cs);
#endif
