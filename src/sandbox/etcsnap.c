/* etcsnap.c — the jail's /etc pieces, copied or kept in a snapshot (etcsnap.h).
 *
 * A snapshot is a directory <state>/.etc/<key>.XXXXXX (0755, in the owner-only
 * <state>/.etc) and a manifest <state>/.etc/<key> naming it, written after the
 * directory is complete (replace_file: whole or absent).  <key> is the hash of
 * the files jail writes (they differ by user, home, shell and network), so
 * each combination has its own.  The manifest's lines:
 *   jail-etc-snapshot-1
 *   d DIRNAME             the snapshot's directory
 *   t SECONDS             when its making started
 *   s STAMP NAME          a host entry (relative to /etc, "." for /etc) and its stamp
 *   b NAME                a piece bound over the snapshot
 * A running jail holds its snapshot's directory with a shared flock (its
 * supervisor and its init, whose exit takes the jail's mounts down); making a
 * new snapshot removes the old ones no manifest names and no jail holds. */
#include "etcsnap.h"

#include "log.h"
#include "net.h"
#include "session.h"
#include "sync.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAGIC "jail-etc-snapshot-1"

/* The parts of /etc programs need.  Everything else of /etc (ssh host keys,
 * credentials of system services, the host's git and shell config) stays out.
 * "maven" is Debian's system Maven configuration: mvn does not start without
 * its m2.conf; the user's settings (~/.m2/settings.xml, with its server
 * passwords) are another matter and stay out.  "xml" holds the XML catalogs
 * that map a DTD's or a stylesheet's URL to its installed copy: without them
 * `xmllint --nonet` and `xsltproc --nonet` (a project's docs and its policy
 * file checks) fail offline. */
static const char *const etc_keep[] = {
	"alternatives", "bash.bashrc", "bash_completion", "bash_completion.d", "ca-certificates",
	"ca-certificates.conf", "crypto-policies", "debian_version", "environment", "fonts",
	"gai.conf", "gnutls", "host.conf", "inputrc", "issue", "java-*", "ld.so.cache",
	"ld.so.conf", "ld.so.conf.d", "locale.alias", "locale.conf", "locale.gen", "localtime",
	"lsb-release", "magic", "magic.mime", "manpath.config", "mime.types", "nanorc",
	"nsswitch.conf", "os-release", "perl", "pki", "profile", "profile.d", "protocols",
	"python3*", "rpc", "services", "shells", "ssl", "terminfo", "timezone", "vim",
	"vimrc", "wgetrc", "xattr.conf", "zsh", "zshrc", "zshenv", "npmrc", "nodejs", "maven",
	"xml",
};

/* A small regular file of /etc is copied (into the root's tmpfs, which turns
 * read-only, or into a snapshot): a bind mount per file cost 30 us each, most
 * of /etc's share of start-up.  Directories and large files are bound.  The
 * copies are made fd-relative (host /etc to the new /etc) with sendfile: no
 * path walks, no buffer, no read for the end of the file. */
#define ETC_COPY_MAX (256 * 1024)

struct etc_copy {
	int from, to;          /* the host's /etc, the new one */
	struct strv *binds;    /* what to bind instead */
	struct strbuf *stamps; /* manifest lines, or NULL */
};

/* A manifest line: the entry's stamp now (before it is read), and its name. */
static void note_stamp(const struct etc_copy *c, const char *name, const struct stat *st)
{
	if (!c->stamps)
		return;
	char stamp[FILE_STAMP_MAX] = "none";
	if (st)
		stat_stamp(st, stamp);
	/* a name with a newline would split its line: a line that never holds */
	if (strchr(name, '\n'))
		sb_printf(c->stamps, "x\n");
	else
		sb_printf(c->stamps, "s %s %s\n", stamp, name);
}

static int copy_etc_file(const struct etc_copy *c, const char *name, off_t size,
                         struct jail_err *e)
{
	_cleanup_close_ int in = openat(c->from, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		return errno == EACCES || errno == ENOENT ? 0 : jail_err_sys(e, "open /etc/%s", name);
	_cleanup_close_ int out =
		openat(c->to, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (out < 0)
		return jail_err_sys(e, "create /etc/%s in the jail", name);
	/* the size fstatat saw: a file that shrank since ends the copy early */
	while (size > 0) {
		ssize_t n = sendfile(out, in, NULL, (size_t)size);
		if (n < 0)
			return jail_err_sys(e, "copy /etc/%s", name);
		if (n == 0)
			break;
		size -= n;
	}
	return 0;
}

/* A small flat directory (config snippets: profile.d, ld.so.conf.d) is copied
 * too: its files and symlinks, when there are few and nothing else.  One
 * whose size is over a block is not read to learn it is large (alternatives:
 * 500 entries, 140 us of getdents a start); it is bound like any other, which
 * shows the same entries. */
#define ETC_DIR_COPY_MAX 24
#define ETC_DIR_SIZE_MAX 4096

/* The names in /etc/`name` when it is small and flat, read once for the
 * check and the copy; false when it is not (it is bound then). */
static bool small_flat_dir(int etc, const char *name, struct strv *names)
{
	DIR *d = opendir_at(etc, name);
	if (!d)
		return false;
	struct dirent *de;
	bool ok = true;
	while (ok && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ok = names->n < ETC_DIR_COPY_MAX && (de->d_type == DT_REG || de->d_type == DT_LNK);
		if (ok)
			strv_push(names, de->d_name);
	}
	closedir(d);
	return ok;
}

static int copy_etc_link(const struct etc_copy *c, const char *name, struct jail_err *e)
{
	char target[4096];
	ssize_t n = readlinkat(c->from, name, target, sizeof(target) - 1);
	if (n < 0)
		return 0;
	target[n] = '\0';
	if (symlinkat(target, c->to, name) < 0 && errno != EEXIST)
		return jail_err_sys(e, "copy link /etc/%s", name);
	return 0;
}

static int keep_etc_entry(const struct etc_copy *c, const char *name, struct jail_err *e);

static int copy_etc_dir(const struct etc_copy *c, const char *name, const struct strv *names,
                        struct jail_err *e)
{
	if (mkdirat(c->to, name, 0755) < 0 && errno != EEXIST)
		return jail_err_sys(e, "create /etc/%s", name);
	int r = 0;
	for (size_t i = 0; r == 0 && i < names->n; i++) {
		_cleanup_free_ char *rel = xasprintf("%s/%s", name, names->v[i]);
		r = keep_etc_entry(c, rel, e);
	}
	return r;
}

static int keep_etc_entry(const struct etc_copy *c, const char *name, struct jail_err *e)
{
	struct stat st;
	if (fstatat(c->from, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		note_stamp(c, name, NULL); /* one that appears changes what is kept */
		return 0;
	}
	note_stamp(c, name, &st);
	if (S_ISREG(st.st_mode) && st.st_size <= ETC_COPY_MAX)
		return copy_etc_file(c, name, st.st_size, e);
	if (S_ISLNK(st.st_mode))
		return copy_etc_link(c, name, e);
	if (S_ISDIR(st.st_mode) && !strchr(name, '/') && st.st_size <= ETC_DIR_SIZE_MAX) {
		struct strv names = {0};
		bool small = small_flat_dir(c->from, name, &names);
		int r = small ? copy_etc_dir(c, name, &names, e) : 0;
		strv_free(&names);
		if (small)
			return r;
	}
	strv_push(c->binds, name);
	return 0;
}

int etc_copy(int from, int to, struct strv *binds, struct strbuf *stamps, struct jail_err *e)
{
	const struct etc_copy c = {from, to, binds, stamps};
	struct stat st;
	if (fstat(from, &st) < 0)
		return jail_err_sys(e, "stat host /etc");
	note_stamp(&c, ".", &st); /* an entry added or removed changes the matches */
	/* plain names directly; one pass over /etc for the few patterns */
	bool globs = false;
	for (size_t i = 0; i < ARRAY_SIZE(etc_keep); i++) {
		if (strchr(etc_keep[i], '*'))
			globs = true;
		else if (keep_etc_entry(&c, etc_keep[i], e) < 0)
			return -1;
	}
	DIR *d = globs ? fdopendir(fcntl(from, F_DUPFD_CLOEXEC, 3)) : NULL;
	if (globs && !d)
		return jail_err_sys(e, "read host /etc");
	struct dirent *de;
	int r = 0;
	while (d && r == 0 && (de = readdir(d))) {
		for (size_t i = 0; i < ARRAY_SIZE(etc_keep) && r == 0; i++)
			if (strchr(etc_keep[i], '*') && fnmatch(etc_keep[i], de->d_name, 0) == 0)
				r = keep_etc_entry(&c, de->d_name, e);
	}
	if (d)
		closedir(d);
	return r;
}

void etc_generated(const struct jail_plan *p, struct strv *out)
{
	char *passwd, *group;
	if (p->uid == 0)
		passwd = xasprintf("root:x:0:0:root:%s:%s\n"
		                   "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
		                   p->home, p->shell);
	else
		passwd = xasprintf("root:x:0:0:root:/root:/usr/sbin/nologin\n"
		                   "%s:x:%u:%u:%s:%s:%s\n"
		                   "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
		                   p->user, p->uid, p->gid, p->user, p->home, p->shell);
	if (p->gid == 0)
		group = xstrdup("root:x:0:\nnogroup:x:65534:\n");
	else
		group = xasprintf("root:x:0:\n%s:x:%u:\nnogroup:x:65534:\n", p->user, p->gid);
	strv_push(out, "passwd");
	strv_push_take(out, passwd);
	strv_push(out, "group");
	strv_push_take(out, group);
	strv_push(out, "hostname");
	strv_push(out, "jail\n");
	/* localhost is 127.0.0.1 only: a server told to listen on "localhost"
	 * (Vite's default, python -m http.server --bind localhost) would take the
	 * first address, ::1 with Debian's precedence, where --publish (host
	 * 127.0.0.1 to the jail's 127.0.0.1) never reaches it */
	strv_push(out, "hosts");
	strv_push(out, "127.0.0.1\tlocalhost jail\n::1\tip6-localhost ip6-loopback\n");
	strv_push(out, "resolv.conf");
	strv_push(out, net_resolv_conf(p->cfg));
}

/* <state>/.etc and the key of this plan's snapshot. */
static char *snap_root(void)
{
	_cleanup_free_ char *root = state_root();
	return xasprintf("%s/.etc", root);
}

static char *snap_key(const struct jail_plan *p)
{
	struct strv gen = {0};
	struct strbuf b = {0};
	etc_generated(p, &gen);
	sb_printf(&b, "%s", MAGIC);
	for (size_t i = 0; i < gen.n; i++)
		sb_append(&b, gen.v[i], strlen(gen.v[i]) + 1);
	for (size_t i = 0; i < ARRAY_SIZE(etc_keep); i++)
		sb_append(&b, etc_keep[i], strlen(etc_keep[i]) + 1);
	char hex[65];
	sha256_hex(b.s, b.len, hex);
	sb_free(&b);
	strv_free(&gen);
	return xasprintf("%.32s", hex);
}

/* The directory of owner-only snapshots, opened; -1 unless it is a real
 * directory of ours that no one else may write. */
static int open_root(const char *root)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_uid != getuid() || (st.st_mode & 077))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Whether a stamp lies within two seconds of `made` (or after it). */
static bool racy(const char *stamp, long long made)
{
	const char *ctime = strchr(stamp, ':');
	return atoll(stamp) >= made - 2 || (ctime && atoll(ctime + 1) >= made - 2);
}

/* A name below /etc: relative, no empty, "." or ".." component. */
static bool below(const char *name)
{
	if (!name[0] || name[0] == '/')
		return false;
	for (const char *c = name; *c;) {
		size_t n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		c += n + (c[n] == '/');
	}
	return true;
}

/* Check one manifest line against the host's /etc; false when it fails. */
static bool line_holds(int etc, char *line, long long made, const char **dir, struct strv *binds)
{
	if (line[0] == 'd' && line[1] == ' ') {
		*dir = line + 2;
		return below(*dir) && !strchr(*dir, '/');
	}
	if (line[0] == 'b' && line[1] == ' ') {
		strv_push(binds, line + 2);
		return below(line + 2);
	}
	if (line[0] != 's' || line[1] != ' ')
		return false;
	char *name = strchr(line + 2, ' ');
	if (!name)
		return false;
	*name++ = '\0';
	if (strcmp(name, ".") != 0 && !below(name))
		return false;
	char now[FILE_STAMP_MAX];
	file_stamp(etc, name, now);
	return strcmp(now, line + 2) == 0 && (!strcmp(now, "none") || !racy(now, made));
}

/* The snapshot's directory, held: a shared flock for as long as the fd is
 * open (the supervisor's and init's copies), which a newer snapshot's making
 * respects before it removes an old one.  -1 when it is gone or not ours. */
static int hold(int rfd, const char *dir)
{
	int fd = openat(rfd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd >= 0 && (flock(fd, LOCK_SH | LOCK_NB) < 0 || fstat(fd, &st) < 0 ||
	                st.st_uid != getuid() || st.st_nlink == 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Whether `path` may lead strictly below /etc, spelled as given: its first
 * component (past empty and "." ones) is "etc" and another follows, or a ".."
 * makes it anyone's guess. */
static bool below_etc(const char *path)
{
	int depth = -1; /* -1 before the first component; then 0 outside /etc, 1 in it */
	for (const char *c = path; *c;) {
		size_t n = strcspn(c, "/");
		if (n == 2 && c[0] == '.' && c[1] == '.')
			return true;
		if (n > 0 && !(n == 1 && c[0] == '.')) {
			if (depth == 1)
				return true;
			if (depth < 0)
				depth = n == 3 && strncmp(c, "etc", 3) == 0;
			else
				return false;
		}
		c += n + (c[n] == '/');
	}
	return false;
}

/* A plan that mounts something of its own below /etc (--ro /etc/ssh, a
 * tmpfs there, a home there) needs its mount point made in /etc, which the
 * snapshot cannot give: it is read-only before anything is bound over it, and
 * shared by every run.  /etc is copied for such a plan. */
static bool mounts_below_etc(const struct jail_plan *p)
{
	const struct strv *lists[] = {&p->cfg->ro_binds, &p->cfg->rw_binds, &p->cfg->cow_binds,
	                              &p->cfg->tmpfs};
	for (size_t l = 0; l < ARRAY_SIZE(lists); l++)
		for (size_t i = 0; i < lists[l]->n; i++)
			if (below_etc(lists[l]->v[i]))
				return true;
	const char *own[] = {p->home, p->home_real, p->state_root, p->state_root_named,
	                     p->config_root, p->config_root_named, p->gitdir_lower};
	for (size_t i = 0; i < ARRAY_SIZE(own); i++)
		if (own[i] && below_etc(own[i]))
			return true;
	return false;
}

char *etcsnap_find(const struct jail_plan *p, struct strv *binds, int *held)
{
	*held = -1;
	if (p->broker || mounts_below_etc(p))
		return NULL;
	_cleanup_free_ char *root = snap_root(), *key = snap_key(p), *text = NULL;
	_cleanup_close_ int rfd = open_root(root);
	_cleanup_close_ int etc = open("/etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t len = 0;
	struct jail_err ignored;
	if (rfd < 0 || etc < 0 || read_file_at(rfd, key, 1 << 20, &text, &len, &ignored) < 0)
		return NULL;
	char *save = NULL, *line = strtok_r(text, "\n", &save);
	if (!line || strcmp(line, MAGIC) != 0)
		return NULL;
	char *t = strtok_r(NULL, "\n", &save);
	if (!t || strncmp(t, "t ", 2) != 0)
		return NULL;
	long long made = atoll(t + 2);
	const char *dir = NULL;
	bool ok = true;
	while (ok && (line = strtok_r(NULL, "\n", &save)))
		ok = line_holds(etc, line, made, &dir, binds);
	if (ok && dir && (*held = hold(rfd, dir)) >= 0)
		return xasprintf("%s/%s", root, dir);
	strv_free(binds);
	return NULL;
}

/* The mount point of a piece bound over the snapshot, as init's copy would
 * make it: a directory, or an empty file. */
static int mount_point(int from, int to, const char *name, struct jail_err *e)
{
	if (strchr(name, '\n'))
		return jail_err_set(e, 0, "a name in /etc holds a newline");
	struct stat st;
	if (fstatat(from, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
		if (mkdirat(to, name, 0755) < 0)
			return jail_err_sys(e, "create /etc/%s in the snapshot", name);
		return 0;
	}
	int fd = openat(to, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return jail_err_sys(e, "create /etc/%s in the snapshot", name);
	close(fd);
	return 0;
}

/* Fill the new snapshot directory `to`; its manifest lines go to *m. */
static int fill(const struct jail_plan *p, int to, struct strbuf *m, struct jail_err *e)
{
	_cleanup_close_ int from = open("/etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (from < 0)
		return jail_err_sys(e, "open host /etc");
	struct strv binds = {0}, gen = {0};
	struct strbuf stamps = {0};
	int r = etc_copy(from, to, &binds, &stamps, e);
	for (size_t i = 0; r == 0 && i < binds.n; i++) {
		r = mount_point(from, to, binds.v[i], e);
		sb_printf(&stamps, "b %s\n", binds.v[i]);
	}
	etc_generated(p, &gen);
	for (size_t i = 0; r == 0 && i + 1 < gen.n; i += 2)
		r = write_file_at(to, gen.v[i], gen.v[i + 1], strlen(gen.v[i + 1]), 0644, e);
	if (r == 0 && stamps.len)
		sb_append(m, stamps.s, stamps.len);
	sb_free(&stamps);
	strv_free(&binds);
	strv_free(&gen);
	return r;
}

/* The snapshots the manifests in `rfd` name (other keys' too: a run with
 * another network or shell keeps its own). */
static void named(int rfd, struct strv *out)
{
	DIR *d = opendir_at(rfd, ".");
	struct dirent *de;
	while (d && (de = readdir(d))) {
		_cleanup_free_ char *text = NULL;
		struct jail_err ignored;
		if (de->d_name[0] == '.' || strchr(de->d_name, '.') ||
		    read_file_at(rfd, de->d_name, 1 << 20, &text, NULL, &ignored) < 0)
			continue;
		char *dir = strstr(text, "\nd ");
		if (dir) {
			dir += 3;
			dir[strcspn(dir, "\n")] = '\0';
			strv_push(out, dir);
		}
	}
	if (d)
		closedir(d);
}

/* Remove the snapshots no manifest names that no jail holds (hold()) and
 * that are a minute old: a start reads a manifest and holds its snapshot
 * within microseconds, so one that named an older snapshot long ago is gone. */
static void collect(int rfd)
{
	struct strv keep = {0};
	named(rfd, &keep);
	DIR *d = opendir_at(rfd, "."); /* its own position: not a dup of rfd's */
	struct dirent *de;
	time_t now = time(NULL);
	while (d && (de = readdir(d))) {
		struct stat st;
		if (de->d_name[0] == '.' || !strchr(de->d_name, '.') || strv_contains(&keep, de->d_name) ||
		    fstatat(rfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
		    st.st_mtime > now - 60)
			continue;
		_cleanup_close_ int fd =
			openat(rfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct jail_err ignored;
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
			(void)!rm_rf_at(rfd, de->d_name, &ignored);
	}
	if (d)
		closedir(d);
	strv_free(&keep);
}

void etcsnap_make(const struct jail_plan *p)
{
	if (p->broker)
		return;
	_cleanup_free_ char *root = snap_root(), *key = snap_key(p);
	struct jail_err e = {0};
	if (mkdir_p(root, 0700, &e) < 0)
		return;
	_cleanup_close_ int rfd = open_root(root);
	if (rfd < 0)
		return;
	_cleanup_free_ char *dir = xasprintf("%s/%s.XXXXXX", root, key);
	if (!mkdtemp(dir))
		return;
	const char *base = strrchr(dir, '/') + 1;
	long long made = (long long)time(NULL);
	struct strbuf m = {0};
	sb_printf(&m, "%s\nt %lld\nd %s\n", MAGIC, made, base);
	_cleanup_close_ int to = openat(rfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int r = to < 0 ? -1 : fill(p, to, &m, &e);
	/* a stamp too recent to trust: the next run tries again */
	for (char *s = strstr(m.s, "\ns "); r == 0 && s; s = strstr(s + 1, "\ns "))
		if (strncmp(s + 3, "none", 4) != 0 && racy(s + 3, made))
			r = -1;
	if (r == 0 && fchmod(to, 0755) == 0) {
		_cleanup_free_ char *manifest = xasprintf("%s/%s", root, key);
		/* one maker at a time: two runs ending together share the manifest's
		 * tmp name, and one could rename the other's half-written file into
		 * place (a manifest missing its last stamps and binds).  The other
		 * one's snapshot serves as well, and a run's end never waits. */
		if (flock(rfd, LOCK_EX | LOCK_NB) < 0)
			r = errno == EWOULDBLOCK ? -1 : jail_err_sys(&e, "lock %s", root);
		if (r == 0)
			r = replace_file(manifest, m.s, m.len, 0600, &e);
		if (r == 0)
			collect(rfd);
	} else {
		r = -1;
	}
	if (r < 0) {
		if (e.msg[0])
			log_debug("etc snapshot: %s", e.msg);
		struct jail_err ignored;
		(void)!rm_rf_at(rfd, base, &ignored);
	}
	sb_free(&m);
}

/* SYNC_ETC's payload: the snapshot's path and the names bound over it, each
 * ending in a NUL; empty when there is none. */
int etcsnap_offer(struct jail_plan *p, int sock, struct jail_err *e)
{
	p->etc_snapshot = etcsnap_find(p, &p->etc_binds, &p->etc_snapshot_fd);
	struct strbuf b = {0};
	if (p->etc_snapshot) {
		sb_append(&b, p->etc_snapshot, strlen(p->etc_snapshot) + 1);
		for (size_t i = 0; i < p->etc_binds.n; i++)
			sb_append(&b, p->etc_binds.v[i], strlen(p->etc_binds.v[i]) + 1);
	}
	/* too long to send (a path near PATH_MAX): init copies, as without one */
	bool fits = b.len <= SYNC_PAYLOAD_MAX;
	int r = sync_send(sock, SYNC_ETC, fits ? b.s : NULL, fits ? b.len : 0,
	                  fits ? p->etc_snapshot_fd : -1, e);
	sb_free(&b);
	if (!fits) {
		free(p->etc_snapshot);
		p->etc_snapshot = NULL;
		strv_free(&p->etc_binds);
	}
	return r;
}

int etcsnap_take(int sock, struct etc_offer *snap, struct jail_err *e)
{
	static char buf[SYNC_PAYLOAD_MAX];
	size_t len = sizeof(buf);
	memset(snap, 0, sizeof(*snap));
	if (sync_recv(sock, SYNC_ETC, buf, &len, &snap->held, e) < 0)
		return -1;
	if (len == 0) {
		if (snap->held >= 0)
			close(snap->held);
		snap->held = -1;
		return 0;
	}
	if (buf[len - 1] != '\0' || snap->held < 0) {
		etcsnap_offer_free(snap);
		return jail_err_set(e, EPROTO, "the /etc snapshot's name arrived damaged");
	}
	snap->snapshot = xstrdup(buf);
	for (size_t at = strlen(buf) + 1; at < len; at += strlen(buf + at) + 1)
		strv_push(&snap->binds, buf + at);
	return 0;
}

void etcsnap_offer_free(struct etc_offer *snap)
{
	free(snap->snapshot);
	strv_free(&snap->binds);
	if (snap->held >= 0)
		close(snap->held);
	memset(snap, 0, sizeof(*snap));
	snap->held = -1;
}
