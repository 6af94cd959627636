/* session.c — session state dirs, validation of the project dir, the lock. */
#include "session.h"

#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <poll.h>
#include <pwd.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>

#define OVERLAYFS_MAGIC 0x794c7630
#define NFS_MAGIC 0x6969
#define FUSE_MAGIC 0x65735546
#define SMB2_MAGIC 0xfe534d42
#define CIFS_MAGIC 0xff534d42

char *state_root(void)
{
	const char *x = getenv("XDG_STATE_HOME");
	if (x && x[0] == '/')
		return xasprintf("%s/jail", x);
	return xasprintf("%s/.local/state/jail", home_dir());
}

/* The state root with the symlinks of its existing part resolved, as the
 * host resolves them, the part not made yet appended as spelled.  Init reads
 * the session's layers through the old root, where an absolute link on the
 * way (a home behind /home -> /usr/home) would name nothing. */
char *state_root_resolved(void)
{
	_cleanup_free_ char *root = state_root();
	return realpath_existing(root);
}

int session_name_check(const char *name, struct jail_err *e)
{
	size_t n = strlen(name);
	if (n == 0 || n > 64 || name[0] == '.') {
		_cleanup_free_ char *esc = escape_name(name);
		return jail_err_set(e, 0,
		                    "bad session name '%s': use 1-64 letters, digits, '.', '_' "
		                    "or '-', not starting with '.'", esc);
	}
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-')) {
			_cleanup_free_ char *esc = escape_name(name);
			return jail_err_set(e, 0,
			                    "bad session name '%s': use only letters, digits, '.', "
			                    "'_' or '-'", esc);
		}
	}
	return 0;
}

/* Directories a project may not be: the jail would hide or shadow the system. */
static bool is_system_dir(const char *p)
{
	static const char *const sys[] = {"/",     "/bin",  "/boot", "/dev",  "/etc", "/lib",
	                                  "/lib32", "/lib64", "/libx32", "/proc", "/run",
	                                  "/sbin", "/sys",  "/usr",  "/var",  "/tmp", "/home",
	                                  "/root", "/opt", "/srv", "/mnt", "/media"};
	for (size_t i = 0; i < ARRAY_SIZE(sys); i++)
		if (strcmp(p, sys[i]) == 0)
			return true;
	return strncmp(p, "/usr/", 5) == 0 || strncmp(p, "/proc/", 6) == 0 ||
	       strncmp(p, "/sys/", 5) == 0 || strncmp(p, "/dev/", 5) == 0 ||
	       strncmp(p, "/etc/", 5) == 0;
}

/* (The paths are the user's, but may hold any bytes: printed escaped.) */
static int project_check(const char *given, const char *real, struct jail_err *e)
{
	_cleanup_free_ char *gesc = escape_name(given), *resc = escape_name(real);
	/* no -D (or -D .): the user typed no path, so name the directory they are in */
	bool cwd = strcmp(given, ".") == 0;
	const char *fix = cwd ? "cd into the project, or name it with -D DIR"
	                      : "name the project's own directory";
	if (is_system_dir(real) && cwd)
		return jail_err_set(e, 0, "the current directory '%s' is a system directory, not a "
		                    "project; %s", resc, fix);
	if (is_system_dir(real))
		return jail_err_set(e, 0,
		                    "-D %s: '%s' is a system directory, not a project; "
		                    "name the project's own directory", gesc, resc);
	/* $HOME, and the passwd entry's home when $HOME names another place
	 * (HOME=/tmp/x leaves ~/.ssh where it was) */
	struct passwd *pw = getpwuid(getuid());
	const char *homes[] = {home_dir(), pw ? pw->pw_dir : NULL};
	for (size_t i = 0; i < ARRAY_SIZE(homes); i++) {
		char home_real[PATH_MAX];
		if (homes[i] && realpath(homes[i], home_real) && strcmp(home_real, real) == 0)
			return cwd ? jail_err_set(e, 0, "the current directory '%s' is your home "
			                          "directory, not a project; %s", resc, fix)
			           : jail_err_set(e, 0, "-D %s: that is your home directory, not a "
			                          "project; %s", gesc, fix);
	}
	/* resolved as far as it exists: a state dir not made yet, reached through
	 * a link into the project (XDG_STATE_HOME=~/link/st), is made there */
	_cleanup_free_ char *r = state_root_resolved();
	if (path_at_or_below(r, real) || path_at_or_below(real, r)) {
		_cleanup_free_ char *sesc = escape_name(r);
		return jail_err_set(e, 0,
		                    "-D %s: it overlaps jail's state directory '%s'; "
		                    "name a project directory outside it", gesc, sesc);
	}
	return 0;
}

static char *project_state_name(const char *real)
{
	const char *base = strrchr(real, '/');
	base = base && base[1] ? base + 1 : "root";
	char hex[65];
	sha256_hex(real, strlen(real), hex);
	struct strbuf b = {0};
	/* keep the name readable but safe as one path component */
	for (const char *p = base; *p && b.len < 40; p++) {
		char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		          (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
		sb_append(&b, ok ? &c : "_", 1);
	}
	if (b.len == 0 || b.s[0] == '.')
		sb_puts(&b, "_");
	sb_printf(&b, "-%.8s", hex);
	return sb_steal(&b);
}

int session_resolve(struct session *s, const char *project, const char *name,
                    struct jail_err *e)
{
	memset(s, 0, sizeof(*s));
	s->lockfd = -1;
	if (session_name_check(name, e) < 0)
		return -1;
	struct stat st;
	if (!project[0])
		return jail_err_set(e, 0, "-D '': an empty path; name the project's directory");
	if (stat(project, &st) < 0) {
		_cleanup_free_ char *esc = escape_name(project);
		if (errno == ENOENT)
			return jail_err_set(e, 0, "-D %s: no such directory; create it or name "
			                          "an existing project", esc);
		return jail_err_sys(e, "-D %s", esc);
	}
	if (!S_ISDIR(st.st_mode)) {
		_cleanup_free_ char *esc = escape_name(project);
		return jail_err_set(e, 0, "-D %s: not a directory; name the project's directory",
		                    esc);
	}
	char real[PATH_MAX];
	if (!realpath(project, real)) {
		_cleanup_free_ char *esc = escape_name(project);
		return jail_err_sys(e, "-D %s: resolve path", esc);
	}
	if (project_check(project, real, e) < 0)
		return -1;
	_cleanup_free_ char *root = state_root_resolved();
	_cleanup_free_ char *pname = project_state_name(real);
	s->project = xstrdup(real);
	s->name = xstrdup(name);
	s->project_root = xasprintf("%s/%s", root, pname);
	s->dir = xasprintf("%s/%s", s->project_root, name);
	s->upper = xasprintf("%s/upper", s->dir);
	s->work = xasprintf("%s/work", s->dir);
	s->home = xasprintf("%s/home", s->dir);
	s->patches = xasprintf("%s/patches", s->dir);
	return 0;
}

static int check_upper_fs(const char *dir, struct jail_err *e)
{
	struct statfs sf;
	if (statfs(dir, &sf) < 0)
		return jail_err_sys(e, "statfs '%s'", dir);
	const char *what = NULL;
	switch ((unsigned long)sf.f_type) {
	case OVERLAYFS_MAGIC: what = "an overlay filesystem"; break;
	case NFS_MAGIC: what = "NFS"; break;
	case FUSE_MAGIC: what = "a FUSE filesystem"; break;
	case SMB2_MAGIC:
	case CIFS_MAGIC: what = "SMB/CIFS"; break;
	default: break;
	}
	if (what)
		return jail_err_set(e, 0,
		                    "state directory '%s' is on %s, which cannot hold an overlay "
		                    "upper dir; set XDG_STATE_HOME to a directory on a local "
		                    "filesystem (ext4, xfs, btrfs, tmpfs)", dir, what);
	return 0;
}

/* The session's directory, made as needed.  Failing here is nearly always
 * a home jail may not write ($HOME read-only, or another user's): say where
 * else the state can go. */
static int session_mkdir(const struct session *s, struct jail_err *e)
{
	if (mkdir_p(s->dir, 0700, e) == 0)
		return 0;
	size_t n = strlen(e->msg);
	snprintf(e->msg + n, sizeof(e->msg) - n,
	         "; sessions live in ${XDG_STATE_HOME:-~/.local/state}/jail: set XDG_STATE_HOME "
	         "to a directory you can write");
	return -1;
}

int session_create(struct session *s, struct jail_err *e)
{
	if (session_mkdir(s, e) < 0)
		return -1;
	if (check_upper_fs(s->dir, e) < 0)
		return -1;
	const char *dirs[] = {s->upper, s->work};
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (mkdir(dirs[i], 0700) < 0 && errno != EEXIST)
			return jail_err_sys(e, "create '%s'", dirs[i]);
	/* the overlay's root takes the upper dir's mode: make it the project's */
	struct stat st;
	if (stat(s->project, &st) < 0 || chmod(s->upper, st.st_mode & 07777) < 0)
		return jail_err_sys(e, "set the mode of '%s'", s->upper);
	_cleanup_free_ char *created = session_meta_get(s, "created");
	if (!created) {
		char now[32];
		snprintf(now, sizeof(now), "%lld", (long long)time(NULL));
		if (session_meta_set(s, e, "project", s->project, "created", now, NULL) < 0)
			return -1;
	}
	return 0;
}

/* The lock file: the holder's pid on the first line, and on the second the
 * pid of its project view's server (hidefs.h), which keeps the lock from the
 * jail's end until the jail's mounts are gone, milliseconds later. */
#define LOCK_LINE 11

static pid_t lock_pid(const char *text, size_t line)
{
	if (strlen(text) < (line + 1) * LOCK_LINE - 1)
		return 0;
	char *end;
	long pid = strtol(text + line * LOCK_LINE, &end, 10);
	return pid > 0 && (*end == ' ' || *end == '\n' || !*end) ? (pid_t)pid : 0;
}

static bool alive(pid_t pid) { return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH); }

/* Sleep until the server ends, or 1 ms.  Its pidfd (Linux 5.3) wakes us as
 * it exits, when its copy of the lock is gone (a run right after another one
 * waits for that often: it used to learn of it a 1 ms tick late); without
 * one, or once it has fired, the tick. */
static void wait_for_server(int *pidfd)
{
	if (*pidfd >= 0) {
		struct pollfd p = {*pidfd, POLLIN, 0};
		if (poll(&p, 1, 5000) != 0) {
			close(*pidfd);
			*pidfd = -1;
		}
		return;
	}
	struct timespec ms = {0, 1000 * 1000};
	nanosleep(&ms, NULL);
}

/* Neither the jail nor the server the lock names is alive: the holder is
 * one that writes no line, `jail ps`, `status` or `exec` looking whether the
 * session runs (a shared lock for microseconds), or a run that has not
 * written its line yet.  A run waits that out, two seconds at most: a look
 * is no reason to call the session in use. */
static int wait_for_look(int fd)
{
	for (int i = 0; i < 2000; i++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK)
			return -1;
		struct timespec ms = {0, 1000 * 1000};
		nanosleep(&ms, NULL);
	}
	errno = EWOULDBLOCK;
	return -1;
}

/* The jail that held the lock is gone but its view's server still holds it:
 * that jail's namespaces are coming down.  Wait for that, a few seconds at
 * most; any other holder is a running jail (or command) of the session. */
static int wait_for_teardown(int fd, const char *text)
{
	pid_t jail = lock_pid(text, 0), server = lock_pid(text, 1);
	if (jail && alive(jail)) {
		/* (one that ended just now has let go of it) */
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		errno = EWOULDBLOCK;
		return -1;
	}
	if (!jail || !alive(server))
		return wait_for_look(fd);
#ifdef SYS_pidfd_open
	_cleanup_close_ int pidfd = (int)syscall(SYS_pidfd_open, server, 0);
#else
	_cleanup_close_ int pidfd = -1;
#endif
	for (int i = 0; i < 5000 && alive(server); i++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK)
			return -1;
		wait_for_server(&pidfd);
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	errno = EWOULDBLOCK;
	return -1;
}

void session_lock_note_server(const struct session *s, pid_t server)
{
	char line[LOCK_LINE + 1];
	snprintf(line, sizeof(line), "%-10d\n", (int)server);
	if (s->lockfd >= 0 && pwrite(s->lockfd, line, LOCK_LINE, LOCK_LINE) != LOCK_LINE) {
		/* without it, a run right after this one finds the session in use */
	}
}

/* Is fd (locked) still the file named `lock` in the session's directory?  A
 * jail rm or reset that held it unlinks it last, and may have done so
 * between our open and our flock: a lock on that orphan guards nothing, and
 * the next run would take the new one beside us. */
static bool lock_is_current(int fd, const char *path)
{
	struct stat held, named;
	return fstat(fd, &held) == 0 && lstat(path, &named) == 0 && held.st_dev == named.st_dev &&
	       held.st_ino == named.st_ino;
}

/* Open the session's lock file and try it (flock, not waiting): 0 with *fd
 * holding it, -1 with errno (EWOULDBLOCK: another holds it, and *fd is open on
 * it to read who).  A lock that went away under us is opened again. */
static int lock_open_try(const struct session *s, const char *path, int *fd,
                         struct jail_err *e)
{
	for (int tries = 0;; tries++) {
		if (session_mkdir(s, e) < 0)
			return -1;
		*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (*fd < 0)
			return jail_err_sys(e, "open lock '%s'", path);
		if (flock(*fd, LOCK_EX | LOCK_NB) < 0)
			return -1;
		if (lock_is_current(*fd, path))
			return 0;
		close(*fd);
		*fd = -1;
		if (tries == 100)
			return jail_err_set(e, 0, "the lock of session '%s' is removed as often as it is "
			                          "taken (a jail rm or reset in a loop?); try again",
			                    s->name);
	}
}

int session_lock(struct session *s, struct jail_err *e)
{
	_cleanup_free_ char *path = xasprintf("%s/lock", s->dir);
	_cleanup_close_ int fd = -1;
	int r = lock_open_try(s, path, &fd, e);
	if (r < 0 && fd < 0)
		return -1;
	char text[2 * LOCK_LINE + 1] = "", pid[16] = "";
	if (r < 0 && errno == EWOULDBLOCK) {
		ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
		text[n > 0 ? n : 0] = '\0';
		snprintf(pid, sizeof(pid), "%.*s", (int)strcspn(text, " \n"), text);
		r = wait_for_teardown(fd, text);
		if (r == 0 && !lock_is_current(fd, path)) {
			r = -1;  /* removed by whoever held it: the session is not ours */
			errno = EWOULDBLOCK;
		}
	}
	if (r < 0) {
		if (errno != EWOULDBLOCK)
			return jail_err_sys(e, "lock '%s'", path);
		_cleanup_free_ char *pesc = escape_name(s->project);
		jail_err_set(e, 0,
		             "session '%s' of %s is in use (jail pid %s); join it with "
		             "jail exec -s %s -- COMMAND, or use another session with -s NAME",
		             s->name, pesc, pid[0] ? pid : "?", s->name);
		e->errnum = EBUSY;  /* for the callers; not in the message */
		return -1;
	}
	/* fixed width: no ftruncate (a journal commit on ext4, 1 ms of start-up);
	 * no view server yet */
	char me[2 * LOCK_LINE + 1];
	int n = snprintf(me, sizeof(me), "%-10d\n%-10s\n", (int)getpid(), "");
	if (pwrite(fd, me, (size_t)n, 0) != n)
		return jail_err_sys(e, "write lock '%s'", path);
	s->lockfd = steal_fd(&fd);
	return 0;
}

char *session_meta_get(const struct session *s, const char *key)
{
	_cleanup_free_ char *path = xasprintf("%s/meta", s->dir);
	_cleanup_free_ char *data = NULL;
	struct jail_err e;
	if (read_file_at(AT_FDCWD, path, 1 << 20, &data, NULL, &e) < 0)
		return NULL;
	size_t kl = strlen(key);
	for (char *line = data; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (strncmp(line, key, kl) == 0 && line[kl] == '=')
			return xstrdup(line + kl + 1);
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

int session_meta_set(const struct session *s, struct jail_err *e, ...)
{
	_cleanup_free_ char *path = xasprintf("%s/meta", s->dir);
	_cleanup_free_ char *old = NULL;
	struct jail_err ignored;
	if (read_file_at(AT_FDCWD, path, 1 << 20, &old, NULL, &ignored) < 0)
		old = xstrdup("");
	struct strv keys = {0}, vals = {0};
	va_list ap;
	va_start(ap, e);
	for (const char *k; (k = va_arg(ap, const char *));) {
		strv_push(&keys, k);
		strv_push(&vals, va_arg(ap, const char *));
	}
	va_end(ap);
	struct strbuf out = {0};
	/* keep the lines we do not replace, in order */
	for (char *line = old; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		char *eq = strchr(line, '=');
		bool replaced = false;
		for (size_t i = 0; eq && i < keys.n; i++)
			if ((size_t)(eq - line) == strlen(keys.v[i]) &&
			    strncmp(line, keys.v[i], (size_t)(eq - line)) == 0)
				replaced = true;
		if (!replaced && *line)
			sb_printf(&out, "%s\n", line);
		line = nl ? nl + 1 : NULL;
	}
	for (size_t i = 0; i < keys.n; i++)
		sb_printf(&out, "%s=%s\n", keys.v[i], vals.v[i]);
	strv_free(&keys);
	strv_free(&vals);
	int r = replace_file(path, out.s ? out.s : "", out.len, 0600, e);
	sb_free(&out);
	return r;
}

/* What an export that crashed left: its temporary repositories and checks;
 * and what exports keep between them (the host's links, linkflags.h). */
static int remove_scratch_dirs(int dfd, struct jail_err *e)
{
	DIR *d = opendir_at(dfd, ".");
	if (!d)
		return jail_err_sys(e, "read the session directory");
	int ret = 0;
	struct dirent *de;
	while (ret == 0 && (de = readdir(d)))
		if (strncmp(de->d_name, ".export.", 8) == 0 || strncmp(de->d_name, ".flagcheck.", 11) == 0 ||
		    strncmp(de->d_name, "control-links.", 14) == 0)  /* linkflags.h */
			ret = rm_rf_at(dirfd(d), de->d_name, e);
	closedir(d);
	return ret;
}

int session_remove(struct session *s, struct jail_err *e)
{
	_cleanup_close_ int dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dfd < 0)
		return errno == ENOENT ? 0 : jail_err_sys(e, "open '%s'", s->dir);
	const char *names[] = {"upper", "work", "home", "patches", "meta", "hidden", "meta.tmp",
	                       "git-upper", "git-work", "applied", "applied.tmp", "ignored.cache",
	                       "ignored.cache.tmp", "tree.cache", "tree.cache.tmp", "cow",
	                       "running", "running.tmp", "placeholders", "placeholders.tmp",
	                       "landing", "landing.tmp", "applied.landing", "applied.landing.tmp",
	                       "base-cr", "base-cr.tmp", "export.stamp", "export.stamp.tmp",
	                       "withheld", "withheld.tmp", "withheld.cache", "withheld.cache.tmp",
	                       "withheld.ids", "withheld.ids.tmp", "withheld.stash", "withheld.stash.tmp"};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (rm_rf_at(dfd, names[i], e) < 0)
			return jail_err_wrap(e, "reset session '%s'", s->name);
	if (remove_scratch_dirs(dfd, e) < 0)
		return jail_err_wrap(e, "reset session '%s'", s->name);
	/* the lock goes last; what else is left (a patches dir given to export -o?)
	 * keeps the directory */
	unlinkat(dfd, "lock", 0);
	if (rmdir(s->dir) < 0 && errno != ENOTEMPTY && errno != EEXIST)
		return jail_err_sys(e, "remove '%s'", s->dir);
	return 0;
}

/* Everything in the directory but the lock, then the lock, then the
 * directory: the lock guards the session only while it is the file named
 * `lock` there, so a run started meanwhile finds it held and refuses, never a
 * half-removed session it would run in while the rest is removed under it. */
int session_remove_all(struct session *s, struct jail_err *e)
{
	_cleanup_close_ int dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dfd < 0)
		return errno == ENOENT ? 0 : jail_err_sys(e, "open '%s'", s->dir);
	DIR *d = opendir_at(dfd, ".");
	if (!d)
		return jail_err_sys(e, "read '%s'", s->dir);
	int ret = 0;
	for (struct dirent *de; ret == 0 && (de = readdir(d));)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && strcmp(de->d_name, "lock"))
			ret = rm_rf_at(dfd, de->d_name, e);
	closedir(d);
	if (ret < 0)
		return jail_err_wrap(e, "remove session '%s'", s->name);
	if (unlinkat(dfd, "lock", 0) < 0 && errno != ENOENT)
		return jail_err_sys(e, "remove the lock of session '%s'", s->name);
	/* a run that came after the lock went made the directory its own */
	if (rmdir(s->dir) < 0 && errno != ENOENT && errno != ENOTEMPTY && errno != EEXIST)
		return jail_err_sys(e, "remove '%s'", s->dir);
	return 0;
}

void session_sync(const struct session *s)
{
	/* the session's dir, on the upper dir's filesystem: the agent may have
	 * left the upper dir (the project's root) with mode 000 */
	_cleanup_close_ int fd = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || syncfs(fd) < 0)
		log_warn("write the session's changes to disk (%s): %s; run 'sync'", s->dir,
		         strerror(errno));
}

void session_free(struct session *s)
{
	free(s->project);
	free(s->name);
	free(s->project_root);
	free(s->dir);
	free(s->upper);
	free(s->work);
	free(s->home);
	free(s->patches);
	if (s->lockfd >= 0)
		close(s->lockfd);
	memset(s, 0, sizeof(*s));
	s->lockfd = -1;
}
