/* nethelper.c — the user-mode network helper that gives the jail's netns a
 * route out: pasta (preferred) or slirp4netns, started by the supervisor on
 * the child's namespaces, unprivileged, and stopped with the jail.
 *
 * Both are told to keep the host's loopback closed unless host:PORT is in the
 * allowlist: pasta forwards no ports in either direction (-t/-u/-T/-U none;
 * its default "auto" would splice the jail's 127.0.0.1 to the host's) and does
 * not map the gateway to the host (--no-map-gw); slirp4netns gets
 * --disable-host-loopback.  When host ports are allowed, the mapping stays and
 * the ruleset opens exactly those ports on it.
 *
 * Isolation: pasta isolates itself (namespaces, seccomp, no capabilities).
 * slirp4netns runs with --enable-seccomp only: its --enable-sandbox needs uid 0
 * mapped in the jail's user namespace, which maps only the caller's uid. */
#include "addrclass.h"
#include "log.h"
#include "netpriv.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#define HELPER_WAIT_MS 10000

static char *find_in_path(const char *name)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
	_cleanup_free_ char *copy = xstrdup(path);
	for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		char *full = xasprintf("%s/%s", dir, name);
		if (dir[0] == '/' && access(full, X_OK) == 0)
			return full;
		free(full);
	}
	return NULL;
}

/* Which helper: JAIL_NET_HELPER names one; else pasta, else slirp4netns. */
static int choose_helper(struct net_host *n, char **path, struct jail_err *e)
{
	const char *want = getenv("JAIL_NET_HELPER");
	if (want && strcmp(want, "pasta") != 0 && strcmp(want, "slirp4netns") != 0)
		return jail_err_set(e, 0, "JAIL_NET_HELPER=%s: use pasta or slirp4netns", want);
	static const char *const helpers[] = {"pasta", "slirp4netns"};
	/* slirp4netns forwards ports only through its API socket: pasta only */
	size_t nhelpers = n->n_publish ? 1 : ARRAY_SIZE(helpers);
	if (want && n->n_publish && strcmp(want, "pasta") != 0)
		return jail_err_set(e, 0, "--publish needs pasta, not JAIL_NET_HELPER=%s", want);
	for (size_t i = 0; i < nhelpers; i++) {
		if (want && strcmp(want, helpers[i]) != 0)
			continue;
		if ((*path = find_in_path(helpers[i]))) {
			n->helper_name = helpers[i];
			return 0;
		}
	}
	if (want)
		return jail_err_set(e, 0, "JAIL_NET_HELPER=%s: not found in PATH", want);
	if (n->n_publish)
		return jail_err_set(e, 0, "--publish needs pasta (Debian package passt)");
	return jail_err_set(e, 0, "--net %s needs pasta (Debian package passt) or "
	                    "slirp4netns; neither is installed",
	                    n->mode == NET_OPEN ? "open" : "allow");
}

/* In the forked child: only async-signal-safe calls. */
static void exec_helper(const char *path, char *const argv[], int logfd, const int *keep,
                        int nkeep)
{
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);  /* the supervisor blocks what it watches */
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(logfd, 2) < 0)
		_exit(127);
	int high[4];
	for (int i = 0; i < nkeep; i++)  /* out of the way first: keep[1] may be 3 */
		if ((high[i] = fcntl(keep[i], F_DUPFD_CLOEXEC, 16)) < 0)
			_exit(127);
	for (int i = 0; i < nkeep; i++)
		if (dup2(high[i], 3 + i) < 0)
			_exit(127);
	syscall(SYS_close_range, 3 + nkeep, ~0U, 0);
	execv(path, argv);
	_exit(127);
}

/* In the forked child, for pasta: a guard between the supervisor and the
 * helper.  pasta joins the jail's user namespace, which clears a parent-death
 * signal, so it cannot notice a supervisor killed with SIGKILL, and it would
 * hold the jail's netns (and published ports) on forever.  The guard keeps its
 * PR_SET_PDEATHSIG, stops pasta when the supervisor dies or asks (SIGTERM),
 * and exits with pasta's status.  Only async-signal-safe calls. */
static void guard_helper(const char *path, char *const argv[], int logfd, pid_t supervisor)
{
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) < 0 || getppid() != supervisor ||
	    dup2(logfd, 3) < 0)
		_exit(127);
	syscall(SYS_close_range, 4, ~0U, 0); /* none of the supervisor's fds */
	pid_t helper = fork();
	if (helper < 0)
		_exit(127);
	if (helper == 0)
		exec_helper(path, argv, 3, NULL, 0);
	int sig = 0, st = 0;
	bool reaped = false;
	while (!reaped && sigwait(&mask, &sig) == 0 && sig == SIGCHLD)
		reaped = waitpid(helper, &st, WNOHANG) == helper;
	if (!reaped) { /* SIGTERM: from the supervisor, or its death */
		kill(helper, SIGTERM);
		for (int i = 0; i < 150 && !reaped; i++) {
			struct timespec ts = {0, 10 * 1000000};
			nanosleep(&ts, NULL);
			reaped = waitpid(helper, &st, WNOHANG) == helper;
		}
		if (!reaped) {
			kill(helper, SIGKILL);
			waitpid(helper, &st, 0);
		}
	}
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

static int spawn(struct net_host *n, const char *path, char *const argv[], const int *keep,
                 int nkeep, bool guarded, struct jail_err *e)
{
	_cleanup_free_ char *log = xasprintf("%s/helper.log", n->rundir);
	_cleanup_close_ int logfd = open(log, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (logfd < 0)
		return jail_err_sys(e, "create %s", log);
	pid_t self = getpid();
	pid_t pid = fork();
	if (pid < 0)
		return jail_err_sys(e, "fork for %s", n->helper_name);
	if (pid == 0 && guarded)
		guard_helper(path, argv, logfd, self);
	if (pid == 0)
		exec_helper(path, argv, logfd, keep, nkeep);
	n->helper = pid;
	return 0;
}

/* The helper failed to start: its own last words (up to three lines). */
static int helper_failed(struct net_host *n, const char *why, struct jail_err *e)
{
	_cleanup_free_ char *log = xasprintf("%s/helper.log", n->rundir), *text = NULL;
	size_t len = 0;
	struct jail_err ignored;
	const char *last = "";
	if (read_file_at(AT_FDCWD, log, 1 << 16, &text, &len, &ignored) == 0) {
		while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
			text[--len] = '\0';
		last = text;
		for (int lines = 0; lines < 3; lines++) {
			char *nl = memrchr(text, '\n', (size_t)(last - text - (last > text)));
			if (!nl)
				break;
			last = nl + 1;
		}
		for (char *p = text; *p; p++)
			if (*p == '\n')
				*p = ' ';  /* one line, escaped below */
	}
	_cleanup_free_ char *esc = escape_name(last);
	return jail_err_set(e, 0, "%s %s%s%s", n->helper_name, why, *esc ? ": " : "", esc);
}

static bool helper_exited(struct net_host *n)
{
	int st;
	if (waitpid(n->helper, &st, WNOHANG) == n->helper) {
		n->helper = -1;
		return true;
	}
	return false;
}

/* pasta writes its pid file once the namespace is configured. */
static int pasta_wait(struct net_host *n, struct jail_err *e)
{
	_cleanup_free_ char *pidfile = xasprintf("%s/pasta.pid", n->rundir);
	long long deadline = (long long)mono_ms() + HELPER_WAIT_MS;
	for (;;) {
		struct stat st;
		if (stat(pidfile, &st) == 0 && st.st_size > 0)
			return 0;
		if (helper_exited(n))
			return helper_failed(n, "exited during setup", e);
		if ((long long)mono_ms() > deadline)
			return helper_failed(n, "did not configure the jail's network in time", e);
		struct timespec ts = {0, 5 * 1000000};
		nanosleep(&ts, NULL);
	}
}

static void push_all(struct strv *v, const char *const *args)
{
	for (; *args; args++)
		strv_push(v, *args);
}

static int start_pasta(struct net_host *n, const char *path, pid_t child, bool map_host,
                       struct jail_err *e)
{
	_cleanup_free_ char *pidfile = xasprintf("%s/pasta.pid", n->rundir);
	struct strv argv = {0};
	const char *const fixed[] = {"pasta", "--quiet", "--foreground", "--pid", pidfile,
	                             "-u", "none", "-T", "none", "-U", "none", NULL};
	push_all(&argv, fixed);
	/* net=none: the netns gets pasta's interface unconfigured (down, no
	 * address, no route), so nothing leaves; published ports still come in
	 * through pasta's splice onto the jail's loopback */
	if (n->mode != NET_NONE)
		strv_push(&argv, "--config-net");
	/* published ports listen on the host's 127.0.0.1 only; nothing else in */
	for (size_t i = 0; i < n->n_publish; i++) {
		strv_push(&argv, "-t");
		strv_push_take(&argv, xasprintf("127.0.0.1/%u:%u", n->publish[i].host_port,
		                                n->publish[i].port));
	}
	if (!n->n_publish) {
		strv_push(&argv, "-t");
		strv_push(&argv, "none");
	}
	/* As root, pasta would switch to "nobody", who cannot join the jail's
	 * user namespace: it stays who we are (the owner of that namespace). */
	strv_push(&argv, "--runas");
	strv_push_take(&argv, xasprintf("%u:%u", (unsigned)geteuid(), (unsigned)getegid()));
	if (!map_host)
		strv_push(&argv, "--no-map-gw");
	strv_push_take(&argv, xasprintf("%d", (int)child));
	int r = spawn(n, path, argv.v, NULL, 0, true, e);
	strv_free(&argv);
	if (r < 0)
		return -1;
	return pasta_wait(n, e);
}

static int slirp_wait(struct net_host *n, int ready, struct jail_err *e)
{
	long long deadline = (long long)mono_ms() + HELPER_WAIT_MS;
	for (;;) {
		struct pollfd pfd = {ready, POLLIN, 0};
		int r = poll(&pfd, 1, 50);
		char c;
		if (r > 0 && read(ready, &c, 1) == 1)
			return 0;
		if (helper_exited(n))
			return helper_failed(n, "exited during setup", e);
		if ((long long)mono_ms() > deadline)
			return helper_failed(n, "did not configure the jail's network in time", e);
	}
}

static int start_slirp(struct net_host *n, const char *path, pid_t child, bool map_host,
                       struct jail_err *e)
{
	int ready[2], ex[2];
	if (pipe2(ready, O_CLOEXEC) < 0)
		return jail_err_sys(e, "pipe");
	if (pipe2(ex, O_CLOEXEC) < 0) {
		close(ready[0]);
		close(ready[1]);
		return jail_err_sys(e, "pipe");
	}
	_cleanup_close_ int rd = ready[0], rw = ready[1], xr = ex[0];
	n->helper_exit_fd = ex[1];  /* closing it tells slirp4netns to exit */
	struct strv argv = {0};
	/* No --enable-sandbox: it needs uid 0 mapped in the jail's user namespace
	 * (it calls setegid(0) there), and the jail maps only the caller's uid. */
	const char *const fixed[] = {"slirp4netns", "--configure", "--mtu=65520",
	                             "--enable-seccomp", "--ready-fd=3", "--exit-fd=4", NULL};
	push_all(&argv, fixed);
	strv_push_take(&argv, xasprintf("--userns-path=/proc/%d/ns/user", (int)child));
	if (!map_host)
		strv_push(&argv, "--disable-host-loopback");
	strv_push_take(&argv, xasprintf("%d", (int)child));
	strv_push(&argv, "tap0");
	int keep[2] = {rw, xr};
	/* no guard: slirp4netns exits by itself when its --exit-fd closes */
	int r = spawn(n, path, argv.v, keep, 2, false, e);
	strv_free(&argv);
	if (r < 0)
		return -1;
	close(steal_fd(&rw));
	return slirp_wait(n, rd, e);
}

/* The default IPv4 gateway in the routes of netdir ("/proc/net": the host's;
 * "/proc/PID/net": the jail's, as pasta configured them from the host's). */
static bool default_gw4(const char *netdir, unsigned char out[4])
{
	_cleanup_free_ char *path = xasprintf("%s/route", netdir);
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	char line[256];
	while (f && fgets(line, sizeof(line), f)) {
		char ifname[32];
		unsigned dest, gw, flags, mask;
		if (sscanf(line, "%31s %x %x %x %*d %*d %*d %x", ifname, &dest, &gw, &flags,
		           &mask) == 5 && dest == 0 && mask == 0 && gw != 0) {
			memcpy(out, &gw, 4);  /* the kernel prints the raw network-order word */
			return true;
		}
	}
	return false;
}

static bool default_gw6(const char *netdir, unsigned char out[16])
{
	_cleanup_free_ char *path = xasprintf("%s/ipv6_route", netdir);
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	char line[512], dest[33], gw[33];
	unsigned plen;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%32s %x %*s %*x %32s", dest, &plen, gw) != 3 || plen != 0 ||
		    strspn(dest, "0") != 32 || strspn(gw, "0") == 32)
			continue;
		for (int i = 0; i < 16; i++) {
			unsigned b;
			if (sscanf(gw + 2 * i, "%2x", &b) != 1)
				return false;
			out[i] = (unsigned char)b;
		}
		return true;
	}
	return false;
}

static void add_host_addr(struct net_host *n, int family, const void *addr, size_t len)
{
	struct dns_addr *a = &n->host_addrs[n->n_host_addrs++];
	memset(a, 0, sizeof(*a));
	a->family = family;
	a->ttl = 5;  /* the answer follows what listens on the host (netwatch.c) */
	memcpy(a->addr, addr, len);
}

/* pasta maps the jail's gateway, the one it configured in the jail's netns
 * (the host's, unless the host has several): read there, else the host's. */
static void find_host_addrs(struct net_host *n, pid_t child)
{
	unsigned char a[16];
	if (strcmp(n->helper_name, "slirp4netns") == 0) {
		inet_pton(AF_INET, "10.0.2.2", a);
		add_host_addr(n, AF_INET, a, 4);
		return;
	}
	_cleanup_free_ char *jail = xasprintf("/proc/%d/net", (int)child);
	if (default_gw4(jail, a) || default_gw4("/proc/net", a))
		add_host_addr(n, AF_INET, a, 4);
	if (default_gw6(jail, a) || default_gw6("/proc/net", a))
		add_host_addr(n, AF_INET6, a, 16);
	log_debug("network: %zu host-loopback address(es) of the helper", n->n_host_addrs);
}

static void add_local(struct net_host *n, int family, const void *addr, bool helper)
{
	if (n->n_local >= NET_LOCAL_MAX) {
		/* the DNS filter asks the kernel anyway; open mode's ruleset
		 * closes only the addresses listed */
		if (!n->local_full && n->mode == NET_OPEN)
			log_warn("network: the host has more than %d addresses; --net open "
			         "closes the first %d of them only", NET_LOCAL_MAX, NET_LOCAL_MAX);
		n->local_full = true;
		return;
	}
	struct net_local *l = &n->local[n->n_local++];
	memset(l, 0, sizeof(*l));
	l->family = family;
	memcpy(l->addr, addr, family == AF_INET ? 4 : 16);
	l->helper = helper;
}

/* An IPv4 address of the host's, and its subnet's broadcast (the kernel's,
 * whether or not the interface was given one), which the host takes in too. */
static void add_local4(struct net_host *n, const struct ifaddrs *i)
{
	uint32_t ip = ((const struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
	add_local(n, AF_INET, &ip, false);
	if (!(i->ifa_flags & IFF_BROADCAST) || !i->ifa_netmask)
		return;
	uint32_t m = ((const struct sockaddr_in *)i->ifa_netmask)->sin_addr.s_addr;
	uint32_t b = ip | ~m;
	if (ntohl(m) < 0xfffffffeu)  /* /31 and /32 have none */
		add_local(n, AF_INET, &b, false);
}

/* An IPv6 address of the host's, and its prefix's subnet-router anycast
 * address (the prefix, all zero after it), which a host that forwards takes
 * in too: no one else may hold it. */
static void add_local6(struct net_host *n, const struct in6_addr *a, const struct in6_addr *mask)
{
	add_local(n, AF_INET6, a, false);
	if (!mask)
		return;
	struct in6_addr any;
	bool other = false;
	for (int i = 0; i < 16; i++) {
		any.s6_addr[i] = a->s6_addr[i] & mask->s6_addr[i];
		other |= any.s6_addr[i] != a->s6_addr[i];
	}
	if (other)  /* not a /128 */
		add_local(n, AF_INET6, &any, false);
}

/* What no DNS answer may open, besides the special ranges (addrclass.c):
 * the helper's addresses (the gateway, which pasta maps to the host's
 * loopback when host:PORT is allowed; slirp4netns' host, DNS forwarder and
 * their IPv6 forms) and every address of the host's, which pasta also gives
 * the jail's interface. */
static void find_local_addrs(struct net_host *n, pid_t child)
{
	unsigned char a[16];
	if (strcmp(n->helper_name, "slirp4netns") == 0) {
		static const char *const slirp[] = {"10.0.2.2", "10.0.2.3", "fd00::2", "fd00::3"};
		for (size_t i = 0; i < ARRAY_SIZE(slirp); i++) {
			int family = strchr(slirp[i], ':') ? AF_INET6 : AF_INET;
			if (inet_pton(family, slirp[i], a) == 1)
				add_local(n, family, a, true);
		}
	}
	_cleanup_free_ char *jail = xasprintf("/proc/%d/net", (int)child);
	const char *const dirs[] = {"/proc/net", jail};  /* the host's, and pasta's copy */
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		if (default_gw4(dirs[i], a))
			add_local(n, AF_INET, a, true);
		if (default_gw6(dirs[i], a))
			add_local(n, AF_INET6, a, true);
	}
	struct ifaddrs *ifs = NULL;
	if (getifaddrs(&ifs) < 0) {
		log_warn("network: list the host's addresses: %s", strerror(errno));
		return;
	}
	for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
		if (!i->ifa_addr)
			continue;
		if (i->ifa_addr->sa_family == AF_INET)
			add_local4(n, i);
		else if (i->ifa_addr->sa_family == AF_INET6)
			add_local6(n, &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
			           i->ifa_netmask ? &((struct sockaddr_in6 *)i->ifa_netmask)->sin6_addr
			                          : NULL);
	}
	freeifaddrs(ifs);
}

/* Does the kernel deliver family/addr (4 or 16 bytes) to this host itself?
 * Not only "local" routes (an interface's address, or AnyIP's "ip route add
 * local 198.51.100.0/24 dev lo"): every route type whose packets the host
 * takes in.  An IPv6 host that forwards (a router, a VPN or container host)
 * owns the subnet-router anycast address of each of its prefixes (2001:db8::
 * of 2001:db8::/64), on no interface's list, and its UDP servers bound to ::
 * answer there; broadcast and multicast are taken in as well as sent.  -1
 * when it cannot ask. */
static int route_is_local(int family, const unsigned char *addr)
{
	size_t alen = family == AF_INET ? 4 : 16;
	struct {
		struct nlmsghdr h;
		struct rtmsg r;
		struct rtattr dst;
		unsigned char addr[16];
	} req;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = (uint32_t)NLMSG_LENGTH(sizeof(req.r) + RTA_LENGTH(alen));
	req.h.nlmsg_type = RTM_GETROUTE;
	req.h.nlmsg_flags = NLM_F_REQUEST;
	req.r.rtm_family = (unsigned char)family;
	req.r.rtm_dst_len = (unsigned char)(alen * 8);
	req.dst.rta_type = RTA_DST;
	req.dst.rta_len = (unsigned short)RTA_LENGTH(alen);
	memcpy(req.addr, addr, alen);
	_cleanup_close_ int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	struct timeval tv = {.tv_sec = 1};
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    send(fd, &req, req.h.nlmsg_len, 0) < 0)
		return -1;
	union {
		struct nlmsghdr h;
		char buf[4096];
	} resp;
	ssize_t n = recv(fd, &resp, sizeof(resp), 0);
	if (n < (ssize_t)sizeof(struct nlmsghdr) || !NLMSG_OK(&resp.h, (size_t)n))
		return -1;
	if (resp.h.nlmsg_type == NLMSG_ERROR)
		return 0;  /* no route there at all: not this host */
	if (resp.h.nlmsg_type != RTM_NEWROUTE ||
	    resp.h.nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg)))
		return -1;
	const struct rtmsg *r = NLMSG_DATA(&resp.h);
	return r->rtm_type == RTN_LOCAL || r->rtm_type == RTN_ANYCAST ||
	       r->rtm_type == RTN_BROADCAST || r->rtm_type == RTN_MULTICAST;
}

bool net_host_owns_now(const struct dns_addr *a)
{
	unsigned char v4[4];
	int r = route_is_local(a->family, a->addr);
	if (r == 0 && a->family == AF_INET6 && addr_embedded_v4(a->addr, v4))
		r = route_is_local(AF_INET, v4);
	if (r < 0)
		log_warn("network: ask the kernel whether an address is the host's: %s",
		         strerror(errno));
	return r != 0;  /* unknown: refused */
}

static void remove_rundir(struct net_host *n)
{
	if (!n->rundir)
		return;
	static const char *const files[] = {"pasta.pid", "helper.log"};
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", n->rundir, files[i]);
		unlink(p);
	}
	rmdir(n->rundir);
	free(n->rundir);
	n->rundir = NULL;
}

int net_helper_start(struct net_host *n, pid_t child, struct jail_err *e)
{
	_cleanup_free_ char *path = NULL;
	if (choose_helper(n, &path, e) < 0)
		return -1;
	if (access("/dev/net/tun", R_OK | W_OK) < 0)
		return jail_err_sys(e, "%s needs /dev/net/tun (as root: chmod 0666 /dev/net/tun)",
		                    n->helper_name);
	char tmpl[] = "/tmp/jail-net.XXXXXX";
	if (!mkdtemp(tmpl))
		return jail_err_sys(e, "create a temporary directory in /tmp");
	n->rundir = xstrdup(tmpl);
	uint16_t ports[1];
	bool map_host = n->mode != NET_NONE && allow_host_ports(&n->allow, ports, 1) > 0;
	int r = strcmp(n->helper_name, "pasta") == 0 ? start_pasta(n, path, child, map_host, e)
	                                             : start_slirp(n, path, child, map_host, e);
	if (r < 0)
		return -1;
	/* the pid file and the log matter only while the helper sets up (its
	 * last words on failure); gone now, nothing is left in /tmp even if the
	 * supervisor is killed later */
	remove_rundir(n);
	if (map_host)
		find_host_addrs(n, child);
	find_local_addrs(n, child);
	log_debug("network: %s (pid %d) serves the jail", n->helper_name, (int)n->helper);
	return 0;
}


void net_helper_stop(struct net_host *n)
{
	if (n->helper_exit_fd >= 0)
		close(steal_fd(&n->helper_exit_fd));
	if (n->helper > 0) {
		if (strcmp(n->helper_name, "pasta") == 0)
			kill(n->helper, SIGTERM);
		long long deadline = (long long)mono_ms() + 2000;
		while (!helper_exited(n) && (long long)mono_ms() < deadline) {
			struct timespec ts = {0, 5 * 1000000};
			nanosleep(&ts, NULL);
		}
		if (n->helper > 0) {
			kill(n->helper, SIGKILL);
			waitpid(n->helper, NULL, 0);
			n->helper = -1;
		}
	}
	remove_rundir(n);
}
