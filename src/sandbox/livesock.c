/* livesock.c — see livesock.h. */
#include "livesock.h"

#include "bindcover.h"
#include "cover.h"
#include "log.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/tcp.h>  /* TCP_LISTEN: unix_diag's states are TCP's */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

const char *livesock_below(const struct strv *paths, const char *dir, size_t *count)
{
	const char *first = NULL;
	size_t dl = strlen(dir);
	*count = 0;
	for (size_t i = 0; i < paths->n; i++) {
		const char *p = paths->v[i];
		/* "/" holds every absolute path; else dir itself or a name below it */
		bool below = p[0] == '/' && (strcmp(dir, "/") == 0 ||
		                             (strncmp(p, dir, dl) == 0 && (!p[dl] || p[dl] == '/')));
		if (below && (*count)++ == 0)
			first = p;
	}
	return first;
}

/* A socket's path with its directory resolved (a process may have named it
 * through a link: ~/link/S.gpg-agent); as named when that fails.  Sockets
 * share directories (a desktop's tens in a few): each is resolved once. */
static char *resolved(struct livesock_set *s, const char *name, size_t n)
{
	_cleanup_free_ char *path = xasprintf("%.*s", (int)n, name);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	const char *dir = slash == path ? "/" : path, *real = NULL;
	for (size_t i = 0; i < s->dirs.n && !real; i += 2)
		if (strcmp(s->dirs.v[i], dir) == 0)
			real = s->dirs.v[i + 1];
	if (!real) {
		char buf[PATH_MAX];
		strv_push(&s->dirs, dir);
		strv_push(&s->dirs, realpath(dir, buf) ? buf : "");
		real = s->dirs.v[s->dirs.n - 1];
	}
	*slash = '/';
	if (!*real)
		return steal_ptr(&path);
	return xasprintf("%s%s", strcmp(real, "/") == 0 ? "" : real, slash);
}

static void set_push(struct livesock_set *s, char *path, ino_t ino)
{
	if (s->paths.n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->ino = xrealloc(s->ino, s->cap * sizeof(*s->ino));
	}
	s->ino[s->paths.n] = ino;
	strv_push_take(&s->paths, path);
}

/* The bound path and inode of one unix_diag answer, pushed onto s when it
 * has a path (an abstract or unnamed socket has none) and may take anyone's
 * connections or datagrams: a stream or seqpacket socket that listens (an
 * accepted one carries its listener's name), a datagram socket (one that
 * others connected to, as syslog clients do to /dev/log, is "established"
 * for the kernel, and takes anyone's still; one that connected itself takes
 * only its peer's: a cover over it changes nothing). */
static void take_socket(const struct nlmsghdr *h, struct livesock_set *s)
{
	const struct unix_diag_msg *m = NLMSG_DATA(h);
	size_t off = NLMSG_ALIGN(sizeof(*m));
	size_t len = h->nlmsg_len - NLMSG_LENGTH(0);
	if (len < off)
		return;
	if (m->udiag_type != SOCK_DGRAM && m->udiag_state != TCP_LISTEN)
		return;
	const char *name = NULL;
	size_t name_n = 0;
	ino_t ino = 0;
	while (off + NLA_HDRLEN <= len) {
		const struct nlattr *a = (const struct nlattr *)((const char *)m + off);
		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > len)
			break;
		const char *data = (const char *)a + NLA_HDRLEN;
		size_t n = a->nla_len - NLA_HDRLEN;
		int type = a->nla_type & NLA_TYPE_MASK;
		if (type == UNIX_DIAG_NAME && n > 0 && data[0] == '/' &&
		    n < sizeof(((struct sockaddr_un *)0)->sun_path)) {
			name = data;
			name_n = strnlen(data, n);
		} else if (type == UNIX_DIAG_VFS && n >= sizeof(struct unix_diag_vfs)) {
			struct unix_diag_vfs v;
			memcpy(&v, data, sizeof(v));
			ino = v.udiag_vfs_ino;
		}
		off += NLA_ALIGN(a->nla_len);
	}
	if (name)
		set_push(s, resolved(s, name, name_n), ino);
}

/* Read the dump's answers until NLMSG_DONE. */
static int read_dump(int fd, struct livesock_set *s, struct jail_err *e)
{
	static char buf[32768] __attribute__((aligned(NLMSG_ALIGNTO)));
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return jail_err_sys(e, "read the host's bound unix sockets");
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *err = NLMSG_DATA(h);
				return jail_err_set(e, -err->error, "list the host's unix sockets");
			}
			if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY)
				take_socket(h, s);
		}
	}
}

/* One dump of the sockets in `states` (a mask of unix_diag's states, which
 * are TCP's), with the attributes `show`. */
static int dump(struct livesock_set *s, unsigned states, unsigned show, struct jail_err *e)
{
	_cleanup_close_ int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return jail_err_sys(e, "open a sock_diag socket");
	struct {
		struct nlmsghdr h;
		struct unix_diag_req r;
	} req = {
		.h = {.nlmsg_len = sizeof(req), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		      .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP},
		.r = {.sdiag_family = AF_UNIX, .udiag_states = states, .udiag_show = show},
	};
	if (send(fd, &req, sizeof(req), 0) < 0)
		return jail_err_sys(e, "ask for the host's unix sockets");
	return read_dump(fd, s, e);
}

/* A listener is TCP_LISTEN; a datagram socket TCP_CLOSE, or TCP_ESTABLISHED
 * once it connected or another connected to it.  The kernel filters by
 * state, not type: "established" brings the connected stream sockets of a
 * desktop too (thousands, dropped here), so that dump asks for the name
 * alone, the cheapest: with 3,000 sockets on a loaded machine it took 1 ms,
 * the first 0.45 ms (0.1 ms for both with a few sockets). */
static void other_netns(struct livesock_set *s);
static bool take_proc_list(struct livesock_set *s, const char *list);

int livesock_bound(struct livesock_set *s, struct jail_err *e)
{
	if (dump(s, 1u << TCP_LISTEN | 1u << TCP_CLOSE, UDIAG_SHOW_NAME | UDIAG_SHOW_VFS, e) < 0 ||
	    dump(s, 1u << TCP_ESTABLISHED, UDIAG_SHOW_NAME, e) < 0) {
		/* a kernel without unix_diag (CONFIG_UNIX_DIAG, or its module not
		 * loadable): the namespace's list in /proc, by path alone (no
		 * inode: a hard link under another name is not found), and slower
		 * (5-7 ms with 3,000 sockets) */
		log_debug("livesock: %s; reading /proc/self/net/unix", e->msg);
		livesock_set_free(s); /* what one dump found is in the list too */
		if (!take_proc_list(s, "/proc/self/net/unix"))
			return jail_err_sys(e, "read /proc/self/net/unix");
	}
	other_netns(s);
	return 0;
}

/* The sockets that take anyone's connections or datagrams in the list of
 * one network namespace, /proc/PID/net/unix: "Num RefCount Protocol Flags
 * Type St Inode Path", flags with __SO_ACCEPTCON (0x10000) for a listener.
 * Its inode is the socket's own, not the file's: the path alone is kept. */
static bool take_proc_list(struct livesock_set *s, const char *list)
{
	FILE *f = fopen(list, "re");
	if (!f)
		return false;
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	for (bool head = true; (len = getline(&line, &cap, f)) > 0; head = false) {
		unsigned flags, type;
		int at = 0;
		if (head || sscanf(line, "%*s %*x %*x %x %x %*x %*u %n", &flags, &type, &at) != 2 ||
		    !at || line[at] != '/' || (type != SOCK_DGRAM && !(flags & 0x10000)))
			continue;
		size_t n = strcspn(line + at, "\n");
		if (n < sizeof(((struct sockaddr_un *)0)->sun_path))
			set_push(s, resolved(s, line + at, n), 0);
	}
	fclose(f);
	return true;
}

/* sock_diag lists the sockets of the supervisor's network namespace; a
 * socket a process in another one bound (a container's whose volume is a
 * host directory, rootless podman, `unshare -n`, a unit with
 * PrivateNetwork=) is not in that list, but connect(2) by its path reaches
 * it all the same.  /proc/PID/net/unix lists PID's namespace's, readable
 * for each process this user sees; read once a namespace (the file's inode
 * tells them apart).  A name bound in another mount namespace is that
 * namespace's path: found only where it is the host's too. */
static void other_netns(struct livesock_set *s)
{
	struct stat own, st;
	DIR *d = opendir("/proc");
	if (!d || stat("/proc/self/net/unix", &own) < 0) {
		if (d)
			closedir(d);
		return;
	}
	ino_t *seen = NULL;
	size_t n = 0;
	for (struct dirent *de; (de = readdir(d));) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		char list[64];
		snprintf(list, sizeof(list), "/proc/%.20s/net/unix", de->d_name);
		if (stat(list, &st) < 0 || st.st_ino == own.st_ino)
			continue;
		size_t i = 0;
		while (i < n && seen[i] != st.st_ino)
			i++;
		if (i < n)
			continue;
		seen = xrealloc(seen, (n + 1) * sizeof(*seen));
		seen[n++] = st.st_ino;
		take_proc_list(s, list);
	}
	free(seen);
	closedir(d);
}

void livesock_set_free(struct livesock_set *s)
{
	strv_free(&s->paths);
	strv_free(&s->dirs);
	free(s->ino);
	memset(s, 0, sizeof(*s));
}

/* ---- the supervisor ---- */

/* Is the socket at `sock` covered in the jail when `dir` is bound (cover.h),
 * under a --tmpfs, or shown there by an overlay, whose inode refuses a
 * connect? */
static bool covered(const struct jail_plan *p, const char *dir, const char *sock)
{
	const char *project = p->session ? p->session->project : NULL;
	if (project && path_at_or_below(sock, project) && !path_at_or_below(dir, project))
		return true;
	const struct strv *tmpfs = &p->cfg->tmpfs;
	for (size_t i = 0; i < tmpfs->n; i++)
		if (path_at_or_below(sock, tmpfs->v[i]) && !path_at_or_below(dir, tmpfs->v[i]))
			return true;
	const char *own[] = {p->state_root, p->config_root};
	for (size_t i = 0; i < ARRAY_SIZE(own); i++)
		if (own[i] && path_at_or_below(sock, own[i]) && !path_at_or_below(dir, own[i]))
			return true;
	/* the real home below a bind that holds it is the fake home there */
	return p->home_real && path_at_or_below(sock, p->home_real) &&
	       !path_at_or_below(dir, p->home_real);
}

/* One bind the user named: as named (its path in the jail) and resolved. */
struct bind {
	const char *flag, *named;
	char *real;
};

/* What a bind of `named` shows of the host, resolved; NULL when it shows
 * nothing: a link named is copied, not followed (mounts.c), and resolves in
 * the jail, to what the jail has there. */
static char *bound_tree(const char *named)
{
	struct stat st;
	if (lstat(named, &st) < 0 || S_ISLNK(st.st_mode))
		return NULL;
	return realpath(named, NULL);
}

/* Does the user bind the socket at `sock` itself? */
static bool bound_itself(const struct bind *b, size_t n, const char *sock)
{
	for (size_t i = 0; i < n; i++)
		if (b[i].real && strcmp(b[i].real, sock) == 0)
			return true;
	return false;
}

/* Is `path` below one of the binds (as the host resolves them)? */
static bool below_a_bind(const struct bind *b, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (b[i].real && path_at_or_below(path, b[i].real))
			return true;
	return false;
}

/* The names socket i has on the host now: its path, when that holds the
 * inode the kernel bound and no other name does; else the entries of its
 * directory with that inode, one readdir: ssh's ControlMaster binds a
 * temporary name, links its ControlPath to it and unlinks the first, so the
 * kernel's name is gone and the live one another; a socket renamed in its
 * directory, or given a second name there, the same.  Not the sockets of a
 * dead listener (a file left, refusing): none of them is in the list. */
static void names_of(const struct livesock_set *s, size_t i, struct strv *names)
{
	const char *path = s->paths.v[i];
	ino_t ino = s->ino[i];
	struct stat st;
	bool here = lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && (!ino || st.st_ino == ino);
	if (here && (st.st_nlink == 1 || !ino)) {
		strv_push(names, path);
		return;
	}
	if (!ino)
		return;
	_cleanup_free_ char *dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	DIR *d = opendir(*dir ? dir : "/");
	if (!d)
		return;
	for (struct dirent *de; (de = readdir(d));) {
		if (de->d_ino != ino || (de->d_type != DT_SOCK && de->d_type != DT_UNKNOWN))
			continue;
		_cleanup_free_ char *name = xasprintf("%s/%s", dir, de->d_name);
		if (lstat(name, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_ino == ino)
			strv_push_take(names, steal_ptr(&name));
	}
	closedir(d);
}

/* A cover is a mount: the socket cannot be renamed or removed.  But below a
 * --rw the agent could move a directory on its way (run/ to moved/): the
 * next start found no socket at the kernel's name of it (run/app.sock), and
 * covered none, where moved/app.sock led to the host's process.  So each
 * directory between the bind (`top`, in the jail) and the socket (`at`) is
 * pinned (bound onto itself: a mount point cannot be moved either). */
static void pin_between(struct jail_plan *p, const char *top, const char *at)
{
	size_t tl = strlen(top);
	while (tl > 1 && top[tl - 1] == '/')
		tl--;
	if (strncmp(at, top, tl) != 0 || at[tl] != '/')
		return;
	_cleanup_free_ char *dir = xstrdup(at);
	for (char *slash = dir + tl + 1; (slash = strchr(slash, '/')); *slash++ = '/') {
		*slash = '\0';
		if (!strv_contains(&p->sock_pins, dir))
			strv_push(&p->sock_pins, dir);
	}
}

/* The paths in the jail where the binds show `sock`, a name of a live
 * socket; the first bind that does, in *by. */
static void cover_name(struct jail_plan *p, const struct bind *b, size_t n,
                       const char *sock, const struct bind **by)
{
	if (bound_itself(b, n, sock))
		return;
	for (size_t k = 0; k < n; k++) {
		if (!b[k].real || covered(p, b[k].real, sock))
			continue;
		_cleanup_free_ char *at = cover_point(b[k].named, b[k].real, sock);
		if (!at || strv_contains(&p->sock_covers, at))
			continue;
		if (!*by)
			*by = &b[k];
		if (strcmp(b[k].flag, "--rw") == 0)
			pin_between(p, b[k].named, at);
		strv_push_take(&p->sock_covers, steal_ptr(&at));
		strv_push(&p->sock_hosts, sock);
	}
}

/* One line: what is covered, the first by name, and how to let it in. */
static void say_covered(const struct jail_plan *p, const struct bind *by)
{
	if (!by)
		return;
	size_t n = p->sock_covers.n;
	_cleanup_free_ char *esc_sock = escape_name(p->sock_covers.v[0]);
	_cleanup_free_ char *esc_bind = escape_name(by->named);
	_cleanup_free_ char *more = n > 1 ? xasprintf(" (and %zu more)", n - 1) : xstrdup("");
	log_info("covered %s%s, a live socket of the host's that %s %s shows (the agent could "
	         "talk to the process behind it, outside the jail); --rw %s lets it in",
	         esc_sock, more, by->flag, esc_bind, esc_sock);
}

void livesock_plan(struct jail_plan *p)
{
	const struct jail_config *cfg = p->cfg;
	size_t n = cfg->ro_binds.n + cfg->rw_binds.n;
	if (n == 0)
		return;
	struct livesock_set s = {0};
	struct jail_err e;
	if (livesock_bound(&s, &e) < 0) {
		/* neither sock_diag for unix sockets nor /proc's list: the binds
		 * are what the user asked for, shown; said once */
		log_warn("the host's live sockets below --ro and --rw binds are not covered: %s",
		         e.msg);
		livesock_set_free(&s);
		return;
	}
	struct bind *b = xcalloc(n, sizeof(*b));
	const struct { const struct strv *l; const char *flag; } lists[] = {
		{&cfg->ro_binds, "--ro"}, {&cfg->rw_binds, "--rw"},
	};
	n = 0;
	for (size_t k = 0; k < ARRAY_SIZE(lists); k++)
		for (size_t i = 0; i < lists[k].l->n; i++)
			b[n++] = (struct bind){lists[k].flag, lists[k].l->v[i],
			                       bound_tree(lists[k].l->v[i])};
	const struct bind *by = NULL;
	for (size_t i = 0; i < s.paths.n; i++) {
		if (!below_a_bind(b, n, s.paths.v[i]))
			continue;
		struct strv names = {0};
		names_of(&s, i, &names);
		for (size_t j = 0; j < names.n; j++)
			cover_name(p, b, n, names.v[j], &by);
		strv_free(&names);
	}
	say_covered(p, by);
	log_debug("%zu bound unix sockets of the host's looked at, %zu below binds to cover",
	          s.paths.n, p->sock_covers.n);
	for (size_t i = 0; i < n; i++)
		free(b[i].real);
	free(b);
	livesock_set_free(&s);
}

/* ---- init ---- */

/* Is the directory of `path` there, below the root `root` (links resolved
 * in it)? */
static bool dir_there(int root, const char *path)
{
	_cleanup_free_ char *dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_close_ int fd = (int)syscall(SYS_openat2, root, *dir ? dir + 1 : ".", &how,
	                                      sizeof(how));
	return fd >= 0 || (errno != ENOENT && errno != ENOTDIR);
}

/* The socket's directory is not at its place in the jail.  When the host
 * still has it at its own, the jail hides it (a --tmpfs, a cover of the
 * home, a secret-named directory's): nothing to cover, once a second look
 * agrees (a directory renamed away and back meanwhile would be uncovered
 * there).  When the host has it no more, it moved since the list was made
 * (renamed by a process that can write there: another jail's agent): the
 * socket is somewhere below the bind, not covered; fail closed. */
static int dir_gone(const char *path, const char *host, int new_root, struct jail_err *e)
{
	_cleanup_close_ int old = open("/oldroot", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (old < 0)
		return jail_err_sys(e, "open /oldroot");
	if (dir_there(old, host))
		return dir_there(new_root, path) ? 1 : 0;
	_cleanup_free_ char *esc = escape_name(host);
	return jail_err_set(e, 0, "the directory of the host's live socket %s moved during the "
	                    "start, so it could not be covered; run again", esc);
}

/* Cover the socket at `path` below the new root, if one is there (`host`:
 * its path on the host).  A link on the way resolves as in the jail
 * (/var/run -> /run), never out of it: what the agent reaches by that path
 * is what is covered.  1: look again. */
static int cover_one(const char *path, const char *host, int new_root,
                     const char *cover_file, struct jail_err *e)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_close_ int fd = (int)syscall(SYS_openat2, new_root, path + 1, &how, sizeof(how));
	struct stat st;
	if (fd < 0 && !dir_there(new_root, path))
		return dir_gone(path, host, new_root, e);
	/* the name gone (the host's process ended), or not a socket now */
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
		return 0;
	_cleanup_free_ char *on = xasprintf("/oldroot/proc/self/fd/%d", fd);
	if (mount(cover_file, on, NULL, MS_BIND, NULL) == 0)
		return 0;
	/* unlinked between the open and the mount (the host's agent restarted):
	 * the name is opened again */
	if (errno == ENOENT)
		return 1;
	_cleanup_free_ char *esc = escape_name(path);
	return jail_err_sys(e, "cover the host's live socket %s", esc);
}

/* Bind the directory at `path` below the new root onto itself, with what is
 * mounted below it; one gone is left (its socket's cover says why). */
static int pin_one(const char *path, int new_root, struct jail_err *e)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_close_ int fd = (int)syscall(SYS_openat2, new_root, path + 1, &how, sizeof(how));
	if (fd < 0)
		return 0;
	_cleanup_free_ char *on = xasprintf("/oldroot/proc/self/fd/%d", fd);
	if (mount(on, on, NULL, MS_BIND | MS_REC, NULL) == 0)
		return 0;
	_cleanup_free_ char *esc = escape_name(path);
	return jail_err_sys(e, "pin %s, on the way to a covered live socket", esc);
}

int livesock_cover(const struct strv *at, const struct strv *host, const struct strv *pins,
                   int new_root, struct jail_err *e)
{
	if (at->n == 0)
		return 0;
	for (size_t i = 0; i < pins->n; i++)
		if (pin_one(pins->v[i], new_root, e) < 0)
			return -1;
	const char *cover_file = bindcover_file(e);
	if (!cover_file)
		return -1;
	for (size_t i = 0; i < at->n; i++) {
		int r = 1;
		for (int tries = 0; r == 1 && tries < 4; tries++)
			r = cover_one(at->v[i], host->v[i], new_root, cover_file, e);
		if (r == 1) {
			_cleanup_free_ char *esc = escape_name(at->v[i]);
			r = jail_err_set(e, 0, "the host's live socket %s kept changing during the "
			                 "start, so it could not be covered; run again", esc);
		}
		if (r < 0)
			return -1;
	}
	return 0;
}
