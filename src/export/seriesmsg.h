/* seriesmsg.h — the text of the agent's commits as they go into patches.
 *
 * Pure functions (unit-tested).  A commit message is data the agent wrote, and
 * `git am` parses the mbox it lands in: a body line "---" or "diff -" would
 * start the patch early (a diff written in the message would be applied,
 * unfiltered), "From " would split the mbox into a second, forged patch, and
 * "From:"/"Date:"/"Subject:" at the top of the body override the headers.
 * Such lines are indented by one space; control characters and invalid UTF-8
 * become '?'.  Paragraphs are split where git splits them (a line of blanks
 * ends the subject), the subject is one line as git am lands it, and a
 * scissors mark ("-- >8 --", which git am --scissors cuts at) gets a space
 * inside. */
#ifndef JAIL_SERIESMSG_H
#define JAIL_SERIESMSG_H
#include "export.h"

/* The agent's message made safe for an mbox (never empty). */
char *seriesmsg_sanitize(const char *msg, size_t len);
/* A person's name or email made safe for a commit header, and read by git am
 * as it is: control characters, '<', '>', invalid UTF-8 and, in a name '@',
 * in an email blanks and ",;()\"\\" become '?'; NULL when empty. */
char *seriesmsg_ident_part(const char *s, size_t len, bool email);
/* msg with a "Left out by jail:" block (notes: "path: reason" lines, may be
 * NULL) and, when trailer is set, "Jail-Session: TRAILER" added to the
 * message's trailer paragraph (a new one when it has none). */
char *seriesmsg_finish(const char *msg, const struct strv *notes, const char *trailer);
/* The default subject of uncommitted changes: what changed, and the session
 * ("Update main.c, add NEW.md (jail session default)"). */
char *seriesmsg_default_subject(const struct changeset *cs, const char *session);
#endif
