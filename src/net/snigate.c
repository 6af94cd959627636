/* snigate.c — the SNI gate (snigate.h): one thread accepts on the listener
 * init made; each connection gets a thread that reads the ClientHello (at
 * most TLSHELLO_MAX bytes within GATE_HELLO_MS), checks its name, connects
 * upstream, sends the ClientHello alone, checks a second one after a TLS 1.3
 * HelloRetryRequest (check_retry), and relays with non-blocking
 * sockets in one poll loop, a bounded buffer each way, each direction
 * closed on its own (half-close).  Every wait also watches the stop pipe,
 * which stays readable once written: snigate_stop ends them all at once. */
#include "snigate.h"

#include "acceptor.h"

#include "allow.h"
#include "log.h"
#include "tlshello.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define RELAY_BUF TLSHELLO_MAX   /* the first flow starts with the ClientHello */

struct snigate {
	int listen_fd;
	int stop[2];
	pthread_t thread;
	bool running;
	struct snigate_ops ops;
	bool quiet;
	pthread_mutex_t lock;
	pthread_cond_t idle;
	size_t n_conns;              /* under lock */
	unsigned long refused;       /* under lock */
	char last_line[300];         /* under lock: a retrying client gets one line a second */
	time_t last_time;
};

/* One direction of a relayed connection. */
struct flow {
	int from, to;
	unsigned char buf[RELAY_BUF];
	size_t len, off;
	bool eof;                    /* from sent all it will */
	bool shut;                   /* ... and to was told (SHUT_WR) */
};

struct gate_conn {
	struct snigate *g;
	int jail, up;
	unsigned char hello[TLSHELLO_MAX];
	size_t hello_len, hello_end; /* read so far; the end of the ClientHello's records */
	char sni[TLSHELLO_NAME_MAX];
	bool retried;                /* the server sent a HelloRetryRequest */
	struct flow out, in;         /* jail → upstream, upstream → jail */
};

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ? -1 : 0;
}

/* One line per refusal, like the ruleset's "blocked" lines. */
static void PRINTF(2, 3) refuse(struct snigate *g, const char *fmt, ...)
{
	char line[sizeof(g->last_line)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&g->lock);
	g->refused++;
	time_t now = time(NULL);
	bool again = strcmp(line, g->last_line) == 0 && now - g->last_time < 1;
	snprintf(g->last_line, sizeof(g->last_line), "%s", line);
	g->last_time = now;
	pthread_mutex_unlock(&g->lock);
	if (!g->quiet && !again)
		log_info("%s", line);
}

/* Wait for fd (events) or the stop pipe until deadline (mono_ms; <0: none):
 * 1 ready, 0 timed out, -1 stopping or failed. */
static int wait_fd(struct snigate *g, int fd, short events, double deadline)
{
	for (;;) {
		int ms = -1;
		if (deadline >= 0) {
			double left = deadline - mono_ms();
			if (left <= 0)
				return 0;
			ms = (int)left + 1;
		}
		struct pollfd p[2] = {{g->stop[0], POLLIN, 0}, {fd, events, 0}};
		int r = poll(p, 2, ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || p[0].revents)
			return -1;
		if (p[1].revents)
			return 1;
	}
}

/* What c->hello holds so far, as a ClientHello: its name into c->sni and
 * c->hello_end past it; after a retry request, change_cipher_spec records
 * may come first. */
static enum tlshello_result parse_hello(struct gate_conn *c, const char **why)
{
	size_t skip = 0, end;
	if (c->retried && tlshello_skip_ccs(c->hello, c->hello_len, &skip) == TLSHELLO_MORE)
		return TLSHELLO_MORE;
	enum tlshello_result r = tlshello_sni_end(c->hello + skip, c->hello_len - skip, c->sni,
	                                          sizeof(c->sni), why, &end);
	if (r == TLSHELLO_OK)
		c->hello_end = skip + end;
	return r;
}

/* The ClientHello, whole, into c->hello (after what it held already) and its
 * name into c->sni: 0, or -1 after the refusal is told. */
static int read_hello(struct gate_conn *c)
{
	double deadline = mono_ms() + GATE_HELLO_MS;
	const char *why = "";
	enum tlshello_result r = c->hello_len ? parse_hello(c, &why) : TLSHELLO_MORE;
	while (r == TLSHELLO_MORE) {
		int w = wait_fd(c->g, c->jail, POLLIN, deadline);
		if (w < 0)
			return -1;
		if (w == 0) {
			refuse(c->g, "blocked a connection to the TLS gate: no ClientHello in %d s",
			       GATE_HELLO_MS / 1000);
			return -1;
		}
		ssize_t n = recv(c->jail, c->hello + c->hello_len, sizeof(c->hello) - c->hello_len, 0);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			return -1;  /* the client gave up: nothing to tell */
		c->hello_len += (size_t)n;
		r = parse_hello(c, &why);
	}
	if (r == TLSHELLO_BAD) {
		refuse(c->g, "blocked a connection to the TLS gate: %s", why);
		return -1;
	}
	return 0;
}

/* One line naming the host a ClientHello named. */
static void refuse_name(struct gate_conn *c)
{
	_cleanup_free_ char *esc = escape_name(c->sni);
	refuse(c->g, "blocked tls to %s through the TLS gate (SNI not allowed on port 443)", esc);
}

/* The ClientHello's name, if the policy lets it through the gate. */
static int check_name(struct gate_conn *c)
{
	char norm[TLSHELLO_NAME_MAX];
	snprintf(norm, sizeof(norm), "%s", c->sni);
	if (allow_normalize_name(norm) && c->g->ops.allowed(c->g->ops.arg, norm)) {
		memcpy(c->sni, norm, sizeof(norm));
		return 0;
	}
	refuse_name(c);
	return -1;
}

/* A TCP connection to a:443, within GATE_CONNECT_MS; -1 with why. */
static int connect_one(struct gate_conn *c, const struct dns_addr *a, char *why, size_t cap)
{
	struct sockaddr_storage ss = {0};
	socklen_t len;
	if (a->family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;
		*in = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons(GATE_PORT)};
		memcpy(&in->sin_addr, a->addr, 4);
		len = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
		*in6 = (struct sockaddr_in6){.sin6_family = AF_INET6, .sin6_port = htons(GATE_PORT)};
		memcpy(&in6->sin6_addr, a->addr, 16);
		len = sizeof(*in6);
	}
	_cleanup_close_ int fd = socket(a->family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || (connect(fd, (struct sockaddr *)&ss, len) < 0 && errno != EINPROGRESS)) {
		snprintf(why, cap, "%s", strerror(errno));
		return -1;
	}
	int w = wait_fd(c->g, fd, POLLOUT, mono_ms() + GATE_CONNECT_MS);
	int err = 0;
	socklen_t elen = sizeof(err);
	if (w <= 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0 || err) {
		snprintf(why, cap, "%s", w < 0 ? "the session ended" : w == 0 ? "timed out"
		         : strerror(err ? err : errno));
		return -1;
	}
	return steal_fd(&fd);
}

static int connect_upstream(struct gate_conn *c)
{
	struct dns_addr addrs[GATE_MAX_ADDRS];
	char why[128] = "";
	size_t n = c->g->ops.resolve(c->g->ops.arg, c->sni, addrs, GATE_MAX_ADDRS, why, sizeof(why));
	for (size_t i = 0; i < n && c->up < 0; i++)
		c->up = connect_one(c, &addrs[i], why, sizeof(why));
	if (c->up >= 0)
		return 0;
	if (!c->g->quiet)
		log_warn("TLS gate: %s: cannot connect (%s)", c->sni, why);
	return -1;
}

/* Send all of buf to fd by deadline: 0, or -1. */
static int send_wait(struct gate_conn *c, int fd, const unsigned char *p, size_t len,
                     double deadline)
{
	while (len) {
		if (wait_fd(c->g, fd, POLLOUT, deadline) <= 0)
			return -1;
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* TLS 1.3's HelloRetryRequest asks the client for a second ClientHello, in
 * the clear, and a front end may pick the site by it as by the first (RFC
 * 8446 4.1.2 has the client keep the name; an agent's own client need not).
 * So the first hello goes up alone, the client's next bytes wait in its
 * socket until the server's first message is in, and after a
 * HelloRetryRequest the next hello must name the same host.  0 with the
 * flows holding what is still to go each way, or -1 (refusal told). */
static int check_retry(struct gate_conn *c)
{
	double deadline = mono_ms() + GATE_HELLO_MS;
	struct flow *in = &c->in;
	enum tlshello_result r = TLSHELLO_MORE;
	if (send_wait(c, c->up, c->hello, c->hello_end, deadline) < 0)
		return -1;
	/* what the client sent after its hello waits with the rest */
	c->hello_len -= c->hello_end;
	memmove(c->hello, c->hello + c->hello_end, c->hello_len);
	while (r == TLSHELLO_MORE && in->len < sizeof(in->buf)) {
		if (wait_fd(c->g, c->up, POLLIN, deadline) <= 0)
			return -1;
		ssize_t n = recv(c->up, in->buf + in->len, sizeof(in->buf) - in->len, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			break;  /* the relay finds the end or the error again */
		in->len += (size_t)n;
		r = tlshello_retry(in->buf, in->len);
	}
	if (r != TLSHELLO_OK) {
		memcpy(c->out.buf, c->hello, c->hello_len);  /* RELAY_BUF == TLSHELLO_MAX */
		c->out.len = c->hello_len;
		return 0;
	}
	if (send_wait(c, c->jail, in->buf, in->len, deadline) < 0)
		return -1;
	in->len = 0;
	char first[TLSHELLO_NAME_MAX], norm[TLSHELLO_NAME_MAX];
	memcpy(first, c->sni, sizeof(first));
	c->retried = true;
	if (read_hello(c) < 0)
		return -1;
	snprintf(norm, sizeof(norm), "%s", c->sni);
	if (!allow_normalize_name(norm) || strcmp(norm, first) != 0) {
		_cleanup_free_ char *esc = escape_name(c->sni);
		refuse(c->g, "blocked tls to %s through the TLS gate (a second ClientHello, after a "
		       "HelloRetryRequest, named another host than %s)", esc, first);
		return -1;
	}
	memcpy(c->out.buf, c->hello, c->hello_len);  /* RELAY_BUF == TLSHELLO_MAX */
	c->out.len = c->hello_len;
	return 0;
}

/* ---- the relay ---- */

/* Move what can move in f now: -1 on an error (the connection ends). */
static int flow_step(struct flow *f, short rev_from, short rev_to)
{
	if (f->len > f->off && rev_to) {
		ssize_t n = send(f->to, f->buf + f->off, f->len - f->off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
		if (n > 0)
			f->off += (size_t)n;
		if (f->off == f->len)
			f->off = f->len = 0;
	}
	if (!f->eof && f->len == 0 && rev_from) {
		ssize_t n = recv(f->from, f->buf, sizeof(f->buf), MSG_DONTWAIT);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
		if (n == 0)
			f->eof = true;
		if (n > 0)
			f->len = (size_t)n;
	}
	if (f->eof && f->len == 0 && !f->shut) {
		f->shut = true;
		if (shutdown(f->to, SHUT_WR) < 0 && errno != ENOTCONN)
			return -1;
	}
	return 0;
}

static short flow_wants(const struct flow *f, int fd)
{
	short ev = 0;
	if (f->from == fd && !f->eof && f->len == 0)
		ev |= POLLIN;
	if (f->to == fd && f->len > f->off)
		ev |= POLLOUT;
	return ev;
}

static void relay(struct gate_conn *c)
{
	while (!(c->out.shut && c->in.shut)) {
		int fds[2] = {c->jail, c->up};
		struct pollfd p[3] = {{c->g->stop[0], POLLIN, 0}};
		for (int i = 0; i < 2; i++) {
			short ev = flow_wants(&c->out, fds[i]) | flow_wants(&c->in, fds[i]);
			p[i + 1] = (struct pollfd){ev ? fds[i] : -1, ev, 0};
		}
		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (p[0].revents)
			return;
		/* revents of an fd: POLLHUP/POLLERR wake either direction, which then
		 * finds out by its recv or send */
		short rj = p[1].revents, ru = p[2].revents;
		if (flow_step(&c->out, rj, ru) < 0 || flow_step(&c->in, ru, rj) < 0)
			return;
	}
}

/* ---- connections and the listener ---- */

static void conn_end(struct gate_conn *c)
{
	struct snigate *g = c->g;
	if (c->up >= 0)
		close(c->up);
	close(c->jail);
	free(c);
	pthread_mutex_lock(&g->lock);
	if (--g->n_conns == 0)
		pthread_cond_broadcast(&g->idle);
	pthread_mutex_unlock(&g->lock);
}

static void *conn_main(void *arg)
{
	struct gate_conn *c = arg;
	c->out = (struct flow){.from = c->jail, .to = c->up};
	c->in = (struct flow){.from = c->up, .to = c->jail};
	if (set_nonblock(c->jail) == 0 && read_hello(c) == 0 && check_name(c) == 0 &&
	    connect_upstream(c) == 0) {
		c->out.to = c->in.from = c->up;
		if (check_retry(c) == 0)
			relay(c);
	}
	conn_end(c);
	return NULL;
}

static void spawn_conn(void *ctx, int fd)
{
	struct snigate *g = ctx;
	pthread_mutex_lock(&g->lock);
	bool full = g->n_conns >= GATE_MAX_CONNS;
	if (!full)
		g->n_conns++;
	pthread_mutex_unlock(&g->lock);
	if (full) {
		refuse(g, "blocked a connection to the TLS gate: more than %d at once",
		       GATE_MAX_CONNS);
		close(fd);
		return;
	}
	struct gate_conn *c = xcalloc(1, sizeof(*c));
	c->g = g;
	c->jail = fd;
	c->up = -1;
	int r = thread_detached(conn_main, c);
	if (r != 0) {
		log_warn("TLS gate: start a connection thread: %s", strerror(r));
		conn_end(c);
	}
}

static void *accept_main(void *arg)
{
	struct snigate *g = arg;
	accept_until_stopped(g->stop[0], g->listen_fd, "TLS gate", spawn_conn, g);
	return NULL;
}

int snigate_start(int listen_fd, const struct snigate_ops *ops, bool quiet,
                  struct snigate **out, struct jail_err *e)
{
	struct snigate *g = xcalloc(1, sizeof(*g));
	*g = (struct snigate){.listen_fd = listen_fd, .stop = {-1, -1}, .ops = *ops, .quiet = quiet};
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->idle, NULL);
	*out = g;  /* snigate_stop cleans up what was started */
	if (set_nonblock(listen_fd) < 0)
		return jail_err_sys(e, "TLS gate: make the listener non-blocking");
	if (pipe2(g->stop, O_CLOEXEC) < 0)
		return jail_err_sys(e, "pipe");
	int r = pthread_create(&g->thread, NULL, accept_main, g);
	if (r != 0)
		return jail_err_set(e, r, "start the TLS gate's thread");
	g->running = true;
	return 0;
}

unsigned long snigate_stop(struct snigate *g)
{
	if (!g)
		return 0;
	if (g->running) {
		if (write_all(g->stop[1], "x", 1) < 0)
			log_warn("stop the TLS gate: %s", strerror(errno));
		pthread_join(g->thread, NULL);
	}
	/* every connection's thread sees the stop pipe readable and ends */
	pthread_mutex_lock(&g->lock);
	while (g->n_conns)
		pthread_cond_wait(&g->idle, &g->lock);
	unsigned long refused = g->refused;
	pthread_mutex_unlock(&g->lock);
	for (int i = 0; i < 2; i++)
		if (g->stop[i] >= 0)
			close(g->stop[i]);
	if (g->listen_fd >= 0)
		close(g->listen_fd);
	pthread_mutex_destroy(&g->lock);
	pthread_cond_destroy(&g->idle);
	free(g);
	return refused;
}
