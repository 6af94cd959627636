/* util.h — the error convention, cleanup attributes and small helpers.
 *
 * Error convention: a function that can fail returns a negative value and fills a
 * struct jail_err with errno and a message naming the object
 * ("mount overlay on '/x': Permission denied").  Only main() exits.
 */
#ifndef JAIL_UTIL_H
#define JAIL_UTIL_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define WUR __attribute__((warn_unused_result))
#define PRINTF(a, b) __attribute__((format(printf, a, b)))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Exit statuses of jail itself (the agent's own status passes through). */
enum {
	EXIT_JAIL_FAIL = 125,    /* jail failed: bad input, setup error */
	EXIT_CANNOT_EXEC = 126,  /* command found but not executable */
	EXIT_NOT_FOUND = 127,    /* command not found */
};

struct jail_err {
	int errnum;      /* errno of the failure, 0 when not a syscall error */
	char msg[1024];  /* one line: what failed, on what, and what to do */
};

/* Fill *e and return -1.  errnum is appended as ": strerror" when non-zero. */
int jail_err_set(struct jail_err *e, int errnum, const char *fmt, ...) PRINTF(3, 4);
/* The same with errno as errnum. */
int jail_err_sys(struct jail_err *e, const char *fmt, ...) PRINTF(2, 3);
/* Prefix an error already set with more context: "context: old message". */
int jail_err_wrap(struct jail_err *e, const char *fmt, ...) PRINTF(2, 3);

/* Cleanup attributes: the variable is released when it goes out of scope.
 * Hand ownership on with steal_ptr()/steal_fd(). */
void freep(void *p);
void closep(int *fd);  /* closes *fd if >= 0, then sets it to -1 */
void fclosep(FILE **f);
#define _cleanup_free_ __attribute__((cleanup(freep)))
#define _cleanup_close_ __attribute__((cleanup(closep)))
#define _cleanup_fclose_ __attribute__((cleanup(fclosep)))
static inline void *steal_ptr_(void **p) { void *v = *p; *p = NULL; return v; }
#define steal_ptr(p) steal_ptr_((void **)(p))
static inline int steal_fd(int *fd) { int v = *fd; *fd = -1; return v; }

/* Allocation that cannot fail: out of memory aborts (there is nothing to save). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) PRINTF(1, 2);

/* A growable string; .s is always NUL-terminated once anything was appended. */
struct strbuf {
	char *s;
	size_t len, cap;
};
void sb_append(struct strbuf *b, const char *s, size_t n);
void sb_puts(struct strbuf *b, const char *s);
void sb_printf(struct strbuf *b, const char *fmt, ...) PRINTF(2, 3);
char *sb_steal(struct strbuf *b);
void sb_free(struct strbuf *b);

/* A growable list of owned strings, NULL-terminated (usable as argv). */
struct strv {
	char **v;
	size_t n, cap;
};
void strv_push(struct strv *l, const char *s);
void strv_push_take(struct strv *l, char *s);
void strv_free(struct strv *l);
bool strv_contains(const struct strv *l, const char *s);

/* The next line of a NUL-terminated buffer, cut in place (its newline
 * overwritten), advancing *at; NULL at the end.  An empty line is "". */
char *line_next(char **at);
/* Write all of buf, retrying on EINTR and short writes. */
int write_all(int fd, const void *buf, size_t n) WUR;
/* Read up to max bytes of a file into a NUL-terminated malloc'd buffer. */
int read_file_at(int dirfd, const char *path, size_t max, char **out, size_t *len,
                 struct jail_err *e) WUR;
/* The same from an open fd (path names it in errors). */
int read_file_fd(int fd, const char *path, size_t max, char **out, size_t *len,
                struct jail_err *e) WUR;
int write_file_at(int dirfd, const char *path, const char *data, size_t n, mode_t mode,
                  struct jail_err *e) WUR;
/* Replace `path` whole: written to "path.tmp", then renamed over it, so a
 * reader (or a crash) never sees half a file. */
int replace_file(const char *path, const char *data, size_t n, mode_t mode,
                 struct jail_err *e) WUR;
/* The same for name in dirfd ("name.tmp" first; nothing is left of it when
 * the write fails, a full disk's or a file size limit's). */
int replace_file_at(int dirfd, const char *name, const char *data, size_t n, mode_t mode,
                    struct jail_err *e) WUR;
/* mkdir -p; existing directories are fine. */
int mkdir_p(const char *path, mode_t mode, struct jail_err *e) WUR;
/* The directory NAME below dirfd ("." for dirfd itself) opened for readdir,
 * never through a symlink; NULL with errno set. */
DIR *opendir_at(int dirfd, const char *name);
/* Remove a tree fd-relatively, never following symlinks. */
int rm_rf_at(int dirfd, const char *name, struct jail_err *e) WUR;

/* Escape a name for printing: control bytes, backslash, invalid UTF-8 and
 * invisible or bidirectional format characters become \xNN, so a file name can
 * never drive the terminal nor read as another name. */
char *escape_name(const char *s);
bool is_valid_utf8(const char *s, size_t n);
/* n bytes of s into out (cap bytes at most, cut before a character that
 * would not fit), every control byte (C0 but tab, DEL, C1 encoded or raw)
 * and every byte of invalid UTF-8 as \xNN, the rest as it is (backslashes
 * too: what escape_name made reads the same).  Returns the bytes written.
 * For jail's own lines: whatever went into one cannot drive the terminal.
 * No allocation (a vfork child logs). */
size_t escape_controls(const char *s, size_t n, char *out, size_t cap);
/* Is the user's terminal not in UTF-8?  The locale tells (LC_ALL, else
 * LC_CTYPE, else LANG); unset, C and POSIX count as UTF-8.  Such a terminal
 * reads every byte 0x80-0x9F as a C1 control by itself (0x9B CSI, 0x9D OSC),
 * also one that is part of a valid UTF-8 character (U+00DB is C3 9B): the
 * escapers then escape each such byte.  No allocation (a vfork child logs). */
bool terminal_eight_bit(void);
/* Unicode's invisible and bidirectional format characters (zero widths, bidi
 * embeddings, overrides and isolates, BOM, tag characters): text that shows
 * nothing, or reorders what is around it ("Trojan Source"). */
bool unicode_is_invisible(unsigned cp);
/* The length of such a character encoded at s (n bytes available), else 0. */
size_t invisible_char_len(const char *s, size_t n);

/* "~" and "~/x" expanded with the caller's HOME. */
char *expand_home(const char *path);
/* An absolute path with the symlinks of its existing part resolved, the part
 * not made yet appended as spelled. */
char *realpath_existing(const char *path);
/* path is dir or lies below it (lexically: both absolute and normalized). */
bool path_at_or_below(const char *path, const char *dir);
/* openat2 of path with root as "/": its links, absolute ones included, are
 * resolved as if root were the root, never above it (RESOLVE_IN_ROOT; no
 * magic links).  flags gets O_CLOEXEC; -1 and errno on failure. */
int open_in_root(int root, const char *path, int flags);
const char *home_dir(void);
/* The monotonic clock in milliseconds: for deadlines, ages and timings. */
double mono_ms(void);

/* A file's stamp: "mtime.nsec:ctime.nsec:ino:size", or "none" when it does not
 * exist.  Equal stamps mean an unchanged file, for the caches that are kept
 * between runs: mtime can be set back (rsync -a, tar x, touch -r), ctime
 * cannot. */
#define FILE_STAMP_MAX 96
void file_stamp(int dirfd, const char *path, char out[FILE_STAMP_MAX]);
/* The same stamp from a stat already made. */
void stat_stamp(const struct stat *st, char out[FILE_STAMP_MAX]);

/* SHA-256, for project hashes and policy digests. */
void sha256(const void *data, size_t n, unsigned char out[32]);
void sha256_hex(const void *data, size_t n, char out[65]);

#endif
