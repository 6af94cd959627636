/* livesock.c — see livesock.h. */
#include "livesock.h"

#include "log.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/tcp.h>  /* TCP_LISTEN: unix_diag's states are TCP's */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

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

/* A socket's path with its directory resolved (a listener may have named it
 * through a link: ~/link/S.gpg-agent); as named when that fails.  Only the
 * listening sockets are resolved: tens on a desktop, not its thousands. */
static char *resolved(const char *name, size_t n)
{
	_cleanup_free_ char *path = xasprintf("%.*s", (int)n, name);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	char real[PATH_MAX];
	bool ok = realpath(slash == path ? "/" : path, real) != NULL;
	*slash = '/';
	if (!ok)
		return steal_ptr(&path);
	return xasprintf("%s%s", strcmp(real, "/") == 0 ? "" : real, slash);
}

/* The bound path of one unix_diag answer, pushed onto paths when it is one. */
static void take_name(const struct nlmsghdr *h, struct strv *paths)
{
	const struct unix_diag_msg *m = NLMSG_DATA(h);
	size_t off = NLMSG_ALIGN(sizeof(*m));
	size_t len = h->nlmsg_len - NLMSG_LENGTH(0);
	while (off + NLA_HDRLEN <= len) {
		const struct nlattr *a = (const struct nlattr *)((const char *)m + off);
		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > len)
			return;
		const char *name = (const char *)a + NLA_HDRLEN;
		size_t n = a->nla_len - NLA_HDRLEN;
		if ((a->nla_type & NLA_TYPE_MASK) == UNIX_DIAG_NAME && n > 0 && name[0] == '/' &&
		    n < sizeof(((struct sockaddr_un *)0)->sun_path))
			strv_push_take(paths, resolved(name, strnlen(name, n)));
		off += NLA_ALIGN(a->nla_len);
	}
}

/* Read the dump's answers until NLMSG_DONE. */
static int read_dump(int fd, struct strv *paths, struct jail_err *e)
{
	static char buf[32768] __attribute__((aligned(NLMSG_ALIGNTO)));
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return jail_err_sys(e, "read the host's listening unix sockets");
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *err = NLMSG_DATA(h);
				return jail_err_set(e, -err->error, "list the host's unix sockets");
			}
			if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY)
				take_name(h, paths);
		}
	}
}

int livesock_listening(struct strv *paths, struct jail_err *e)
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
		.r = {.sdiag_family = AF_UNIX, .udiag_states = 1u << TCP_LISTEN,
		      .udiag_show = UDIAG_SHOW_NAME},
	};
	if (send(fd, &req, sizeof(req), 0) < 0)
		return jail_err_sys(e, "ask for the host's unix sockets");
	return read_dump(fd, paths, e);
}

/* Is the socket at `sock` covered in the jail when `dir` is bound (cover.h)? */
static bool covered(const struct jail_plan *p, const char *dir, const char *sock)
{
	const char *own[] = {p->state_root, p->config_root};
	for (size_t i = 0; i < ARRAY_SIZE(own); i++)
		if (own[i] && path_at_or_below(sock, own[i]) && !path_at_or_below(dir, own[i]))
			return true;
	/* the real home below a bind that holds it is the fake home there */
	return p->home_real && path_at_or_below(sock, p->home_real) &&
	       !path_at_or_below(dir, p->home_real);
}

static void warn_bind(const struct jail_plan *p, const struct strv *paths, const char *flag,
                      const char *dir)
{
	char real[PATH_MAX];
	const char *at = realpath(dir, real) ? real : dir;
	struct strv shown = {0};
	for (size_t i = 0; i < paths->n; i++)
		if (!covered(p, at, paths->v[i]))
			strv_push(&shown, paths->v[i]);
	size_t n = 0;
	const char *sock = livesock_below(&shown, at, &n);
	if (sock) {
		_cleanup_free_ char *esc_dir = escape_name(dir);
		_cleanup_free_ char *esc_sock = escape_name(sock);
		_cleanup_free_ char *more = n > 1 ? xasprintf(" and %zu more", n - 1) : xstrdup("");
		log_warn("%s %s shows a live socket of the host's, %s%s: read-only or not, the "
		         "agent can connect to it and talk to the process behind it; --cow %s "
		         "shows the directory without it", flag, esc_dir, esc_sock, more, esc_dir);
	}
	strv_free(&shown);
}

void livesock_warn(const struct jail_plan *p)
{
	const struct jail_config *cfg = p->cfg;
	if (cfg->ro_binds.n == 0 && cfg->rw_binds.n == 0)
		return;
	struct strv paths = {0};
	struct jail_err e;
	if (livesock_listening(&paths, &e) < 0) {
		log_debug("live sockets in binds not checked: %s", e.msg);
	} else {
		const struct strv *lists[] = {&cfg->ro_binds, &cfg->rw_binds};
		const char *flags[] = {"--ro", "--rw"};
		for (size_t l = 0; l < ARRAY_SIZE(lists); l++)
			for (size_t i = 0; i < lists[l]->n; i++)
				warn_bind(p, &paths, flags[l], lists[l]->v[i]);
	}
	strv_free(&paths);
}
