/* patch.c — patch series through a throwaway git repository, and the summary. */
#include "patch.h"

#include "crcache.h"
#include "diffstat.h"
#include "git.h"
#include "log.h"
#include "scratchobj.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static char status_letter(const struct change *c);

/* A scratch dir left by an export that crashed: the session is locked, so no
 * other export is using it. */
static void remove_stale_scratch(const char *parent)
{
	DIR *d = opendir_at(AT_FDCWD, parent);
	if (!d)
		return;
	struct dirent *de;
	struct jail_err e;
	while ((de = readdir(d)))
		if (strncmp(de->d_name, ".export.", 8) == 0 && rm_rf_at(dirfd(d), de->d_name, &e) < 0)
			break;
	closedir(d);
}

int scratch_create(struct scratch *s, const char *parent, struct jail_err *e)
{
	remove_stale_scratch(parent);
	return scratch_create_another(s, parent, e);
}

int scratch_create_another(struct scratch *s, const char *parent, struct jail_err *e)
{
	s->dir = xasprintf("%s/.export.XXXXXX", parent);
	if (!mkdtemp(s->dir)) {
		jail_err_sys(e, "create a scratch directory in '%s'", parent);
		free(s->dir);
		s->dir = NULL;
		return -1;
	}
	/* a bare repository by hand: no templates, no hooks, a config of our own */
	static const char *const dirs[] = {"objects", "objects/info", "objects/pack", "refs",
	                                   "refs/heads", "refs/tags"};
	_cleanup_close_ int fd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return jail_err_sys(e, "open '%s'", s->dir);
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (mkdirat(fd, dirs[i], 0700) < 0)
			return jail_err_sys(e, "create '%s/%s'", s->dir, dirs[i]);
	static const char head[] = "ref: refs/heads/post\n";
	/* a repository deleted in a second: no fsync (git >= 2.36 syncs packs
	 * and refs), no compression of its pack, no delta search (core.compression
	 * stays: binary patches are deflated with it); and fast-import (the
	 * agent's commits, series.c) keeps its pack (unpack-objects would touch
	 * the mtime of every loose object the host's repository has too: a write
	 * to it); and no attributes from the
	 * agent's tree: git 2.43 reads a bare repository's from HEAD (here the
	 * agent's side), where `* -diff` would turn every text change into a
	 * binary patch no reviewer can read (attr.tree names the empty tree, an
	 * unknown key to older git) */
	static const char config[] = "[core]\n\trepositoryformatversion = 0\n\tbare = true\n"
	                             "\tfsync = none\n"
	                             "[pack]\n\tcompression = 0\n\twindow = 0\n"
	                             "[fastimport]\n\tunpackLimit = 0\n"
	                             "[attr]\n\ttree = 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n";
	if (write_file_at(fd, "HEAD", head, sizeof(head) - 1, 0600, e) < 0 ||
	    write_file_at(fd, "config", config, sizeof(config) - 1, 0600, e) < 0)
		return -1;
	return 0;
}

void scratch_destroy(struct scratch *s)
{
	if (s->mbox_started) {
		git_abort(&s->mbox);
		s->mbox_started = false;
	}
	if (s->stat_started) {
		git_abort(&s->stat);
		s->stat_started = false;
	}
	free(s->attrs);
	s->attrs = NULL;
	if (!s->dir)
		return;
	struct jail_err e;
	if (rm_rf_at(AT_FDCWD, s->dir, &e) < 0) {
		/* a leftover scratch dir is harmless; the next export makes a new one */
	}
	free(s->dir);
	s->dir = NULL;
}

static int scratch_git(struct scratch *s, const char *const *args, const char *in,
                       size_t in_len, struct strbuf *out, struct jail_err *e)
{
	struct git g = {.cwd = s->dir, .git_dir = s->dir};
	return git_run(&g, args, in, in_len, out, NULL, e);
}

/* The old sides that the base commit holds are named by id and read from the
 * host's objects, which the throwaway repository borrows read-only; nothing is
 * copied, and git never writes into an alternate object directory. */
int scratch_borrow(struct scratch *s, const char *objects, struct jail_err *e)
{
	struct strbuf line = {0};
	if (objects[0] == '"' || strpbrk(objects, "\\\n")) {
		sb_puts(&line, "\"");  /* git C-unquotes a line that starts with a quote */
		for (const char *c = objects; *c; c++) {
			if (*c == '"' || *c == '\\')
				sb_puts(&line, "\\");
			if (*c == '\n')
				sb_puts(&line, "\\n");
			else
				sb_append(&line, c, 1);
		}
		sb_puts(&line, "\"");
	} else {
		sb_puts(&line, objects);
	}
	sb_puts(&line, "\n");
	_cleanup_free_ char *path = xasprintf("%s/objects/info/alternates", s->dir);
	int r = write_file_at(AT_FDCWD, path, line.s, line.len, 0600, e);
	sb_free(&line);
	if (r == 0)
		s->borrowed = true;
	return r;
}

/* ---- the base blobs: read once, for their carriage returns ---- */

/* cat-file --batch output, parsed as it arrives: "OID blob SIZE\n", SIZE bytes,
 * "\n"; each blob's CR goes to the next change that takes its old side from
 * the base commit. */
struct blob_scan {
	struct changeset *cs;
	size_t next;                 /* the change the current blob belongs to */
	struct strbuf head;          /* the header line so far */
	unsigned long long left;     /* bytes of blob data (then its "\n") to go */
	bool in_data;
	bool bad;
};

static struct change *scan_change(struct blob_scan *z)
{
	while (z->next < z->cs->n) {
		struct change *c = &z->cs->v[z->next];
		if (!c->reason && c->pre == PRE_BASE && !c->base_cr_known)
			return c;
		z->next++;
	}
	return NULL;
}

/* The size in a header "OID blob SIZE" (no sscanf: the buffer has no NUL). */
static bool blob_header_size(const char *h, size_t n, unsigned long long *size)
{
	const char *sp = memchr(h, ' ', n);
	if (!sp || (size_t)(h + n - sp) < 7 || memcmp(sp, " blob ", 6) != 0)
		return false;
	unsigned long long v = 0;
	const char *d = sp + 6;
	if (d == h + n)
		return false;
	for (; d < h + n; d++) {
		if (*d < '0' || *d > '9' || v > (~0ULL - 9) / 10)
			return false;
		v = v * 10 + (unsigned long long)(*d - '0');
	}
	*size = v;
	return true;
}

static int blob_scan_take(void *ctx, const char *data, size_t n)
{
	struct blob_scan *z = ctx;
	while (n && !z->bad) {
		if (z->in_data) {
			size_t k = z->left < n ? (size_t)z->left : n;
			struct change *c = scan_change(z);
			/* the last byte of the run is the "\n" after the data */
			size_t body = z->left == k ? k - 1 : k;
			/* the blob's answer for crcache.h; a symlink's target holding
			 * '\r' does not make it a binary patch */
			if (c && memchr(data, '\r', body)) {
				c->base_cr = true;
				c->has_cr |= (c->base_mode & 0170000) == 0100000;
			}
			z->left -= k, data += k, n -= k;
			if (z->left == 0) {
				z->in_data = false;
				z->next++;
			}
			continue;
		}
		const char *nl = memchr(data, '\n', n);
		size_t k = nl ? (size_t)(nl - data) : n;
		if (z->head.len + k > 256) {
			z->bad = true;
			break;
		}
		sb_append(&z->head, data, k);
		data += k, n -= k;
		if (!nl)
			break;
		data++, n--;
		unsigned long long size = 0;
		if (!scan_change(z) || !blob_header_size(z->head.s, z->head.len, &size))
			z->bad = true;
		z->head.len = 0;
		z->left = size + 1;
		z->in_data = true;
	}
	return 0;
}

/* Which base blobs hold '\r' (`git am` strips it from text patch lines): one
 * `git cat-file --batch` of the host's objects, no filters, read in passing.
 * Started here with every id fed; its output is read while the objects are
 * written (scratchobj.h), then by scan_finish(). */
static int scan_start(const struct export_ctx *x, struct changeset *cs, struct blob_scan *z,
                      struct git_proc *p, struct jail_err *e)
{
	*z = (struct blob_scan){.cs = cs};
	struct git g = {.cwd = x->project};
	const char *args[] = {"cat-file", "--batch", NULL};
	*p = (struct git_proc){.on_out = blob_scan_take, .ctx = z};
	if (git_start(&g, args, p, e) < 0)
		return -1;
	int r = 0;
	for (size_t i = 0; r == 0 && i < cs->n; i++)
		if (!cs->v[i].reason && cs->v[i].pre == PRE_BASE && !cs->v[i].base_cr_known) {
			r = git_feed(p, cs->v[i].base_oid, strlen(cs->v[i].base_oid), e);
			r = r < 0 ? r : git_feed(p, "\n", 1, e);
		}
	if (r == 0)
		r = git_close_input(p, e);
	if (r < 0) {
		git_abort(p);
		sb_free(&z->head);
	}
	return r;
}

static int scan_finish(struct blob_scan *z, struct git_proc *p, struct jail_err *e)
{
	int r = git_finish(p, NULL, e);
	bool whole = !z->bad && !z->in_data && z->head.len == 0 && !scan_change(z);
	sb_free(&z->head);
	if (r == 0 && !whole)
		return jail_err_set(e, 0, "git cat-file: unexpected output reading a base blob");
	return r;
}

int patch_commit(struct scratch *s, struct export_ctx *x, struct changeset *cs,
                 const char *message, struct jail_err *e)
{
	s->no_splice = strstr(message, "diff --git") != NULL;  /* patch_mbox_start() */
	bool by_id = false;
	for (size_t i = 0; i < cs->n && !by_id; i++)
		by_id = !cs->v[i].reason && cs->v[i].pre == PRE_BASE;
	if (by_id && !s->borrowed)
		return jail_err_set(e, 0, "build the patch: the host repository's objects were not found");
	/* the carriage-return scan of the base blobs runs beside the writing;
	 * blobs an earlier export of the session read are not read again */
	bool scan = by_id && s->patch_file;
	if (scan && s->session_dir)
		crcache_apply(s->session_dir, cs);
	bool unknown = false;
	for (size_t i = 0; scan && i < cs->n && !unknown; i++)
		unknown = !cs->v[i].reason && cs->v[i].pre == PRE_BASE && !cs->v[i].base_cr_known;
	bool read = scan && unknown;
	struct blob_scan z;
	struct git_proc cat = {0};
	if (read && scan_start(x, cs, &z, &cat, e) < 0)
		return jail_err_wrap(e, "build the patch");
	int r = scratchobj_write(s->dir, x, cs, s->author, message, (long long)time(NULL),
	                         read ? &cat : NULL, e);
	if (read && r < 0)
		git_abort(&cat), sb_free(&z.head);
	else if (read)
		r = scan_finish(&z, &cat, e);
	if (r == 0 && read && s->session_dir)
		crcache_store(s->session_dir, cs);
	return r < 0 ? jail_err_wrap(e, "build the patch") : 0;
}

static int cmp_change_path(const void *key, const void *elem)
{
	return strcmp((const char *)key, ((const struct change *)elem)->path);
}

/* One numstat path: its change (the project's prefix taken off), or NULL. */
static struct change *numstat_change(const struct export_ctx *x, const struct changeset *cs,
                                     const char *path)
{
	size_t pl = strlen(x->prefix);
	if (strncmp(path, x->prefix, pl) != 0)
		return NULL;
	return bsearch(path + pl, cs->v, cs->n, sizeof(*cs->v), cmp_change_path);
}

/* The -z numstat records at the start of buf: "ADDED\tDELETED\tPATH\0", with
 * -M a rename "ADDED\tDELETED\t\0OLD\0NEW\0" ("-" for binary).  Each path's
 * change gets the counts, or, for a rename's two paths (whose counts must be
 * those without rename detection) and when redo is set, goes onto redo.
 * Returns where the records end (a --stat after them starts with ' '). */
static size_t numstat_take(const char *buf, size_t len, const struct export_ctx *x,
                           struct changeset *cs, struct strv *redo)
{
	size_t i = 0;
	while (i < len && (buf[i] == '-' || (buf[i] >= '0' && buf[i] <= '9'))) {
		const char *rec = buf + i, *end = buf + len;
		const char *t1 = memchr(rec, '\t', (size_t)(end - rec));
		const char *t2 = t1 ? memchr(t1 + 1, '\t', (size_t)(end - t1 - 1)) : NULL;
		if (!t2 || t2 + 1 >= end)
			return len;
		const char *path = t2 + 1;
		int paths = *path ? 1 : 2;  /* an empty path: a rename's two follow */
		path += paths == 2;
		for (int k = 0; k < paths; k++) {
			const char *nul = memchr(path, '\0', (size_t)(end - path));
			if (!nul)
				return len;
			struct change *c = numstat_change(x, cs, path);
			if (c) {
				c->in_diff = true;
				c->added = rec[0] == '-' ? -1 : strtol(rec, NULL, 10);
				c->deleted = t1[1] == '-' ? -1 : strtol(t1 + 1, NULL, 10);
				if (redo && (paths == 2 || c->has_cr))
					strv_push(redo, path);
			}
			path = nul + 1;
		}
		i = (size_t)(path - buf);
	}
	return i;
}

/* A numstat without rename detection, of the paths given (NULL: all). */
static int numstat_run(struct scratch *s, struct export_ctx *x, struct changeset *cs,
                       const struct strv *paths, struct jail_err *e)
{
	struct strv args = {0};
	const char *head[] = {"diff-tree", "-r", "-z", "--numstat", "--no-renames",
	                      "refs/heads/pre", "refs/heads/post", "--"};
	for (size_t i = 0; i < ARRAY_SIZE(head); i++)
		strv_push(&args, head[i]);
	for (size_t i = 0; paths && i < paths->n; i++)
		strv_push(&args, paths->v[i]);
	struct strbuf out = {0};
	/* format-patch may be running beside it: its errors are read meanwhile */
	struct git g = {.cwd = s->dir, .git_dir = s->dir, .literal_pathspecs = true};
	struct git_proc p = {.out_buf = &out, .also = s->mbox_started ? &s->mbox : NULL};
	int r = git_start(&g, (const char *const *)args.v, &p, e) < 0 || git_finish(&p, NULL, e) < 0
	                ? -1
	                : 0;
	if (r == 0)
		numstat_take(out.s ? out.s : "", out.len, x, cs, NULL);
	sb_free(&out);
	strv_free(&args);
	return r;
}

/* The numstat that the diffstat's diff-tree printed before the stat (its
 * rename detection and '\r' attributes are format-patch's); the paths whose
 * counts differ without them are counted again, by themselves. */
static int numstat_from_stat(struct scratch *s, struct export_ctx *x, struct changeset *cs,
                             struct jail_err *e)
{
	s->stat.also = s->mbox_started ? &s->mbox : NULL;  /* read both meanwhile */
	if (s->mbox_started)
		s->mbox.also = NULL;  /* no cycle */
	s->stat_started = false;
	int r = git_finish(&s->stat, NULL, e);
	s->stat_made = r == 0;
	if (s->mbox_started)
		s->mbox.also = NULL;
	_cleanup_free_ char *path = xasprintf("%s/mbox.stat", s->dir);
	_cleanup_free_ char *data = NULL;
	size_t len = 0;
	if (r == 0)
		r = read_file_at(AT_FDCWD, path, 1u << 30, &data, &len, e);
	if (r < 0)
		return -1;
	struct strv redo = {0};
	numstat_take(data ? data : "", len, x, cs, &redo);
	if (redo.n)
		r = numstat_run(s, x, cs, &redo, e);
	strv_free(&redo);
	return r;
}

static int stat_from_patch(struct scratch *s, struct export_ctx *x, struct changeset *cs,
                           struct jail_err *e);
static int stat_by_git(struct scratch *s, struct jail_err *e);

int patch_numstat(struct scratch *s, struct export_ctx *x, struct changeset *cs,
                  struct jail_err *e)
{
	int r;
	if (s->mbox_started && s->split && !s->stat_started) {
		/* the counts come with the stat, from the finished patch */
		s->mbox_started = false;
		r = git_finish(&s->mbox, NULL, e);
		s->mbox_done = r == 0;
		if (r == 0)
			r = stat_from_patch(s, x, cs, e);
		if (r == 1)
			r = stat_by_git(s, e) < 0 ? -1 : numstat_from_stat(s, x, cs, e);
	} else {
		r = s->stat_started ? numstat_from_stat(s, x, cs, e) : numstat_run(s, x, cs, NULL, e);
	}
	if (r < 0)
		return -1;
	size_t keep = 0;
	for (size_t i = 0; i < cs->n; i++) {
		if (!cs->v[i].reason && !cs->v[i].in_diff) {
			change_drop_fd(&cs->v[i]);
			free(cs->v[i].path);
			free(cs->v[i].note);
			continue;
		}
		cs->v[keep++] = cs->v[i];
	}
	cs->n = keep;
	return 0;
}

/* A gitattributes pattern matching exactly one path: glob characters escaped,
 * the whole C-quoted. */
void patch_attr_pattern(struct strbuf *b, const char *prefix, const char *path)
{
	sb_puts(b, "\"/");
	for (const char *parts[] = {prefix, path}, **p = parts; p < parts + 2; p++)
		for (const char *c = *p; *c; c++) {
			if (*c == '\\') {
				sb_puts(b, "\\\\\\\\");  /* quoted, then glob-escaped */
				continue;
			}
			if (strchr("*?[", *c))
				sb_puts(b, "\\\\");
			else if (*c == '"')
				sb_puts(b, "\\");
			sb_append(b, c, 1);
		}
	sb_puts(b, "\"");
}

/* The files holding '\r' go as binary patches: an attributes file of their
 * own for format-patch alone (core.attributesFile, not info/attributes: the
 * numstat that runs beside it must count their lines). */
static char *cr_attributes(struct scratch *s, const struct export_ctx *x,
                           const struct changeset *cs, struct jail_err *e)
{
	struct strbuf attrs = {0};
	for (size_t i = 0; i < cs->n; i++)
		if (!cs->v[i].reason && cs->v[i].has_cr) {
			patch_attr_pattern(&attrs, x->prefix, cs->v[i].path);
			sb_puts(&attrs, " -diff\n");
		}
	char *path = xasprintf("%s/cr-attributes", s->dir);
	if (write_file_at(AT_FDCWD, path, attrs.s ? attrs.s : "", attrs.len, 0600, e) < 0) {
		free(path);
		path = NULL;
	}
	sb_free(&attrs);
	return path;
}

/* format-patch computes every file's diff twice, once for the diffstat after
 * the message and once for the patch.  So it runs with --no-stat, the stat is
 * made from the patch it wrote (stat_from_patch, diffstat.h), with the
 * summary's numstat, and splice_stat() puts it where format-patch would have,
 * after "---": each file is diffed once.  When the patch holds what the stat
 * maker is not sure of, git makes the stat: `diff-tree --stat=72 --summary`
 * (what format-patch prints there: its width is the mail's 72 columns), which
 * prints the summary's numstat first (-z: NULs in it, the stat after it as
 * ever).  The golden test (integration/export.sh) and the differential one
 * (integration/exportdiff.sh) keep the bytes those of one format-patch. */
static int start_stat(struct scratch *s, const struct git *g, struct jail_err *e)
{
	_cleanup_free_ char *path = xasprintf("%s/mbox.stat", s->dir);
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return jail_err_sys(e, "create '%s'", path);
	const char *args[] = {"diff-tree", "-r", "-M", "--stat=72", "--summary", "--numstat", "-z",
	                      "--no-color", "refs/heads/pre", "refs/heads/post", NULL};
	s->stat = (struct git_proc){0};
	if (git_start_to_fd(g, args, fd, &s->stat, e) < 0)
		return -1;
	s->stat_started = true;
	return 0;
}

static int start_mbox(struct scratch *s, const char *attrs, bool split, bool by_git,
                      struct jail_err *e)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", s->dir, split ? "mbox.body" : "mbox");
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return jail_err_sys(e, "create '%s'", path);
	_cleanup_free_ char *cfg = xasprintf("core.attributesFile=%s", attrs);
	const char *args[] = {"format-patch", "--stdout", "-1", "--full-index", "--binary",
	                      "-M", "--no-signature", "--no-color", "--subject-prefix=PATCH",
	                      "refs/heads/post", split ? "--no-stat" : NULL, NULL};
	struct git g = {.cwd = s->dir, .git_dir = s->dir, .config = cfg};
	s->mbox = (struct git_proc){0};
	if (git_start_to_fd(&g, args, fd, &s->mbox, e) < 0)
		return -1;
	s->mbox_started = true;
	s->split = split;
	s->stat_made = false;
	if (split && by_git && start_stat(s, &g, e) < 0)
		return -1;
	s->mbox.also = s->stat_started ? &s->stat : NULL;  /* its errors are read meanwhile */
	return 0;
}

static bool is_ascii(const char *p)
{
	for (; *p; p++)
		if ((unsigned char)*p >= 0x80)
			return false;
	return true;
}

/* Whether git makes the patch's stat, beside format-patch, instead of
 * stat_from_patch(): for a file that became a symlink (or back), which goes
 * as a deletion and a creation but whose stat line is one, of the two sides
 * diffed (not in the patch); and for names not ASCII, whose columns gits
 * count in different ways, unless this git counts them as diffstat.c does. */
static bool stat_needs_git(struct scratch *s, const struct export_ctx *x,
                           const struct changeset *cs)
{
	bool ascii = is_ascii(x->prefix);
	for (size_t i = 0; i < cs->n; i++) {
		if (cs->v[i].reason)
			continue;
		if (status_letter(&cs->v[i]) == 'T')
			return true;
		ascii = ascii && is_ascii(cs->v[i].path);
	}
	if (ascii)
		return false;
	struct strbuf out = {0};
	struct jail_err e;
	const char *args[] = {"version", NULL};
	bool known = scratch_git(s, args, NULL, 0, &out, &e) == 0 && out.s &&
	             diffstat_git_widths(out.s);
	sb_free(&out);
	return !known;
}

int patch_mbox_start(struct scratch *s, const struct export_ctx *x, const struct changeset *cs,
                     struct jail_err *e)
{
	_cleanup_free_ char *attrs = cr_attributes(s, x, cs, e);
	if (!attrs)
		return -1;
	size_t n = changeset_included(cs);
	log_progress("exporting: git writes the patch of", n, n);
	free(s->attrs);
	s->attrs = steal_ptr(&attrs);
	s->x = x;
	s->cs = cs;
	return start_mbox(s, s->attrs, !s->no_splice, stat_needs_git(s, x, cs), e);
}

/* Bytes [from, to) of in go to out at at (in the kernel where it can). */
static int copy_range(int in, off_t from, off_t to, int out, off_t at, struct jail_err *e)
{
	bool kernel = true;
	char chunk[65536];
	while (from < to) {
		size_t want = (size_t)(to - from);
		ssize_t n = -1;
		if (kernel) {
			loff_t f = from, t = at;
			n = copy_file_range(in, &f, out, &t, want, 0);
			if (n < 0 && errno != EINTR && (errno == EXDEV || errno == EINVAL ||
			                                errno == ENOSYS || errno == EOPNOTSUPP)) {
				kernel = false;
				continue;
			}
		} else {
			n = pread(in, chunk, want < sizeof(chunk) ? want : sizeof(chunk), from);
			if (n > 0 && pwrite(out, chunk, (size_t)n, at) != n)
				n = -1;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return jail_err_sys(e, "copy the patch");
		from += n, at += n;
	}
	return 0;
}

/* The body from cut on moves to out at shift, a piece at a time from its end,
 * the body cut shorter after each: the patch is never on disk twice. */
static int move_tail(int body, off_t cut, int out, off_t shift, struct jail_err *e)
{
	struct stat st;
	if (fstat(body, &st) < 0)
		return jail_err_sys(e, "read the patch");
	for (off_t end = st.st_size; end > cut;) {
		off_t start = end - cut > (16 << 20) ? end - (16 << 20) : cut;
		if (copy_range(body, start, end, out, shift + start - cut, e) < 0)
			return -1;
		if (ftruncate(body, start) < 0)
			return jail_err_sys(e, "cut the patch's body");
		end = start;
	}
	return 0;
}

/* Where the -z numstat records before a --stat end (numstat_take's grammar). */
static size_t numstat_end(const char *buf, size_t len)
{
	size_t i = 0;
	while (i < len && (buf[i] == '-' || (buf[i] >= '0' && buf[i] <= '9'))) {
		const char *t1 = memchr(buf + i, '\t', len - i);
		const char *t2 = t1 ? memchr(t1 + 1, '\t', len - (size_t)(t1 + 1 - buf)) : NULL;
		if (!t2 || (size_t)(t2 + 1 - buf) >= len)
			return len;
		size_t at = (size_t)(t2 + 1 - buf);
		int nuls = buf[at] ? 1 : 3;
		for (; nuls && at < len; at++)
			nuls -= buf[at] == '\0';
		if (nuls)
			return len;
		i = at;
	}
	return i;
}

/* ---- the stat from the patch itself ---- */

static const struct change *find_change(const struct export_ctx *x, const struct changeset *cs,
                                        const char *quoted)
{
	_cleanup_free_ char *path = diffstat_unquote(quoted);
	return path ? numstat_change(x, cs, path) : NULL;
}

/* The sizes of the binary files whose patch is a delta (git's stat shows the
 * blobs' sizes): one cat-file of their ids.  1: an answer not understood. */
static int delta_sizes(struct scratch *s, struct diffstat *d, struct jail_err *e)
{
	struct strbuf in = {0}, out = {0};
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].size_unknown) {
			size_t at = in.len;
			sb_puts(&in, d->v[i].oids);  /* "OLD NEW": a line each */
			*(char *)memchr(in.s + at, ' ', in.len - at) = '\n';
			sb_puts(&in, "\n");
		}
	int r = 0;
	if (in.len) {
		const char *args[] = {"cat-file", "--batch-check", NULL};
		r = scratch_git(s, args, in.s, in.len, &out, e);
	}
	const char *p = out.s;
	for (size_t i = 0; r == 0 && i < d->n; i++) {
		if (!d->v[i].size_unknown)
			continue;
		unsigned long long size[2] = {0, 0};
		for (int k = 0; k < 2 && r == 0; k++) {
			const char *sp = p ? strstr(p, " blob ") : NULL;
			const char *nl = p ? strchr(p, '\n') : NULL;
			char *end = NULL;
			if (!sp || !nl || sp > nl) {
				r = 1;
				break;
			}
			size[k] = strtoull(sp + 6, &end, 10);
			r = end == nl ? 0 : 1;
			p = nl + 1;
		}
		d->v[i].deleted = size[0], d->v[i].added = size[1];
	}
	sb_free(&in);
	sb_free(&out);
	return r;
}

/* Files the patch shows by their header alone (a mode change, a pure rename)
 * are binary to git when an attribute says so (cr_attributes: a file with
 * '\r'), else by their content, which the export only knows is text when it
 * left out binary files.  1: a path not in the change, or not known. */
static int header_only_binary(const struct scratch *s, struct diffstat *d)
{
	for (size_t i = 0; i < d->n; i++) {
		struct ds_file *f = &d->v[i];
		const struct change *c = find_change(s->x, s->cs, f->name);
		const struct change *o = f->from ? find_change(s->x, s->cs, f->from) : c;
		if (!c || !o)
			return 1;
		if (f->content || f->status == 'A' || f->status == 'D')
			continue;  /* an empty file is text */
		f->binary = c->has_cr || o->has_cr;
		if (!f->binary && s->x->rules.binary_ok)
			return 1;
	}
	return 0;
}

/* The summary's counts from the patch's: a binary patch is "-" (-1), unless
 * only the '\r' attribute made it one; those and renames (whose counts are
 * those without rename detection) are counted again by git, alone. */
static int counts_from_patch(struct scratch *s, struct export_ctx *x, struct changeset *cs,
                             const struct diffstat *d, struct jail_err *e)
{
	struct strv redo = {0};
	for (size_t i = 0; i < d->n; i++) {
		const struct ds_file *f = &d->v[i];
		for (int k = 0; k < (f->from ? 2 : 1); k++) {
			_cleanup_free_ char *path = diffstat_unquote(k ? f->from : f->name);
			struct change *c = path ? numstat_change(x, cs, path) : NULL;
			if (!c)
				continue;  /* header_only_binary() found them all */
			c->in_diff = true;
			c->added = f->binary ? -1 : (long)f->added;
			c->deleted = f->binary ? -1 : (long)f->deleted;
			if (f->from || c->has_cr)
				strv_push(&redo, path);
		}
	}
	int r = redo.n ? numstat_run(s, x, cs, &redo, e) : 0;
	strv_free(&redo);
	return r;
}

/* format-patch --no-stat has finished: the stat it left out is made from the
 * patch it wrote (diffstat.h), into mbox.stat for splice_stat(), and with
 * cs the summary's counts too: the files' diffs are computed once, by one
 * git.  0: made; 1: not sure of the patch (the caller asks git instead,
 * start_stat); -1: an error. */
static int stat_from_patch(struct scratch *s, struct export_ctx *x, struct changeset *cs,
                           struct jail_err *e)
{
	_cleanup_free_ char *bpath = xasprintf("%s/mbox.body", s->dir);
	_cleanup_free_ char *spath = xasprintf("%s/mbox.stat", s->dir);
	_cleanup_close_ int fd = open(bpath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return jail_err_sys(e, "open '%s'", bpath);
	struct diffstat d = {0};
	struct strbuf out = {0};
	int r = diffstat_scan(fd, &d, e);
	if (r == 0)
		r = header_only_binary(s, &d);
	if (r == 0)
		r = delta_sizes(s, &d, e);
	if (r == 0)
		r = diffstat_render(&d, 72, &out) < 0 ? 1 : 0;  /* format-patch's width */
	if (r == 0)
		r = write_file_at(AT_FDCWD, spath, out.s ? out.s : "", out.len, 0600, e);
	if (r == 0 && x && cs)
		r = counts_from_patch(s, x, cs, &d, e);
	if (r == 0)
		s->stat_made = true;
	diffstat_free(&d);
	sb_free(&out);
	return r;
}

/* The patch's stat when stat_from_patch() was not sure of it: git's own. */
static int stat_by_git(struct scratch *s, struct jail_err *e)
{
	log_debug("export: the patch holds what jail's diffstat is not sure of; git makes it");
	_cleanup_free_ char *cfg = xasprintf("core.attributesFile=%s", s->attrs);
	struct git g = {.cwd = s->dir, .git_dir = s->dir, .config = cfg};
	_cleanup_free_ char *spath = xasprintf("%s/mbox.stat", s->dir);
	(void)unlink(spath);
	return start_stat(s, &g, e);
}

/* mbox = the body's header and message, "---", the stat, the rest of the
 * body (moved, not copied: move_tail).  The message ends at the first "\n\ndiff --git " (no_splice when the
 * message itself holds one); a body without a diff returns 1: the caller makes
 * the patch with one format-patch instead. */
static int splice_stat(struct scratch *s, struct jail_err *e)
{
	_cleanup_free_ char *bpath = xasprintf("%s/mbox.body", s->dir);
	_cleanup_free_ char *spath = xasprintf("%s/mbox.stat", s->dir);
	_cleanup_free_ char *mpath = xasprintf("%s/mbox", s->dir);
	_cleanup_close_ int body = open(bpath, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (body < 0)
		return jail_err_sys(e, "open '%s'", bpath);
	struct strbuf head = {0};
	static const char mark[] = "\n\ndiff --git ";
	char *at = NULL;
	while (!at && head.len < (16u << 20)) {
		char chunk[65536];
		ssize_t r = read(body, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			sb_free(&head);
			return jail_err_sys(e, "read '%s'", bpath);
		}
		if (r == 0)
			break;
		sb_append(&head, chunk, (size_t)r);
		at = memmem(head.s, head.len, mark, sizeof(mark) - 1);
	}
	if (!at) {
		sb_free(&head);
		return 1;
	}
	_cleanup_free_ char *stat = NULL;
	size_t stat_len = 0;
	int r = read_file_at(AT_FDCWD, spath, 1u << 30, &stat, &stat_len, e);
	size_t skip = r == 0 ? numstat_end(stat, stat_len) : 0;
	_cleanup_close_ int out = r < 0 ? -1
	                                : open(mpath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
	                                       O_NOFOLLOW, 0644);
	if (r == 0 && out < 0)
		r = jail_err_sys(e, "create '%s'", mpath);
	size_t cut = (size_t)(at - head.s) + 1;  /* the message's last "\n" stays */
	size_t stat_n = stat_len - skip;
	if (r == 0)
		r = move_tail(body, (off_t)cut, out, (off_t)(cut + 4 + stat_n), e);
	if (r == 0 && (write_all(out, head.s, cut) < 0 || write_all(out, "---\n", 4) < 0 ||
	               write_all(out, stat + skip, stat_n) < 0))
		r = jail_err_sys(e, "write '%s'", mpath);
	sb_free(&head);
	if (r == 0)
		(void)unlink(bpath), (void)unlink(spath);
	return r;
}

int patch_mbox_finish(struct scratch *s, struct jail_err *e)
{
	if (!s->mbox_started && !s->mbox_done)
		return jail_err_set(e, 0, "the patch was not started");
	int r = 0;
	if (s->mbox_started) {
		s->mbox_started = false;
		r = git_finish(&s->mbox, NULL, e);
	}
	s->mbox_done = false;
	if (r == 0 && s->split && !s->stat_made && !s->stat_started) {
		r = stat_from_patch(s, NULL, NULL, e);
		if (r == 1)
			r = stat_by_git(s, e);
	}
	if (s->stat_started) {  /* patch_numstat() did not finish it */
		s->stat_started = false;
		if (r < 0)
			git_abort(&s->stat);
		else
			r = git_finish(&s->stat, NULL, e);
	}
	if (s->split) {
		s->split = false;
		s->stat_made = false;
		if (r == 0)
			r = splice_stat(s, e);
		if (r == 1) {  /* no diff to put the stat before: as one format-patch */
			r = start_mbox(s, s->attrs, false, false, e);
			if (r == 0)
				return patch_mbox_finish(s, e);
		}
	}
	return r;
}

/* Copy the scratch's mbox into fd. */
static int copy_mbox(int from, int to, struct jail_err *e)
{
	char chunk[65536];
	for (;;) {
		ssize_t n = read(from, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return jail_err_sys(e, "read the patch");
		if (n == 0)
			return 0;
		if (write_all(to, chunk, (size_t)n) < 0)
			return jail_err_sys(e, "write the patch");
	}
}

int patch_mbox_size(struct scratch *s, unsigned long long *size, struct jail_err *e)
{
	_cleanup_free_ char *path = xasprintf("%s/mbox", s->dir);
	struct stat st;
	if (stat(path, &st) < 0)
		return jail_err_sys(e, "stat '%s'", path);
	*size = (unsigned long long)st.st_size;
	return 0;
}

int patch_mbox_place(struct scratch *s, int dfd, const char *name, struct jail_err *e)
{
	_cleanup_free_ char *path = xasprintf("%s/mbox", s->dir);
	_cleanup_close_ int from = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (from < 0)
		return jail_err_sys(e, "open '%s'", path);
	if (renameat(AT_FDCWD, path, dfd, name) == 0)
		return 0;
	if (errno != EXDEV)
		return jail_err_sys(e, "move the patch to '%s'", name);
	/* copied under another name, renamed once whole: a full disk leaves no
	 * half patch that git am would take for the change */
	_cleanup_free_ char *tmp = xasprintf("%s.tmp", name);
	if (unlinkat(dfd, tmp, 0) < 0 && errno != ENOENT)
		return jail_err_sys(e, "remove '%s'", tmp);
	_cleanup_close_ int to = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
	                                O_NOFOLLOW, 0644);
	if (to < 0)
		return jail_err_sys(e, "open '%s' for writing", tmp);
	int r = copy_mbox(from, to, e);
	if (r == 0 && renameat(dfd, tmp, dfd, name) < 0)
		r = jail_err_sys(e, "rename '%s'", tmp);
	if (r < 0)
		unlinkat(dfd, tmp, 0);
	return r;
}

int patch_post_tree(struct scratch *s, struct strbuf *out, struct jail_err *e)
{
	const char *args[] = {"ls-tree", "-r", "-z", "refs/heads/post", NULL};
	return scratch_git(s, args, NULL, 0, out, e);
}

/* Put prefix before each path of a --stat or --name-status listing. */
static void prefix_paths(const char *mode, const char *prefix, const struct strbuf *in,
                         struct strbuf *out)
{
	bool stat = strcmp(mode, "stat") == 0;
	for (size_t i = 0; in->s && i < in->len;) {
		const char *line = in->s + i;
		const char *nl = memchr(line, '\n', in->len - i);
		size_t n = nl ? (size_t)(nl - line) + 1 : in->len - i;
		i += n;
		/* stat: " PATH | N +-"; name-status: "M\tPATH" (R and C: two paths) */
		const char *at = NULL;
		if (stat && memmem(line, n, " | ", 3) && line[0] == ' ')
			at = line + 1;
		else if (!stat)
			at = memchr(line, '\t', n) ? (const char *)memchr(line, '\t', n) + 1 : NULL;
		if (!at) {
			sb_append(out, line, n);
			continue;
		}
		sb_append(out, line, (size_t)(at - line));
		sb_puts(out, prefix);
		const char *tab2 = stat ? NULL : memchr(at, '\t', n - (size_t)(at - line));
		if (tab2) {
			sb_append(out, at, (size_t)(tab2 - at) + 1);
			sb_puts(out, prefix);
			at = tab2 + 1;
		}
		sb_append(out, at, n - (size_t)(at - line));
	}
}

int patch_diff(struct scratch *s, const char *mode, const char *prefix, struct strbuf *out,
               struct jail_err *e)
{
	bool patch = strcmp(mode, "stat") != 0 && strcmp(mode, "name-status") != 0;
	const char *how = strcmp(mode, "stat") == 0 ? "--stat" : patch ? "-p" : "--name-status";
	_cleanup_free_ char *src = xasprintf("--src-prefix=a/%s", prefix ? prefix : "");
	_cleanup_free_ char *dst = xasprintf("--dst-prefix=b/%s", prefix ? prefix : "");
	const char *args[] = {"diff-tree", "-r", "-M", "--no-color", how, src, dst,
	                      "refs/heads/pre", "refs/heads/post", NULL};
	if (!prefix || patch)
		return scratch_git(s, args, NULL, 0, out, e);
	struct strbuf raw = {0};
	int r = scratch_git(s, args, NULL, 0, &raw, e);
	if (r == 0)
		prefix_paths(mode, prefix, &raw, out);
	sb_free(&raw);
	return r;
}

/* ---- what the user reads: commit message and summary ---- */

static char status_letter(const struct change *c)
{
	if (c->new_type == FT_NONE)
		return 'D';
	if (c->pre == PRE_NONE)
		return 'A';
	enum ftype old = c->pre == PRE_LOWER                          ? c->old_type
	                 : (c->base_mode & 0170000) == 0120000 ? FT_SYMLINK
	                                                             : FT_FILE;
	return old == c->new_type ? 'M' : 'T';
}

#define GROUP_MIN 4     /* this many left-out files for one reason in one dir: one line */
#define LEFT_OUT_LINES 100

/* The run of left-out changes from i on (in path order, skipping included ones)
 * that share i's reason; *end is one past its last member. */
static size_t same_reason_run(const struct changeset *cs, size_t i, size_t *end)
{
	size_t n = 0, j = i;
	for (; j < cs->n; j++) {
		if (!cs->v[j].reason)
			continue;
		if (strcmp(cs->v[j].reason, cs->v[i].reason) != 0)
			break;
		n++;
	}
	*end = j;
	return n;
}

/* Length of the directory prefix ("a/b/") that paths a and b share. */
static size_t common_dir(const char *a, const char *b)
{
	size_t n = 0;
	for (size_t k = 0; a[k] && a[k] == b[k]; k++)
		if (a[k] == '/')
			n = k + 1;
	return n;
}

static void left_out_line(struct strbuf *b, const char *indent, const char *path, size_t n,
                          const char *reason)
{
	_cleanup_free_ char *esc = escape_name(path);
	_cleanup_free_ char *why = escape_name(reason);
	if (n > 1)
		sb_printf(b, "%s%s (%zu files): %s\n", indent, esc, n, why);
	else
		sb_printf(b, "%s%s: %s\n", indent, esc, why);
}

static void render_left_out(const struct changeset *cs, const char *indent, struct strbuf *b)
{
	for (size_t i = 0; i < cs->git_dirs.n; i++) {
		_cleanup_free_ char *esc = escape_name(cs->git_dirs.v[i]);
		sb_printf(b, "%s%s/: git internals (hooks, config) are never exported\n", indent, esc);
	}
	size_t lines = 0, skipped = 0;
	for (size_t i = 0, end; i < cs->n; i = end) {
		end = i + 1;
		if (!cs->v[i].reason)
			continue;
		size_t last = i, n = same_reason_run(cs, i, &end);
		for (size_t j = i; j < end; j++)
			last = cs->v[j].reason ? j : last;
		size_t dir = n >= GROUP_MIN ? common_dir(cs->v[i].path, cs->v[last].path) : 0;
		if (dir) {
			_cleanup_free_ char *p = xasprintf("%.*s", (int)dir, cs->v[i].path);
			if (lines++ < LEFT_OUT_LINES)
				left_out_line(b, indent, p, n, cs->v[i].reason);
			else
				skipped += n;
			continue;
		}
		for (size_t j = i; j < end; j++) {
			if (!cs->v[j].reason)
				continue;
			if (lines++ < LEFT_OUT_LINES)
				left_out_line(b, indent, cs->v[j].path, 1, cs->v[j].reason);
			else
				skipped++;
		}
	}
	if (skipped)
		sb_printf(b, "%s... and %zu more\n", indent, skipped);
}

static void render_flags(const struct changeset *cs, const char *indent, struct strbuf *b)
{
	for (size_t i = 0; i < cs->n; i++) {
		const struct change *c = &cs->v[i];
		if (c->reason || !c->flags)
			continue;
		_cleanup_free_ char *esc = escape_name(c->path);
		if (c->flags & CF_EXEC_ADDED)
			sb_printf(b, "%s%s: exec bit added\n", indent, esc);
		if (c->flags & CF_SYMLINK)
			sb_printf(b, "%s%s: symlink\n", indent, esc);
		if (c->flags & CF_CONTROLS)
			sb_printf(b, "%s%s: terminal controls or bidirectional overrides in the text "
			             "(jail diff shows them escaped; cat, less -R and git's pager act "
			             "on them)\n", indent, esc);
		if (c->flags & CF_REVIEW)
			sb_printf(b, "%s%s: %s\n", indent, esc, c->flag_why);
		for (const char *l = c->note, *nl; l && *l; l = nl + 1) {  /* controlfiles.h */
			if (!(nl = strchr(l, '\n')))
				break;  /* each line ends with one */
			sb_printf(b, "%s%s: %.*s\n", indent, esc, (int)(nl - l), l);
		}
	}
}

static size_t count_left_out(const struct changeset *cs)
{
	return cs->n - changeset_included(cs) + cs->git_dirs.n;
}

static bool any_flags(const struct changeset *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		if (!cs->v[i].reason && cs->v[i].flags)
			return true;
	return false;
}

char *patch_message(const struct changeset *cs, const char *subject)
{
	struct strbuf b = {0};
	sb_printf(&b, "%s\n\n", subject);
	sb_puts(&b, "Made by an agent in a jail; review before landing.\n");
	if (any_flags(cs)) {
		sb_puts(&b, "\nFlagged for review:\n");
		render_flags(cs, "  ", &b);
	}
	if (count_left_out(cs)) {
		sb_puts(&b, "\nLeft out of this patch:\n");
		render_left_out(cs, "  ", &b);
	}
	return sb_steal(&b);
}

bool changeset_worth_telling(const struct changeset *cs)
{
	return cs->n > 0;
}

static void render_changed(const struct changeset *cs, struct strbuf *b)
{
	long add = 0, del = 0;
	size_t n = changeset_included(cs);
	for (size_t i = 0; i < cs->n; i++) {
		add += cs->v[i].reason || cs->v[i].added < 0 ? 0 : cs->v[i].added;
		del += cs->v[i].reason || cs->v[i].deleted < 0 ? 0 : cs->v[i].deleted;
	}
	sb_printf(b, "%zu file%s changed, +%ld -%ld\n", n, n == 1 ? "" : "s", add, del);
	for (size_t i = 0; i < cs->n; i++) {
		const struct change *c = &cs->v[i];
		if (c->reason)
			continue;
		_cleanup_free_ char *esc = escape_name(c->path);
		if (c->added < 0)
			sb_printf(b, "  %c %s (binary)\n", status_letter(c), esc);
		else
			sb_printf(b, "  %c %s +%ld -%ld\n", status_letter(c), esc, c->added, c->deleted);
	}
}

void summary_render(const struct changeset *cs, const char *patch_path, struct strbuf *out)
{
	if (!changeset_worth_telling(cs))
		return;
	render_changed(cs, out);
	if (any_flags(cs)) {
		sb_puts(out, "flagged for review:\n");
		render_flags(cs, "  ", out);
	}
	if (count_left_out(cs)) {
		sb_printf(out, "left out (%zu):\n", count_left_out(cs));
		render_left_out(cs, "  ", out);
	}
	if (patch_path) {
		_cleanup_free_ char *esc = escape_name(patch_path);
		sb_printf(out, "patch: %s\n", esc);
	}
}

/* ---- terminal output ---- */

/* Length of a UTF-8 sequence by its lead byte (0: not a lead byte). */
static size_t utf8_lead_len(unsigned char c)
{
	return c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
}

void sanitize_for_terminal(const char *s, size_t n, struct strbuf *out)
{
	const unsigned char *p = (const unsigned char *)s;
	bool eight_bit = terminal_eight_bit();  /* a byte 0x80-0x9F is a control there */
	sb_append(out, "", 0);
	for (size_t i = 0; i < n;) {
		size_t l = eight_bit && p[i] >= 0x80 ? 1 : utf8_lead_len(p[i]);
		bool ok = l == 1 ? (p[i] >= 0x20 || p[i] == '\t' || p[i] == '\n') && p[i] != 0x7f &&
		                           !(p[i] >= 0x80 && p[i] < 0xA0)
		                 : l > 1 && i + l <= n && is_valid_utf8(s + i, l) &&
		                           !(p[i] == 0xC2 && p[i + 1] < 0xA0) && /* C1 controls */
		                           !invisible_char_len(s + i, l);  /* Trojan Source */
		if (!ok)
			l = 1;
		for (size_t k = 0; k < l; k++) {
			if (ok)
				sb_append(out, s + i + k, 1);
			else
				sb_printf(out, "\\x%02x", p[i + k]);
		}
		i += l;
	}
}

void colorize_diff(const char *s, size_t n, bool *header, struct strbuf *out)
{
	struct strbuf clean = {0};
	sanitize_for_terminal(s, n, &clean);
	bool in_header = *header;
	for (char *line = clean.s, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		const char *col = NULL;
		if (strncmp(line, "diff --git ", 11) == 0)
			in_header = true;
		if (strncmp(line, "commit ", 7) == 0) {  /* a series' next patch */
			in_header = false;
			col = "\033[33m";
		} else if (strncmp(line, "@@", 2) == 0) {
			in_header = false;
			col = "\033[36m";
		} else if (in_header) {
			col = "\033[1m";
		} else if (line[0] == '+') {
			col = "\033[32m";
		} else if (line[0] == '-') {
			col = "\033[31m";
		}
		if (col)
			sb_puts(out, col);
		sb_append(out, line, len);
		if (col)
			sb_puts(out, "\033[m");
		if (nl)
			sb_puts(out, "\n");
	}
	*header = in_header;
	sb_free(&clean);
}
