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
	/* scissors ("-- >8 --") when the user's git am runs with --scissors */
	if (memmem(l, n, ">8", 2) || memmem(l, n, "8<", 2))
		return true;
	/* mailinfo takes a first body line "[PATCH] TEXT" for the subject: git am
	 * would land TEXT in place of the subject the summary showed */
	static const char *const headers[] = {"from:", "date:", "subject:", "author:", "[patch]"};
	for (size_t i = 0; first_body && i < ARRAY_SIZE(headers); i++)
		if (n >= strlen(headers[i]) && strncasecmp(l, headers[i], strlen(headers[i])) == 0)
			return true;
	return false;
}

/* What git am's mailinfo strips from the start of a subject (without -k):
 * blanks, ':', "re:" in any case and "[...]" groups, across the lines of the
 * subject paragraph (format-patch joins them into one).  Its length. */
static size_t subject_strip_len(const char *s, size_t n)
{
	size_t at = 0;
	while (at < n) {
		char c = s[at];
		const char *close = c == '[' ? memchr(s + at, ']', n - at) : NULL;
		const char *para = memmem(s + at, n - at, "\n\n", 2);
		if (c == ' ' || c == '\t' || c == ':' || (c == '\n' && s + at != para))
			at++;
		else if ((c == 'r' || c == 'R') && at + 3 < n && (s[at + 1] | 0x20) == 'e' &&
		         s[at + 2] == ':')
			at += 3;
		else if (close && (!para || close < para))
			at = (size_t)(close - s) + 1;
		else
			break;
	}
	return at;
}

char *seriesmsg_sanitize(const char *msg, size_t len)
{
	struct strbuf clean = {0}, out = {0};
	clean_text(&clean, msg, len, true);
	const char *s = clean.s ? clean.s : "";
	size_t n = clean.len;
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	while (n && *s == '\n')
		s++, n--;
	int state = 0;  /* 0: the subject paragraph, 1: before the body, 2: in the body */
	for (size_t i = 0; i < n;) {
		const char *l = s + i, *nl = memchr(l, '\n', n - i);
		size_t ln = nl ? (size_t)(nl - l) : n - i;
		i += ln + 1;
		if (state == 0 && ln == 0) {
			state = 1;
		} else if (state > 0 && ln) {
			if (line_is_special(l, ln, state == 1))
				sb_puts(&out, " ");
			state = 2;
		}
		sb_append(&out, l, ln);
		if (i <= n)
			sb_puts(&out, "\n");
	}
	sb_free(&clean);
	/* git am would land the subject without it ("[wip] x" as "x"; "[x]"
	 * alone as the next line it finds): the summary shows what lands */
	size_t strip = out.len ? subject_strip_len(out.s, out.len) : 0;
	if (strip) {
		memmove(out.s, out.s + strip, out.len - strip + 1);
		out.len -= strip;
		if (out.len && out.s[0] == '\n') {  /* the subject was all of that */
			struct strbuf b = {0};
			sb_puts(&b, "(no subject)");
			sb_append(&b, out.s, out.len);
			sb_free(&out);
			out = b;
		}
	}
	if (!out.len)
		sb_puts(&out, "(no message)");
	while (out.len && out.s[out.len - 1] == '\n')
		out.s[--out.len] = '\0';
	return sb_steal(&out);
}

char *seriesmsg_ident_part(const char *s, size_t len)
{
	struct strbuf b = {0};
	clean_text(&b, s, len, false);
	for (size_t i = 0; i < b.len; i++)
		if (b.s[i] == '<' || b.s[i] == '>')
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
		for (size_t i = 0; i < notes->n; i++)
			sb_printf(&b, "\n  %s", notes->v[i]);
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
