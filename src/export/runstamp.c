/* runstamp.c — the upper dir's metadata stamp (see runstamp.h). */
#include "runstamp.h"

#include "git.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Append the escaped path: most names need no escaping, and no allocation. */
static void put_path(struct strbuf *b, const char *rel, const char *name)
{
	for (const char *parts[] = {rel, name}, **p = parts; p < parts + 2; p++) {
		bool plain = true;
		for (const unsigned char *c = (const unsigned char *)*p; *c && plain; c++)
			plain = *c >= 0x20 && *c < 0x7f && *c != '\\';
		if (plain) {
			sb_puts(b, *p);
		} else {
			_cleanup_free_ char *esc = escape_name(*p);
			sb_puts(b, esc);
		}
	}
}

/* Past this many entries the stamp says nothing the export could use (it reads
 * at most 100,000 changed paths): the walk stops, and its memory with it (about
 * 120 bytes an entry; an agent can leave millions). */
#define STAMP_MAX_ENTRIES 400000

/* One line per entry into the arena, its start offset into offs.  *partial:
 * a directory was not read (no permission, too deep), so what changed in it
 * is not seen. */
static void stamp_dir(int dfd, const char *rel, struct strbuf *arena, struct strbuf *offs,
                      int depth, bool *partial)
{
	DIR *d = depth > 256 ? NULL : opendir_at(dfd, ".");
	if (!d) {
		*partial = true;
		return;
	}
	struct dirent *de;
	while (offs->len / sizeof(size_t) < STAMP_MAX_ENTRIES && (de = readdir(d))) {
		struct stat st;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		size_t off = arena->len;
		sb_append(offs, (const char *)&off, sizeof(off));
		put_path(arena, rel, de->d_name);
		/* a directory's times follow its entries, which have lines of their own */
		bool dir = S_ISDIR(st.st_mode);
		if (dir)
			sb_printf(arena, "\t%o %llu", st.st_mode, (unsigned long long)st.st_ino);
		else
			sb_printf(arena, "\t%o %lld %lld.%09ld %lld.%09ld %llu", st.st_mode,
			          (long long)st.st_size, (long long)st.st_mtim.tv_sec,
			          st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec,
			          (unsigned long long)st.st_ino);
		sb_append(arena, "", 1);
		if (!dir)
			continue;
		_cleanup_close_ int sub = openat(dirfd(d), de->d_name,
		                                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		_cleanup_free_ char *srel = xasprintf("%s%s/", rel, de->d_name);
		if (sub >= 0)
			stamp_dir(sub, srel, arena, offs, depth + 1, partial);
		else
			*partial = true;
	}
	closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *settings_line(const struct jail_config *cfg, const char *host)
{
	struct strbuf b = {0};
	sb_printf(&b, "#settings host=%s binary=%d max=%lld", host ? host : "", cfg->export_binary,
	          cfg->export_max_size);
	for (size_t i = 0; i < cfg->export_deny.n; i++)
		sb_printf(&b, " deny=%s", cfg->export_deny.v[i]);
	for (size_t i = 0; i < cfg->export_allow.n; i++)
		sb_printf(&b, " allow=%s", cfg->export_allow.v[i]);
	char *s = sb_steal(&b);
	for (char *p = s; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return s;
}

/* Paths of a and b (both sorted) whose lines differ, into out. */
static void diff_paths(char **a, size_t na, char **b, size_t nb, struct strv *out)
{
	size_t i = 0, j = 0;
	while (i < na || j < nb) {
		const char *ta = i < na ? strchr(a[i], '\t') : NULL;
		const char *tb = j < nb ? strchr(b[j], '\t') : NULL;
		size_t la = ta ? (size_t)(ta - a[i]) : 0, lb = tb ? (size_t)(tb - b[j]) : 0;
		int c = !ta ? 1 : !tb ? -1 : strncmp(a[i], b[j], la < lb ? la : lb);
		if (c == 0 && la != lb)
			c = la < lb ? -1 : 1;
		if (c < 0)
			strv_push_take(out, strndup(a[i++], la));
		else if (c > 0)
			strv_push_take(out, strndup(b[j++], lb));
		else if (strcmp(ta, tb) != 0)
			strv_push_take(out, strndup(a[i++], la)), j++;
		else
			i++, j++;
	}
}

/* The earlier stamp: its lines split in place. */
static char **read_previous(const char *session_dir, char **data, size_t *n, char **settings)
{
	_cleanup_free_ char *path = xasprintf("%s/export.stamp", session_dir);
	struct jail_err e;
	size_t len = 0;
	*n = 0;
	*settings = NULL;
	if (read_file_at(AT_FDCWD, path, (size_t)1 << 30, data, &len, &e) < 0)
		return NULL;
	size_t cap = 1;
	for (size_t i = 0; i < len; i++)
		cap += (*data)[i] == '\n';
	char **v = xcalloc(cap, sizeof(char *));
	for (char *l = *data, *nl; l < *data + len; l = nl + 1) {
		nl = memchr(l, '\n', (size_t)(*data + len - l));
		if (!nl)
			break;
		*nl = '\0';
		if (!*settings && l[0] == '#')
			*settings = l;
		else
			v[(*n)++] = l;
	}
	return v;
}

int runstamp_take(struct runstamp *r, const char *session_dir, const struct jail_config *cfg,
                  const char *host, struct jail_err *e)
{
	memset(r, 0, sizeof(*r));
	_cleanup_free_ char *upper = xasprintf("%s/upper", session_dir);
	_cleanup_close_ int fd = open(upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return jail_err_sys(e, "open '%s'", upper);
	struct strbuf offs = {0};
	bool partial = false;
	stamp_dir(fd, "", &r->arena, &offs, 0, &partial);
	r->n = offs.len / sizeof(size_t);
	r->truncated = r->n >= STAMP_MAX_ENTRIES;
	r->lines = xcalloc(r->n + 1, sizeof(char *));
	for (size_t i = 0; i < r->n; i++) {
		size_t off;
		memcpy(&off, offs.s + i * sizeof(off), sizeof(off));
		r->lines[i] = r->arena.s + off;
	}
	sb_free(&offs);
	qsort(r->lines, r->n, sizeof(char *), cmp_str);
	r->settings = settings_line(cfg, host);
	_cleanup_free_ char *data = NULL;
	char *prev_settings = NULL;
	size_t np = 0;
	_cleanup_free_ char **prev = read_previous(session_dir, &data, &np, &prev_settings);
	r->had_previous = prev_settings != NULL;
	if (r->had_previous && !r->truncated) {
		diff_paths(r->lines, r->n, prev, np, &r->touched);
		/* a directory the walk could not read may hold this run's change:
		 * exported and synced (session_sync) every time, as a change */
		r->unchanged = r->touched.n == 0 && !partial &&
		               strcmp(prev_settings, r->settings) == 0;
	}
	return 0;
}

static int unlink_stamp(const char *session_dir, struct jail_err *e)
{
	_cleanup_free_ char *path = xasprintf("%s/export.stamp", session_dir);
	if (unlink(path) < 0 && errno != ENOENT)
		return jail_err_sys(e, "remove '%s'", path);
	return 0;
}

int runstamp_save(const struct runstamp *r, const char *session_dir, struct jail_err *e)
{
	if (r->truncated)  /* a partial stamp would make the next run's look unchanged */
		return unlink_stamp(session_dir, e);
	struct strbuf b = {0};
	sb_printf(&b, "%s\n", r->settings);
	for (size_t i = 0; i < r->n; i++) {
		sb_puts(&b, r->lines[i]);
		sb_append(&b, "\n", 1);
	}
	_cleanup_free_ char *path = xasprintf("%s/export.stamp", session_dir);
	int ret = replace_file(path, b.s, b.len, 0600, e);
	sb_free(&b);
	return ret;
}

void runstamp_free(struct runstamp *r)
{
	sb_free(&r->arena);
	free(r->lines);
	strv_free(&r->touched);
	free(r->settings);
	memset(r, 0, sizeof(*r));
}

bool runstamp_touched(const struct runstamp *r, const char *escaped_path)
{
	return r->touched.n && bsearch(&escaped_path, r->touched.v, r->touched.n,
	                               sizeof(char *), cmp_str) != NULL;
}

static char *head_by_git(const char *project)
{
	struct git g = {.cwd = project};
	struct strbuf head = {0};
	const char *args[] = {"rev-parse", "-q", "--verify", "HEAD", NULL};
	int status = 1;
	struct jail_err e;
	if (git_run(&g, args, NULL, 0, &head, &status, &e) < 0 || status != 0 || !head.s) {
		sb_free(&head);
		return NULL;
	}
	head.s[strcspn(head.s, "\n")] = '\0';
	return sb_steal(&head);
}

char *runstamp_host(const char *project)
{
	_cleanup_free_ char *gitdir = xasprintf("%s/.git", project);
	_cleanup_close_ int gfd = open(gitdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (gfd < 0)
		return head_by_git(project);
	/* HEAD names the branch; a commit rewrites its ref (or packed-refs) and
	 * the index */
	_cleanup_free_ char *head = NULL;
	struct jail_err e;
	if (read_file_at(gfd, "HEAD", 4096, &head, NULL, &e) < 0)
		return head_by_git(project);
	head[strcspn(head, "\n")] = '\0';
	char ref[FILE_STAMP_MAX] = "-", packed[FILE_STAMP_MAX], index[FILE_STAMP_MAX];
	if (strncmp(head, "ref: refs/", 10) == 0 && !strstr(head, ".."))
		file_stamp(gfd, head + 5, ref);
	file_stamp(gfd, "packed-refs", packed);
	file_stamp(gfd, "index", index);
	_cleanup_free_ char *esc = escape_name(head);
	return xasprintf("%s;%s;%s;%s", esc, ref, packed, index);
}
