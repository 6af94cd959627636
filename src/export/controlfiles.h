/* controlfiles.h — changes to the files that decide what the host's tools
 * ignore, fetch or run on their own (.gitignore, .gitattributes, .lfsconfig,
 * CI workflows, ...: pathrules.c path_flag_reason()).
 *
 * They go out in the patch, flagged (CF_REVIEW), and `jail apply` lands them
 * only with --accept-flagged or a "yes" typed on a terminal.  For an ignore
 * rule the flag says what it means on this host: the files the host ignores
 * today that the agent's rules would no longer ignore, so that the next run
 * would show them to the agent and a later export could carry them. */
#ifndef JAIL_CONTROLFILES_H
#define JAIL_CONTROLFILES_H

#include "export.h"

/* For each included change to a .gitignore: c->note lists the host files it
 * un-hides ("no longer ignores .env (exists on the host)").  Host git decides,
 * hardened, with the host's rules and the agent's rules side by side in a
 * scratch tree of .gitignore files below workdir (removed after).  A check that
 * fails says so in the note; it never stops the export. */
void controlfiles_review(struct export_ctx *x, struct changeset *cs, const char *workdir);

/* The included changes flagged CF_REVIEW, one line each (and their notes). */
size_t controlfiles_render(const struct changeset *cs, struct strbuf *out);
#endif
