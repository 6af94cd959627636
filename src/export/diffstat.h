/* diffstat.h — the diffstat of a patch, read from the patch itself.
 *
 * `git format-patch` prints a stat between the message and the diff; jail asks
 * it for the diff alone (--no-stat: computing every file's diff twice costs
 * twice the CPU) and makes the stat here from the diff it printed, byte for
 * byte as git 2.39's (diff.c: show_stats, pprint_rename, the summary); for
 * names of ASCII that is every git's since 2.25 or so, for others only that of
 * git 2.39 to 2.53 (2.38 and older count bytes, not columns; 2.54 cuts a long
 * name by columns: the caller asks git's version, diffstat_git_widths).  What
 * the reader is not sure of (a header it does not know, counts that do not
 * add up, a name whose display width it cannot tell) makes it give up: the
 * caller then asks git for the stat.
 */
#ifndef JAIL_DIFFSTAT_H
#define JAIL_DIFFSTAT_H

#include "util.h"

struct ds_file {
	char *name;           /* the (new) path, as git quotes it in a header */
	char *from;           /* a rename's old path, quoted likewise; else NULL */
	char status;          /* 'A', 'D', 'M' or 'R' */
	bool content;         /* hunks or a binary patch follow the header */
	bool binary;          /* a binary patch (or, without content, set by the caller) */
	bool size_unknown;    /* binary, a "delta" hunk: the sizes are the blobs' (oid) */
	unsigned long long added, deleted;  /* lines; binary: bytes of new, old side */
	unsigned old_mode, new_mode;        /* 0: not in the header */
	int similarity;       /* 'R': percent */
	char *oids;           /* size_unknown: "OLD NEW" from the index line */
};

struct diffstat {
	struct ds_file *v;
	size_t n, cap;
};

/* Read the format-patch output in fd (from its start) into d.  0: read;
 * 1: not sure of something, d is to be thrown away; -1: a read error (e). */
int diffstat_scan(int fd, struct diffstat *d, struct jail_err *e) WUR;
/* The stat git prints with --stat=WIDTH --summary: a line per file, the
 * totals, the summary lines.  -1 (nothing appended): a name whose display
 * width is not known here. */
int diffstat_render(const struct diffstat *d, int width, struct strbuf *out) WUR;
void diffstat_free(struct diffstat *d);

/* A header's path unquoted (git's C quoting), or NULL when it is malformed. */
char *diffstat_unquote(const char *q);
/* Whether `git version` output names a git whose stat of names not ASCII
 * diffstat_render() prints (2.39 to 2.53). */
bool diffstat_git_widths(const char *version);
/* Display columns of s as git counts them (utf8_strwidth), or -1 for a
 * character whose width this table does not know. */
int diffstat_width(const char *s);

#endif
