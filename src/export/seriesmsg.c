/* seriesmsg.c — see seriesmsg.h. */
#include "seriesmsg.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/* Valid UTF-8 without control characters (tabs and newlines kept) nor
 * invisible or bidirectional format characters (a subject that reads as
 * another), else '?'. */
static void clean_text(struct strbuf *b, const char *s, size_t n, bool keep_newlines)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t l = p[i] < 0x80 ? 1 : (p[i] & 0xE0) == 0xC0 ? 2 : (p[i] & 0xF0) == 0xE0 ? 3
		           : (p[i] & 0xF8) == 0xF0 ? 4 : 0;
		bool ok = l == 1 ? (p[i] >= 0x20 && p[i] != 0x7f) || p[i] == '\t' ||
		                       (keep_newlines && p[i] == '\n')
		                 : l > 1 && i + l <= n && is_valid_utf8(s + i, l) &&
		                       !(p[i] == 0xC2 && p[i + 1] < 0xA0);
		bool invisible = ok && l > 1 && invisible_char_len(s + i, l);
		if (ok && !invisible)
			sb_append(b, s + i, l);
		else
			sb_append(b, "?", 1);
		i += ok ? l : 1;
	}
}

/* Would git am (mailsplit, mailinfo) read this line as something other than
 * message text?  first_body: the first line after the subject paragraph. */
static bool line_is_special(const char *l, size_t n, bool first_body)
{
	static const char *const starts[] = {"---", "diff -", "Index: ", "From ", ">From "};
	for (size_t i = 0; i < ARRAY_SIZE(starts); i++)
		if (n >= strlen(starts[i]) && strncmp(l, starts[i], strlen(starts[i])) == 0)
			return true;
	/* mailinfo takes a first body line "[PATCH] TEXT" for the subject: git am
	 * would land TEXT in place of the subject the summary showed */
	static const char *const headers[] = {"from:", "date:", "subject:", "author:", "[patch]"};
	for (size_t i = 0; first_body && i < ARRAY_SIZE(headers); i++)
		if (n >= strlen(headers[i]) && strncasecmp(l, headers[i], strlen(headers[i])) == 0)
			return true;
	return false;
}

/* A scissors mark of mailinfo: ">8", "8<", ">%" or "%<". */
static bool scissors_mark(const char *p, size_t n)
{
	return n >= 2 && ((p[0] == '>' && (p[1] == '8' || p[1] == '%')) ||
	                  ((p[0] == '8' || p[0] == '%') && p[1] == '<'));
}

/* The line with a space inside each scissors mark.  With --scissors (or
 * mailinfo.scissors in the user's config) git am takes a line of dashes and
 * such a mark for a cut wherever it is indented: the message above it is
 * dropped and in-body "From:", "Subject:", "Date:" after it are honoured, so
 * another author and subject would land than the summary showed.  "> 8" is
 * text to it. */
static void append_unscissored(struct strbuf *b, const char *l, size_t n)
{
	size_t from = 0;
	for (size_t i = 0; i + 1 < n; i++)
		if (scissors_mark(l + i, n - i)) {
			sb_append(b, l + from, i + 1 - from);
			sb_puts(b, " ");
			from = i + 1;
		}
	sb_append(b, l + from, n - from);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Is [l, l+n) only blanks?  git takes such a line for an empty one where it
 * splits a message into paragraphs (the subject ends there, and blank lines
 * at the start of the body are skipped). */
static bool line_is_blank(const char *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_blank(l[i]))
			return false;
	return true;
}

/* The subject paragraph as git am lands it: format-patch joins its lines,
 * mailinfo makes each run of blanks one space and trims the ends. */
static void append_subject_line(struct strbuf *subj, const char *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!is_blank(l[i])) {
			sb_append(subj, l + i, 1);
			continue;
		}
		while (i + 1 < n && is_blank(l[i + 1]))
			i++;
		if (subj->len && subj->s[subj->len - 1] != ' ')
			sb_puts(subj, " ");
	}
	if (subj->len && subj->s[subj->len - 1] != ' ')
		sb_puts(subj, " ");  /* the join; trimmed at the end */
}

/* What git am's mailinfo strips from the start of a subject (without -k):
 * blanks, ':', "re:" in any case and "[...]" groups.  Its length. */
static size_t subject_strip_len(const char *s, size_t n)
{
	size_t at = 0;
	while (at < n) {
		char c = s[at];
		const char *close = c == '[' ? memchr(s + at, ']', n - at) : NULL;
		if (c == ' ' || c == '\t' || c == ':')
			at++;
		else if ((c == 'r' || c == 'R') && at + 3 < n && (s[at + 1] | 0x20) == 'e' &&
		         s[at + 2] == ':')
			at += 3;
		else if (close)
			at = (size_t)(close - s) + 1;
		else
			break;
	}
	return at;
}

char *seriesmsg_sanitize(const char *msg, size_t len)
{
	struct strbuf clean = {0}, subj = {0}, out = {0};
	clean_text(&clean, msg, len, true);
	const char *s = clean.s ? clean.s : "";
	size_t n = clean.len;
	/* the subject paragraph ends at the first blank line, as git reads it;
	 * blank lines before it and at the start of the body count for nothing */
	int state = 0;  /* 0: before the subject, 1: in it, 2: before the body, 3: in the body */
	size_t blanks = 0;  /* blank lines in the body not written yet */
	for (size_t i = 0; i < n;) {
		const char *l = s + i, *nl = memchr(l, '\n', n - i);
		size_t ln = nl ? (size_t)(nl - l) : n - i;
		i += ln + 1;
		bool blank = line_is_blank(l, ln);
		if (state <= 1) {
			if (!blank)
				append_subject_line(&subj, l, ln);
			state = blank ? state * 2 : 1;
			continue;
		}
		if (blank) {
			blanks += state == 3;
			continue;
		}
		for (; blanks; blanks--)
			sb_puts(&out, "\n");
		if (line_is_special(l, ln, state == 2))
			sb_puts(&out, " ");
		append_unscissored(&out, l, ln);
		sb_puts(&out, "\n");
		state = 3;
	}
	sb_free(&clean);
	while (subj.len && subj.s[subj.len - 1] == ' ')
		subj.s[--subj.len] = '\0';
	/* git am would land the subject without it ("[wip] x" as "x"; "[x]"
	 * alone as the next line it finds): the summary shows what lands */
	size_t strip = subj.len ? subject_strip_len(subj.s, subj.len) : 0;
	struct strbuf b = {0};
	if (strip < subj.len)
		sb_append(&b, subj.s + strip, subj.len - strip);
	else if (out.len)
		sb_puts(&b, "(no subject)");
	else
		sb_puts(&b, "(no message)");
	if (out.len) {
		sb_puts(&b, "\n\n");
		sb_append(&b, out.s, out.len - 1);  /* without the last newline */
	}
	sb_free(&subj);
	sb_free(&out);
	return sb_steal(&b);
}

char *seriesmsg_ident_part(const char *s, size_t len, bool email)
{
	struct strbuf b = {0};
	clean_text(&b, s, len, false);
	/* mailinfo takes the From: line's first '@' for the address and ends it
	 * at a blank or a comma: "ada@example.com <evil@x>" would land as
	 * ada@example.com, "x@y (Ada)" as x@y, not as the summary showed */
	const char *bad = email ? "<> \t,;()\"\\" : "<>@";
	for (size_t i = 0; i < b.len; i++)
		if (strchr(bad, b.s[i]))
			b.s[i] = '?';
	size_t start = 0;
	while (start < b.len && b.s[start] == ' ')
		start++;
	while (b.len > start && b.s[b.len - 1] == ' ')
		b.s[--b.len] = '\0';
	char *r = b.len > start ? xstrdup(b.s + start) : NULL;
	sb_free(&b);
	return r;
}

/* Is the paragraph [p, p+n) all "Token: value" lines (a trailer block)? */
static bool is_trailer_block(const char *p, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n;) {
		const char *l = p + i, *nl = memchr(l, '\n', n - i);
		size_t ln = nl ? (size_t)(nl - l) : n - i;
		i += ln + 1;
		size_t k = 0;
		while (k < ln && (isalnum((unsigned char)l[k]) || l[k] == '-'))
			k++;
		if (k == 0 || k + 1 >= ln || l[k] != ':' || l[k + 1] != ' ')
			return false;
	}
	return true;
}

char *seriesmsg_finish(const char *msg, const struct strv *notes, const char *trailer)
{
	size_t n = strlen(msg);
	const char *para = NULL;
	for (size_t i = n; i > 1; i--)
		if (msg[i - 1] == '\n' && msg[i - 2] == '\n') {
			para = msg + i;
			break;
		}
	bool has_block = para && is_trailer_block(para, n - (size_t)(para - msg));
	size_t body = has_block ? (size_t)(para - msg) - 2 : n;
	struct strbuf b = {0};
	sb_append(&b, msg, body);
	if (notes && notes->n) {
		sb_puts(&b, "\n\nLeft out by jail:");
		for (size_t i = 0; i < notes->n; i++) {  /* a name the agent chose */
			sb_puts(&b, "\n  ");
			append_unscissored(&b, notes->v[i], strlen(notes->v[i]));
		}
	}
	if (has_block || trailer)
		sb_puts(&b, "\n\n");
	if (has_block)
		sb_append(&b, para, n - (size_t)(para - msg));
	if (has_block && trailer)
		sb_puts(&b, "\n");
	if (trailer)
		sb_printf(&b, "Jail-Session: %s", trailer);
	return sb_steal(&b);
}

/* verb of a change: 0 update, 1 add, 2 delete */
static int change_verb(const struct change *c)
{
	return c->new_type == FT_NONE ? 2 : c->pre == PRE_NONE ? 1 : 0;
}

#define SUBJECT_NAMES 3

char *seriesmsg_default_subject(const struct changeset *cs, const char *session)
{
	static const char *const verbs[] = {"update", "add", "delete"};
	struct strbuf b = {0};
	size_t shown = 0, total = changeset_included(cs);
	for (int v = 0; v < 3; v++) {
		bool first = true;
		for (size_t i = 0; i < cs->n && shown < SUBJECT_NAMES; i++) {
			const struct change *c = &cs->v[i];
			if (c->reason || change_verb(c) != v)
				continue;
			if (b.len)
				sb_puts(&b, ", ");
			if (first)
				sb_printf(&b, "%s ", verbs[v]);
			first = false;
			const char *slash = strrchr(c->path, '/');
			clean_text(&b, slash ? slash + 1 : c->path, strlen(slash ? slash + 1 : c->path), false);
			shown++;
		}
	}
	if (total > shown)
		sb_printf(&b, " and %zu more file%s", total - shown, total - shown == 1 ? "" : "s");
	if (!b.len)
		sb_puts(&b, "Changes");
	b.s[0] = (char)toupper((unsigned char)b.s[0]);
	sb_printf(&b, " (jail session %s)", session);
	return sb_steal(&b);
}
