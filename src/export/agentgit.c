/* agentgit.c — see agentgit.h. */
#include "agentgit.h"
#include "hideobj.h"

#include "export.h"
#include "git.h"
#include "gitlink.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#define REF_MAX 4096
#define PACKED_REFS_MAX (64u << 20)
#define REF_DEPTH 5
#define OBJECT_MAX (1ULL << 30)  /* one loose object or pack file the agent wrote */
/* The agent's objects once inflated: what git packs and checks for the series.
 * 17 MB of zeros on disk inflate to 4 GB, which git read whole (3.9 GB of
 * memory, 97 s); past these the series is not read (the single patch is). */
#define INFLATED_ONE_MAX (64ULL << 20)
#define INFLATED_ALL_MAX (1ULL << 30)
/* The CPU time of each git that reads the agent's objects as it copied them:
 * their sizes are bounded above, but not what resolving a delta chain costs
 * (an entry no index lists can be the base of another: a chain of a million
 * 64 MiB steps, 60 MB on disk, kept rev-list busy for more than a day).  A
 * series of 1 GiB needs well under a minute of it. */
#define RAW_GIT_CPU_SECONDS 300

/* git's fsck rules, every one an error: a tree entry named "..", ".git" (any
 * case, and its NTFS/HFS spellings), "", with a slash, a mode git does not make,
 * and malformed commit headers. */
#define STRICT_FSCK                                                                        \
	"--strict=badFilemode=error,zeroPaddedFilemode=error,emptyName=error,"                \
	"fullPathname=error,nullSha1=error,nulInCommit=error,hasDot=error,hasDotdot=error,"  \
	"hasDotgit=error,badTimezone=error,missingEmail=error"

/* ---- pure parts ---- */

static bool is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

bool agentgit_refname_ok(const char *name)
{
	size_t n = strlen(name);
	if (strncmp(name, "refs/", 5) != 0 || n > 1024 || name[n - 1] == '/' ||
	    name[n - 1] == '.' || (n >= 5 && strcmp(name + n - 5, ".lock") == 0) ||
	    strstr(name, "..") || strstr(name, "//") || strstr(name, "@{") || strstr(name, "/."))
		return false;
	for (const char *c = name; *c; c++)
		if ((unsigned char)*c < 0x21 || *c == 0x7f || strchr("~^:?*[\\", *c))
			return false;
	return true;
}

int agentgit_parse_head(const char *text, size_t len, size_t hexlen, char oid[65], char **ref)
{
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		len--;
	if (memchr(text, '\0', len) || memchr(text, '\n', len))
		return -1;
	if (len == hexlen && is_hex(text, len)) {
		memcpy(oid, text, len);
		oid[len] = '\0';
		return 0;
	}
	if (len > 5 && strncmp(text, "ref: ", 5) == 0) {
		*ref = xasprintf("%.*s", (int)(len - 5), text + 5);
		if (agentgit_refname_ok(*ref))
			return 1;
		free(*ref);
		*ref = NULL;
	}
	return -1;
}

int agentgit_packed_find(const char *data, size_t len, const char *ref, size_t hexlen,
                         char oid[65])
{
	size_t rl = strlen(ref);
	for (size_t i = 0; i < len;) {
		const char *line = data + i, *nl = memchr(line, '\n', len - i);
		size_t n = nl ? (size_t)(nl - line) : len - i;
		i += n + 1;
		/* "OID REFNAME"; "# ..." headers and "^OID" peeled lines skipped */
		if (n == hexlen + 1 + rl && is_hex(line, hexlen) && line[hexlen] == ' ' &&
		    memcmp(line + hexlen + 1, ref, rl) == 0) {
			memcpy(oid, line, hexlen);
			oid[hexlen] = '\0';
			return 0;
		}
	}
	return 1;
}

/* ---- the overlay, read fd-relatively ---- */

static bool dir_is_opaque(int fd)
{
	char v[4];
	static const char *const names[] = {"user.overlay.opaque", "trusted.overlay.opaque"};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (fgetxattr(fd, names[i], v, sizeof(v)) == 1 && v[0] == 'y')
			return true;
	return false;
}

enum layer { IN_LOWER, IN_UPPER, GONE, NOT_FILE };

/* Where the merged view finds rel: the upper's regular file, the lower (nothing
 * in the upper hides it), or gone (a whiteout, an opaque directory, a file where
 * the lower has a directory).  Anything else in the upper is refused. */
static enum layer upper_layer(int upper_fd, const char *rel)
{
	_cleanup_free_ char *copy = xstrdup(rel);
	_cleanup_close_ int cur = -1;
	bool opaque = false;
	char *save = NULL, *part = strtok_r(copy, "/", &save);
	while (part) {
		char *next = strtok_r(NULL, "/", &save);
		int base = cur >= 0 ? cur : upper_fd;
		struct stat st;
		if (fstatat(base, part, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return opaque ? GONE : IN_LOWER;
		if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0))
			return GONE;
		if (!next)
			return S_ISREG(st.st_mode) ? IN_UPPER : NOT_FILE;
		if (!S_ISDIR(st.st_mode))
			return GONE;
		int fd = openat(base, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return NOT_FILE;
		closep(&cur);
		cur = fd;
		opaque = opaque || dir_is_opaque(cur);
		part = next;
	}
	return NOT_FILE;
}

/* Read rel as the agent's git saw it; 1 when it does not exist. */
static int merged_read(const struct agentgit *g, const char *rel, size_t max, struct strbuf *out,
                       struct jail_err *e)
{
	enum layer l = g->upper_fd >= 0 ? upper_layer(g->upper_fd, rel) : IN_LOWER;
	_cleanup_free_ char *esc = escape_name(rel);
	if (l == GONE)
		return 1;
	if (l == NOT_FILE)
		return jail_err_set(e, 0, "the agent's .git/%s is not a regular file", esc);
	int dfd = l == IN_UPPER ? g->upper_fd : g->lower_fd;
	struct jail_err e2;
	if (read_entry(dfd, rel, FT_FILE, max, out, &e2) == 0)
		return 0;
	if (e2.errnum == ENOENT || e2.errnum == ENOTDIR)
		return 1;
	if (e2.errnum == EFBIG)
		return jail_err_set(e, 0, "the agent's .git/%s is larger than %zu bytes", esc, max);
	return jail_err_set(e, 0, "%s", e2.msg);
}

/* Follow ref (symbolic refs too, a few levels) to a commit id. */
static int resolve_ref(const struct agentgit *g, const char *start, size_t hexlen, char oid[65],
                       struct jail_err *e)
{
	_cleanup_free_ char *ref = xstrdup(start);
	for (int depth = 0; depth < REF_DEPTH; depth++) {
		struct strbuf b = {0};
		int r = merged_read(g, ref, REF_MAX, &b, e);
		char *next = NULL;
		int kind = r == 0 ? agentgit_parse_head(b.s, b.len, hexlen, oid, &next) : 0;
		sb_free(&b);
		if (r < 0)
			return -1;
		_cleanup_free_ char *esc = escape_name(ref);
		if (r == 0 && kind < 0)
			return jail_err_set(e, 0, "the agent's ref %s is malformed", esc);
		if (r == 0 && kind == 0)
			return 0;
		if (r == 0) {
			free(ref);
			ref = next;
			continue;
		}
		struct strbuf packed = {0};
		r = merged_read(g, "packed-refs", PACKED_REFS_MAX, &packed, e);
		int found = r == 0 ? agentgit_packed_find(packed.s, packed.len, ref, hexlen, oid) : 1;
		sb_free(&packed);
		return r < 0 ? -1 : found;
	}
	return jail_err_set(e, 0, "the agent's HEAD is a chain of more than %d symbolic refs",
	                    REF_DEPTH);
}

int agentgit_head(const struct agentgit *g, size_t hexlen, char oid[65], char **what,
                  struct jail_err *e)
{
	struct strbuf b = {0};
	int r = merged_read(g, g->head_rel, REF_MAX, &b, e);
	char *ref = NULL;
	int kind = r == 0 ? agentgit_parse_head(b.s, b.len, hexlen, oid, &ref) : 0;
	sb_free(&b);
	if (r != 0)
		return r < 0 ? -1 : 1;
	if (kind < 0)
		return jail_err_set(e, 0, "the agent's HEAD is malformed");
	if (kind == 0) {
		*what = xstrdup("a detached HEAD");
		return 0;
	}
	_cleanup_free_ char *esc = escape_name(ref + (strncmp(ref, "refs/heads/", 11) ? 0 : 11));
	r = resolve_ref(g, ref, hexlen, oid, e);
	free(ref);
	if (r == 0)
		*what = xasprintf("branch '%s'", esc);
	return r;
}

/* ---- finding the repository ---- */

/* The host's common dir below, the session's upper of it on top. */
/* The upper is root/rel: root is the session dir, rel leads through what the
 * agent wrote (upper/.git, upper/lib/.git, upper/.git/modules/lib), so it is
 * opened beneath root with no symlink on the way: a ".git/modules ->
 * ~/src/lib/.git" the agent left would lead the export into a host repository
 * it never saw. */
static int open_layers(struct agentgit *g, const char *lower, const char *root,
                       const char *rel, struct jail_err *e)
{
	g->host_objects = xasprintf("%s/objects", lower);
	g->lower_fd = open(lower, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (g->lower_fd < 0)
		return jail_err_sys(e, "open the project's git dir '%s'", lower);
	_cleanup_close_ int root_fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (root_fd < 0 && errno != ENOENT)
		return jail_err_sys(e, "open the session's '%s'", root);
	g->upper_fd = root_fd < 0 ? -1 : open_beneath(root_fd, rel, O_RDONLY | O_DIRECTORY);
	if (g->upper_fd < 0 && root_fd >= 0 && errno != ENOENT) {
		_cleanup_free_ char *esc = escape_name(rel);
		return jail_err_sys(e, "open the session's git dir '%s' in '%s' (not through a "
		                       "symlink)", esc, root);
	}
	return g->upper_fd < 0 ? 1 : 0;
}

/* The session's upper of the project's git dir: upper/.git, or git-upper for a
 * linked worktree (the jail overlays the common dir at its own path: plan.c). */
static char *upper_git_dir(const struct gitlink *gl, const char *session_dir)
{
	if (!gl->linked)
		return xasprintf("%s/upper/.git", session_dir);
	return gl->worktree ? xasprintf("%s/git-upper", session_dir) : NULL;
}

/* upper_git_dir() as a path below the session dir. */
static const char *upper_git_rel(const struct gitlink *gl)
{
	return gl->linked ? "git-upper" : "upper/.git";
}

int agentgit_open(struct agentgit *g, const char *project, const char *session_dir,
                  struct jail_err *e)
{
	memset(g, 0, sizeof(*g));
	g->upper_fd = g->lower_fd = -1;
	struct gitlink gl;
	int r = gitlink_read(project, &gl, e);
	if (r != 0)
		return r;
	_cleanup_free_ char *upper = upper_git_dir(&gl, session_dir);
	if (upper)
		g->head_rel = gl.linked ? xasprintf("worktrees/%s/HEAD", strrchr(gl.git_dir, '/') + 1)
		                        : xstrdup("HEAD");
	r = upper ? open_layers(g, gl.common_dir, session_dir, upper_git_rel(&gl), e) : 1;
	gitlink_free(&gl);
	return r;
}

int agentgit_open_sub(struct agentgit *g, const char *super, const char *sub,
                      const char *session_dir, struct jail_err *e)
{
	memset(g, 0, sizeof(*g));
	g->upper_fd = g->lower_fd = -1;
	struct gitlink sg, gl;
	int r = gitlink_read(super, &sg, e);
	if (r != 0)
		return r;
	_cleanup_free_ char *super_upper = upper_git_dir(&sg, session_dir);
	_cleanup_free_ char *sub_path = xasprintf("%s/%s", super, sub);
	r = super_upper ? gitlink_read(sub_path, &gl, e) : 1;
	if (r != 0) {
		gitlink_free(&sg);
		return r;
	}
	/* .git/modules/NAME of the superproject, or a .git directory of its own */
	size_t n = strlen(sg.common_dir);
	_cleanup_free_ char *rel = NULL;
	if (!gl.linked)
		rel = xasprintf("upper/%s/.git", sub);
	else if (strcmp(gl.git_dir, gl.common_dir) == 0 && strncmp(gl.common_dir, sg.common_dir, n) == 0 &&
	         gl.common_dir[n] == '/')
		rel = xasprintf("%s/%s", upper_git_rel(&sg), gl.common_dir + n + 1);
	g->head_rel = xstrdup("HEAD");
	r = rel ? open_layers(g, gl.common_dir, session_dir, rel, e) : 1;
	gitlink_free(&sg);
	gitlink_free(&gl);
	return r;
}

void agentgit_close(struct agentgit *g)
{
	closep(&g->upper_fd);
	closep(&g->lower_fd);
	g->upper_fd = g->lower_fd = -1;
	free(g->host_objects);
	free(g->head_rel);
	g->host_objects = g->head_rel = NULL;
}

/* ---- copying the agent's objects as plain files ---- */

static int copy_fd(int from, int to, unsigned long long max)
{
	char buf[65536];
	unsigned long long total = 0;
	for (;;) {
		ssize_t n = read(from, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return (int)n;
		if ((total += (unsigned long long)n) > max) {
			errno = EFBIG;
			return -1;
		}
		if (write_all(to, buf, (size_t)n) < 0)
			return -1;
	}
}

/* One regular file from sdir into ddir: a hard link (same filesystem: the
 * session dir), else a copy.  Anything that is not a regular file is skipped. */
static int copy_object_file(int sdir, int ddir, const char *name, unsigned long long *budget,
                            struct jail_err *e)
{
	struct stat st;
	if (fstatat(sdir, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (linkat(sdir, name, ddir, name, 0) == 0)
		return 0;
	/* a copy costs its size: bounded */
	if ((unsigned long long)st.st_size > *budget)
		return jail_err_set(e, 0, "the agent's objects are larger than %llu bytes", OBJECT_MAX);
	*budget -= (unsigned long long)st.st_size;
	/* non-blocking: a fifo swapped in after the fstatat must not hang the read */
	_cleanup_close_ int in = openat(sdir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	_cleanup_close_ int out = openat(ddir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	_cleanup_free_ char *esc = escape_name(name);
	if (in < 0 || out < 0 || copy_fd(in, out, OBJECT_MAX) < 0)
		return jail_err_sys(e, "copy the agent's object file '%s'", esc);
	return 0;
}

static bool name_is(const char *name, const char *prefix, size_t hex, const char *suffix)
{
	size_t pl = strlen(prefix), sl = strlen(suffix), n = strlen(name);
	return n == pl + hex + sl && strncmp(name, prefix, pl) == 0 && is_hex(name + pl, hex) &&
	       strcmp(name + pl + hex, suffix) == 0;
}

/* The files of one directory whose names pass keep(); created in dst. */
static int copy_dir(int sparent, const char *sub, int dparent, bool (*keep)(const char *, size_t),
                    size_t hexlen, unsigned long long *budget, struct jail_err *e)
{
	DIR *d = opendir_at(sparent, sub);
	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 : jail_err_sys(e, "read the agent's objects");
	int r = mkdirat(dparent, sub, 0700) < 0 && errno != EEXIST ? jail_err_sys(e, "create %s", sub) : 0;
	int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	_cleanup_close_ int dfd = r < 0 ? -1 : openat(dparent, sub, flags);
	if (r == 0 && dfd < 0)
		r = jail_err_sys(e, "open %s", sub);
	struct dirent *de;
	while (r == 0 && (de = readdir(d)))
		if (keep(de->d_name, hexlen))
			r = copy_object_file(dirfd(d), dfd, de->d_name, budget, e);
	closedir(d);
	return r;
}

static bool keep_loose(const char *name, size_t hexlen)
{
	return name_is(name, "", hexlen - 2, "");
}

static bool keep_pack(const char *name, size_t hexlen)
{
	return name_is(name, "pack-", hexlen, ".pack") || name_is(name, "pack-", hexlen, ".idx");
}

/* Loose objects (objects/xx/…) and packs (objects/pack/pack-*.{pack,idx});
 * never info/ (alternates, commit-graph, packs list), multi-pack-index,
 * bitmaps or reverse indexes.  A pack index the agent wrote is only a lookup
 * table here: every object that leaves is re-hashed by index-pack --strict, so
 * an index that lies makes the import fail, never a wrong object.  (Making
 * the index anew would read the whole pack: after the agent's git gc that is
 * the whole repository.) */
static int copy_objects(const struct agentgit *g, int raw_objects, size_t hexlen,
                        struct jail_err *e)
{
	_cleanup_close_ int src = open_beneath(g->upper_fd, "objects", O_RDONLY | O_DIRECTORY);
	if (src < 0)
		return errno == ENOENT ? 0 : jail_err_sys(e, "open the agent's objects");
	DIR *d = opendir_at(src, ".");
	if (!d)
		return jail_err_sys(e, "read the agent's objects");
	unsigned long long budget = OBJECT_MAX;
	int r = 0;
	struct dirent *de;
	while (r == 0 && (de = readdir(d)))
		if (name_is(de->d_name, "", 2, ""))
			r = copy_dir(src, de->d_name, raw_objects, keep_loose, hexlen, &budget, e);
	closedir(d);
	if (r == 0)
		r = copy_dir(src, "pack", raw_objects, keep_pack, hexlen, &budget, e);
	return r;
}

static int write_alternates(const char *gitdir, const char *objects, struct jail_err *e)
{
	_cleanup_free_ char *path = xasprintf("%s/objects/info/alternates", gitdir);
	_cleanup_free_ char *line = xasprintf("%s\n", objects);
	return write_file_at(AT_FDCWD, path, line, strlen(line), 0600, e);
}

/* Sum and largest of the sizes of a batch-check's "TYPE SIZE" lines, those of
 * skip_type left out. */
static size_t sizes_of(const struct strbuf *out, const char *skip_type, unsigned long long *all,
                       unsigned long long *one)
{
	size_t lines = 0;
	*all = *one = 0;
	for (char *l = out->s, *nl; l && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		char *sp = strchr(l, ' ');
		if (skip_type && sp && (!nl || sp < nl) && strncmp(l, skip_type, (size_t)(sp - l)) == 0)
			continue;
		unsigned long long n = strtoull(sp && (!nl || sp < nl) ? sp + 1 : l, NULL, 10);
		*one = n > *one ? n : *one;
		*all += n;
		lines++;
	}
	return lines;
}

static int too_inflated(const char *what, unsigned long long all, unsigned long long one,
                        bool bound_all, struct jail_err *e)
{
	if (one <= INFLATED_ONE_MAX && (!bound_all || all <= INFLATED_ALL_MAX))
		return 0;
	return jail_err_set(e, 0, "the agent's %s inflate to more than git is given to read "
	                          "(%llu MiB, the largest %llu MiB; at most %llu MiB, %llu MiB each)",
	                    what, all >> 20, one >> 20, INFLATED_ALL_MAX >> 20, INFLATED_ONE_MAX >> 20);
}

/* git cat-file --batch-check in dir: stdin in, lines of fmt out. */
static int batch_check(const char *dir, const char *fmt, const char *in, size_t in_len, bool all,
                       struct strbuf *out, struct jail_err *e)
{
	struct git g = {.cwd = dir, .git_dir = dir, .cpu_seconds = RAW_GIT_CPU_SECONDS};
	_cleanup_free_ char *check = xasprintf("--batch-check=%s", fmt);
	const char *a1[] = {"cat-file", "--batch-all-objects", check, "--buffer", NULL};
	const char *a2[] = {"cat-file", check, "--buffer", NULL};
	int status = 0;
	int r = git_run(&g, all ? a1 : a2, in, in_len, out, &status, e);
	if (r == 0 && status != 0)
		r = jail_err_set(e, 0, "git cat-file could not read the agent's objects (exit %d)", status);
	return r;
}

#define TYPE_SIZE "%(objecttype) %(objectsize)"
#define ID_TYPE_SIZE "%(objectname) %(objecttype) %(objectsize)"

/* Lines of a batch-check's output, read in place: *l and its length. */
static bool next_line_of(const char **p, const char **l, size_t *len)
{
	if (!*p || !**p)
		return false;
	*l = *p;
	*len = strcspn(*p, "\n");
	*p += *len + ((*p)[*len] == '\n');
	return true;
}

/* Whether an "ID TYPE SIZE" line is of a commit, tree or tag. */
static bool is_structure(const char *l, size_t len)
{
	const char *sp = memchr(l, ' ', len);
	return sp && !(len - (size_t)(sp + 1 - l) > 5 && strncmp(sp + 1, "blob ", 5) == 0);
}

/* The sizes of the agent's commits, trees and tags that the host does not
 * hold as they are (the same id, type and size cost what the host's
 * repository does: a pack after the agent's git gc holds them all), added
 * into *all.  The host is asked a slice of ids at a time, so what is held is
 * the agent's listing and one slice. */
#define HOST_ASK_IDS 65536

static int agents_own_structure(const char *raw_dir, const char *host_dir,
                                unsigned long long *all, struct jail_err *e)
{
	struct strbuf mine = {0};
	const char *l, *h;
	size_t len, hlen;
	int r = batch_check(raw_dir, ID_TYPE_SIZE, NULL, 0, true, &mine, e);
	*all = 0;
	for (const char *p = r == 0 ? mine.s : NULL; p && *p && r == 0;) {
		struct strbuf ids = {0}, host = {0};
		const char *from = p;
		for (size_t n = 0; n < HOST_ASK_IDS && next_line_of(&p, &l, &len);)
			if (is_structure(l, len)) {
				sb_append(&ids, l, strcspn(l, " "));
				sb_puts(&ids, "\n");
				n++;
			}
		if (ids.len)
			r = batch_check(host_dir, ID_TYPE_SIZE, ids.s, ids.len, false, &host, e);
		const char *hp = host.s;
		for (const char *q = from; r == 0 && q < p && next_line_of(&q, &l, &len);) {
			if (!is_structure(l, len))
				continue;
			if (!next_line_of(&hp, &h, &hlen))
				h = "", hlen = 0;
			if (hlen != len || memcmp(l, h, len) != 0)
				*all += strtoull(memrchr(l, ' ', len) + 1, NULL, 10);
		}
		sb_free(&ids);
		sb_free(&host);
	}
	sb_free(&mine);
	return r;
}

/* The agent's objects are read by their inflated size, known from their
 * headers (git reads the start of a loose object, a pack entry's header)
 * before any git process inflates one.  First every commit, tree and tag the
 * agent wrote (before the alternates name the host's objects: only the
 * agent's are listed), since listing what head reaches reads them: each
 * within the bound, and together too, but for those the host holds as they
 * are.  An index the agent wrote can map any number of ids to one big tree:
 * each is counted.  Then what the series packs, base..head, blobs included. */
#define STRUCTURE_IDS_MAX 4000000  /* asked of the host: ~230 MB listed */

static int check_inflated_structure(const char *raw_dir, const char *host_dir,
                                    struct jail_err *e)
{
	struct strbuf out = {0};
	unsigned long long all = 0, one = 0;
	size_t n = 0;
	int r = batch_check(raw_dir, TYPE_SIZE, NULL, 0, true, &out, e);
	if (r == 0)
		n = sizes_of(&out, "blob", &all, &one);
	sb_free(&out);
	/* most often the agent's few: no need to ask the host */
	if (r == 0 && one <= INFLATED_ONE_MAX && all > INFLATED_ALL_MAX && n <= STRUCTURE_IDS_MAX)
		r = agents_own_structure(raw_dir, host_dir, &all, e);
	if (r == 0)
		r = too_inflated("commits and trees", all, one, true, e);
	return r;
}

static int check_inflated_series(const char *raw_dir, const char *revs, struct jail_err *e)
{
	struct git raw = {.cwd = raw_dir, .git_dir = raw_dir, .cpu_seconds = RAW_GIT_CPU_SECONDS};
	const char *args[] = {"rev-list", "--objects", "--no-object-names", "--stdin", NULL};
	struct strbuf list = {0}, out = {0};
	unsigned long long all, one;
	int r = git_run(&raw, args, revs, strlen(revs), &list, NULL, e);
	if (r == 0 && list.len)
		r = batch_check(raw_dir, TYPE_SIZE, list.s, list.len, false, &out, e);
	if (r == 0) {
		sizes_of(&out, NULL, &all, &one);
		r = too_inflated("objects", all, one, true, e);
	}
	sb_free(&list);
	sb_free(&out);
	return r;
}

/* Whether a file of the series (in any commit's change, against any
 * parent: a tree of the agent's may name the id at any path, also one that
 * base reaches) is an object the view withheld. */
static int check_withheld(const char *raw_dir, const char *revs,
                          const struct withheld_ids *w, struct jail_err *e)
{
	if (!w || !w->ids || !w->ids->n)
		return 0;
	const struct strv *withheld = w->ids;
	struct git raw = {.cwd = raw_dir, .git_dir = raw_dir, .cpu_seconds = RAW_GIT_CPU_SECONDS};
	const char *args[] = {"log", "--stdin", "--raw", "--no-abbrev", "--no-renames", "-m",
	                      "-r", "--format=", "-z", NULL};
	struct strbuf out = {0};
	int r = git_run(&raw, args, revs, strlen(revs), &out, NULL, e);
	/* -z: ":MODE MODE OLD NEW STATUS" NUL path NUL, per file */
	for (size_t i = 0; r == 0 && out.s && i < out.len;) {
		char *rec = out.s + i;
		i += strlen(rec) + 1;
		if (rec[0] != ':')
			continue;
		char *save = NULL;
		strtok_r(rec, " ", &save);  /* :old mode */
		strtok_r(NULL, " ", &save); /* new mode */
		const char *old_id = strtok_r(NULL, " ", &save);
		const char *new_id = strtok_r(NULL, " ", &save);
		const char *path = out.s + i;
		i += strlen(path) + 1;
		bool old_shown = old_id && hideobj_has(withheld, old_id) &&
		                 !(w->hidden && w->hidden(w->ctx, path));
		if (old_shown || (new_id && hideobj_has(withheld, new_id))) {
			_cleanup_free_ char *esc = escape_name(path);
			r = jail_err_set(e, 0, "'%s' in a commit holds a hidden file's content, which "
			                       "the jail withheld from the agent", esc);
		}
	}
	sb_free(&out);
	return r;
}

int agentgit_import(const struct agentgit *g, const char *raw_dir, const char *dst_gitdir,
                    const char *head, const char *base, const struct withheld_ids *withheld,
                    struct jail_err *e)
{
	size_t hexlen = strlen(head);
	_cleanup_free_ char *objects = xasprintf("%s/objects", raw_dir);
	_cleanup_close_ int ofd = open(objects, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (ofd < 0)
		return jail_err_sys(e, "open '%s'", objects);
	_cleanup_free_ char *revs = xasprintf("%s\n^%s\n", head, base);
	/* a pack without its index is not indexed here: the agent's own git never
	 * read it (git finds packs by their .idx), and indexing would inflate all
	 * of it */
	if (copy_objects(g, ofd, hexlen, e) < 0)
		return -1;
	_cleanup_free_ char *host_dir = xasprintf("%.*s", (int)(strlen(g->host_objects) - strlen("/objects")),
	                                          g->host_objects);
	if (check_inflated_structure(raw_dir, host_dir, e) < 0 ||
	    write_alternates(raw_dir, g->host_objects, e) < 0 ||
	    check_inflated_series(raw_dir, revs, e) < 0 ||
	    check_withheld(raw_dir, revs, withheld, e) < 0)
		return jail_err_wrap(e, "the agent's commits were refused");
	struct strbuf pack = {0};
	struct git raw = {.cwd = raw_dir, .git_dir = raw_dir, .cpu_seconds = RAW_GIT_CPU_SECONDS};
	/* no delta search: index-pack inflates every object anyway */
	const char *pargs[] = {"pack-objects", "--revs", "--stdout", "-q", "--window=0",
	                       "--threads=1", NULL};
	int r = git_run(&raw, pargs, revs, strlen(revs), &pack, NULL, e);
	struct git dst = {.cwd = dst_gitdir, .git_dir = dst_gitdir};
	const char *iargs[] = {"index-pack", "--stdin", STRICT_FSCK, NULL};
	if (r == 0)
		r = git_run(&dst, iargs, pack.s, pack.len, NULL, NULL, e);
	sb_free(&pack);
	return r < 0 ? jail_err_wrap(e, "the agent's commits were refused") : 0;
}
