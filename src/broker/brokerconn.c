/* brokerconn.c — the broker's listener and relay: one thread accepts on the
 * socket init made in the jail's netns; each connection gets a thread that
 * finishes the jail's TLS handshake, opens the verified upstream, and relays
 * with non-blocking sockets and one poll loop: requests through the rewriter
 * (brokerhttp.c), responses as they arrive with any real value in them
 * replaced by its placeholder (brokerscrub.h, through a chunked body's
 * framing: brokerresp.h; SSE streams are never held back).  A connection whose both ends chose HTTP/2 goes to
 * brokerh2.c instead. */
#include "brokerpriv.h"
#include "brokerresp.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#define HANDSHAKE_TIMEOUT_S 30
#define BUF 16384
#define LINGER_MS 2000
#define SCRUB_WAIT_MS 200  /* how long held response bytes wait for more */

/* ---- one TLS end, non-blocking ---- */

ssize_t brokerconn_read(struct tls_end *t, char *buf, size_t cap)
{
	size_t n = 0;
	if (t->stash_off < t->stash_len) {  /* a spare's h2 setup, read already (brokerspare.c) */
		n = t->stash_len - t->stash_off < cap ? t->stash_len - t->stash_off : cap;
		memcpy(buf, t->stash + t->stash_off, n);
		t->stash_off += n;
		return (ssize_t)n;
	}
	if (SSL_read_ex(t->ssl, buf, cap, &n) == 1)
		return (ssize_t)n;
	int err = SSL_get_error(t->ssl, 0);
	ERR_clear_error();
	if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE)
		return 0;
	t->eof = true;
	return -1;
}

/* All of it, waiting as the peer reads (the other direction waits too). */
static int end_write(struct tls_end *t, const char *buf, size_t len)
{
	while (len) {
		size_t n = 0;
		if (SSL_write_ex(t->ssl, buf, len, &n) == 1) {
			buf += n;
			len -= n;
			continue;
		}
		int err = SSL_get_error(t->ssl, 0);
		ERR_clear_error();
		if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE)
			return -1;
		struct pollfd p = {t->fd, err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, 0};
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			return -1;
	}
	return 0;
}

int brokerconn_blocking(int fd, bool block)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return -1;
	return fcntl(fd, F_SETFL, block ? fl & ~O_NONBLOCK : fl | O_NONBLOCK) < 0 ? -1 : 0;
}

/* Closing with the request unread would reset the connection, and the
 * client would lose the answer: stop sending, then read what still comes
 * (for a short while). */
static void linger_close(struct tls_end *t)
{
	SSL_shutdown(t->ssl);
	if (shutdown(t->fd, SHUT_WR) < 0)
		return;
	char junk[4096];
	for (int i = 0; i < 64; i++) {
		struct pollfd p = {t->fd, POLLIN, 0};
		if (poll(&p, 1, LINGER_MS) <= 0 || recv(t->fd, junk, sizeof(junk), MSG_DONTWAIT) <= 0)
			return;
	}
}

/* A plain answer to the jail when the request cannot go on. */
static void answer(struct tls_end *t, int status, const char *why)
{
	_cleanup_free_ char *body = xasprintf("jail broker: %s\n", why);
	_cleanup_free_ char *msg = xasprintf("HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
	                                     "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
	                                     status, status == 502 ? "Bad Gateway" : status == 421 ? "Misdirected Request"
	                                     : "Bad Request",
	                                     strlen(body), body);
	if (end_write(t, msg, strlen(msg)) == 0)
		linger_close(t);
}

/* ---- the relay ---- */

static void on_report(void *arg, const char *name, const char *where)
{
	struct conn *c = arg;
	broker_report(c->b, c->host->name, name, where);
}

static void on_withhold(void *arg, const char *name, const char *request)
{
	struct conn *c = arg;
	broker_withheld(c->b, name, request);
}

/* jail → upstream through the rewriter; -1 ends the connection */
static int pump_request(struct conn *c, struct reqp *rq, char *buf)
{
	ssize_t n = brokerconn_read(&c->jail, buf, BUF);
	if (n <= 0)
		return n < 0 ? 1 : 0;
	struct strbuf out = {0};
	unsigned long before = rq->carried;
	int r = reqp_feed(rq, buf, (size_t)n, &out);
	if (r == 0 && out.len)
		r = end_write(&c->up, out.s, out.len);
	if (out.s)
		explicit_bzero(out.s, out.cap);
	sb_free(&out);
	if (rq->carried > before)
		broker_count(c->b, c->host, rq->carried - before);
	if (r < 0 && rq->status) {
		broker_warn(c->b, "broker: a request to %s refused: %s", c->host->name, rq->err);
		answer(&c->jail, rq->status, rq->err);
	}
	return r < 0 ? -1 : 0;
}

/* What the scrubber passes on (brokerscrub.h), to the jail; -1 (the
 * connection ends) once it saw a guess of a secret's value, or the response
 * could not be read on (brokerresp.h). */
static int write_scrubbed(struct conn *c, const struct resp *rs, struct strbuf *out)
{
	if (resp_cut(rs)) {
		broker_guessed(c->b, c->host->name, rs->sc.cut_cred);
		out->len = 0;
	}
	int r = out->len ? end_write(&c->jail, out->s, out->len) : resp_cut(rs) ? -1 : 0;
	if (out->s)
		explicit_bzero(out->s, out->cap);
	sb_free(out);
	if (r == 0 && resp_broken(rs)) {
		broker_warn(c->b, "broker: an answer from %s could not be read to its end (a head over "
		            "64 KiB, a transfer coding other than chunked, a content coding, or bad "
		            "chunk framing): its connection was cut there", c->host->name);
		return -1;
	}
	return r;
}

/* The upstream's bytes, its real values replaced; at its end what was held. */
static int pump_response(struct conn *c, struct resp *rs, char *buf)
{
	struct strbuf out = {0};
	ssize_t n = brokerconn_read(&c->up, buf, BUF);
	if (n < 0) {
		resp_flush(rs, &out);
		return write_scrubbed(c, rs, &out) < 0 ? -1 : 1;
	}
	resp_feed(rs, buf, (size_t)n, &out);
	return write_scrubbed(c, rs, &out);
}

/* The upstream answered the jail's Upgrade request: on to the new protocol
 * (what the jail sent meanwhile, first) or to the connection's end. */
static int forward_upgrade(struct conn *c, struct reqp *rq, const struct resp *rs)
{
	struct strbuf out = {0};
	reqp_answered(rq, rs->status == 101, &out);
	int r = out.len ? end_write(&c->up, out.s, out.len) : 0;
	sb_free(&out);
	return r;
}

static void relay(struct conn *c)
{
	struct broker_cred creds[BROKER_MAX_SECRETS];
	struct reqp rq;
	reqp_init(&rq, c->host->name, creds, broker_creds(c->b, c->host->name, creds));
	rq.report = on_report;
	rq.withhold = on_withhold;
	rq.arg = c;
	struct resp rs;
	resp_init(&rs, creds, rq.n_creds);
	char buf[BUF];
	for (;;) {
		/* decrypted bytes OpenSSL holds already: no poll would wake for them */
		if (!SSL_has_pending(c->jail.ssl) && !SSL_has_pending(c->up.ssl)) {
			/* fd -1: a closed jail side would report POLLHUP forever */
			struct pollfd p[2] = {{c->jail.eof ? -1 : c->jail.fd, POLLIN, 0},
			                      {c->up.fd, POLLIN, 0}};
			int pr = poll(p, 2, resp_held(&rs) ? SCRUB_WAIT_MS : -1);
			if (pr < 0 && errno != EINTR)
				break;
			/* a stream paused where a real value might begin (a WebSocket
			 * message): what was held goes, so no exchange waits on it
			 * (but for a possible value too long to tell: brokerscrub.h) */
			if (pr == 0) {
				struct strbuf out = {0};
				resp_pause(&rs, &out);
				if (write_scrubbed(c, &rs, &out) < 0)
					break;
				continue;
			}
		}
		int r = c->jail.eof ? 0 : pump_request(c, &rq, buf);
		if (r < 0)
			break;
		if (r > 0) /* the jail is done sending; the response may still come */
			SSL_shutdown(c->up.ssl);
		rs.head_request = rq.head_method;
		int w = pump_response(c, &rs, buf);
		if (w == 0 && rq.st == RQ_UPGRADE && rs.status && forward_upgrade(c, &rq, &rs) < 0)
			break;
		/* the upstream closed: so does the jail's side, cleanly, and after
		 * what the client still sends (a pipelined request, dropped): closed
		 * with it unread, the connection would be reset and the answer lost */
		if (w > 0)
			linger_close(&c->jail);
		if (w != 0)
			break;
	}
	explicit_bzero(buf, sizeof(buf));
	resp_free(&rs);
	reqp_free(&rq);
}

/* A failure to reach the upstream is counted and told, unless the session
 * is ending (broker_stop shut the socket down: nothing to tell). */
static void upstream_failed(struct conn *c)
{
	pthread_mutex_lock(&c->b->lock);
	bool stopping = c->b->stopping;
	c->b->refused += !stopping;
	pthread_mutex_unlock(&c->b->lock);
	if (!stopping)
		broker_warn(c->b, "broker: %s: %s; nothing was sent there", c->host->name, c->why);
}

void brokerconn_upstream_begin(struct conn *c, bool h2)
{
	c->up_tried = true;
	c->up_offered_h2 = h2;
	if (brokerspare_take(c, h2))
		return;
	if (brokertls_start(c, h2) < 0)
		upstream_failed(c);
	else
		c->up_pending = true;
}

static void upstream_finish(struct conn *c)
{
	if (!c->up_pending)
		return;
	c->up_pending = false;
	if (brokertls_finish(c) < 0)
		upstream_failed(c);
}

void brokerconn_upstream(struct conn *c, bool h2)
{
	brokerconn_upstream_begin(c, h2);
	upstream_finish(c);
}

int brokerconn_known(struct conn *c)
{
	pthread_mutex_lock(&c->b->lock);
	int p = c->host->proto;
	pthread_mutex_unlock(&c->b->lock);
	return p;
}

static void remember(struct conn *c, int proto)
{
	pthread_mutex_lock(&c->b->lock);
	c->host->proto = proto;
	pthread_mutex_unlock(&c->b->lock);
}

int brokerconn_track(struct conn *c, int fd)
{
	struct broker *b = c->b;
	pthread_mutex_lock(&b->lock);
	if (c->slot >= 0) {
		b->conns[c->slot][1] = fd;
	} else {  /* a spare being made (brokerspare.c) */
		c->host->making_fd = fd;
	}
	bool stopping = b->stopping;
	if (stopping && fd >= 0)
		shutdown(fd, SHUT_RDWR);
	pthread_mutex_unlock(&b->lock);
	if (stopping)
		errno = ECANCELED;
	return stopping ? -1 : 0;
}

/* The upstream's answer against the one the jail got.  An upstream that now
 * chose otherwise than the session remembered, or failed, is forgotten; a
 * jail answered h2 from memory gets no HTTP/1.1 502 then, its connection is
 * closed (the warning says why) and the next one asks the upstream afresh. */
static int upstream_check(struct conn *c)
{
	if (!c->up_tried)  /* a client without ALPN: HTTP/1.1 */
		brokerconn_upstream(c, false);
	if (c->up.ssl && c->up_h2 == c->h2) {
		if (c->up_offered_h2)
			remember(c, c->up_h2 ? BROKER_PROTO_H2 : BROKER_PROTO_H1);
		return 0;
	}
	remember(c, BROKER_PROTO_UNKNOWN);
	if (c->up.ssl)
		broker_warn(c->b, "broker: %s chose %s this time, not %s as before: one connection "
		            "closed, the next asks it afresh", c->host->name,
		            c->up_h2 ? "h2" : "http/1.1", c->h2 ? "h2" : "http/1.1");
	if (c->h2) {
		linger_close(&c->jail);  /* its request unread: closed at once, it would be reset */
	} else {
		_cleanup_free_ char *msg = xasprintf("upstream %s refused: %s", c->host->name, c->why);
		answer(&c->jail, 502, msg);
	}
	return -1;
}

static int handshake(struct conn *c)
{
	struct timeval tv = {.tv_sec = HANDSHAKE_TIMEOUT_S};
	(void)setsockopt(c->jail.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(c->jail.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	c->jail.ssl = SSL_new(c->b->server);
	/* the ALPN callback (brokertls.c) opens the upstream through c */
	if (!c->jail.ssl || !SSL_set_ex_data(c->jail.ssl, 0, c) || !SSL_set_fd(c->jail.ssl, c->jail.fd) ||
	    SSL_accept(c->jail.ssl) != 1) {
		ERR_clear_error();
		return -1;  /* a name not brokered, or a client that gave up: its own error says */
	}
	upstream_finish(c);  /* begun in the ALPN callback: its answer came meanwhile */
	/* the name the upstream was opened for, if it was (brokertls.c) */
	struct broker_host *h = brokertls_host(c->b, c->jail.ssl);
	if (!h || (c->host && c->host != h))
		return -1;
	c->host = h;
	if (upstream_check(c) < 0)
		return -1;
	brokerspare_make(c);  /* for the host's next connection */
	return brokerconn_blocking(c->jail.fd, false) < 0 || brokerconn_blocking(c->up.fd, false) < 0
	       ? -1 : 0;
}

static void conn_end(struct conn *c)
{
	struct broker *b = c->b;
	SSL_free(c->jail.ssl);
	SSL_free(c->up.ssl);
	free(c->up.stash);
	pthread_mutex_lock(&b->lock);
	if (c->up.fd >= 0)
		close(c->up.fd);
	close(c->jail.fd);
	b->conns[c->slot][0] = b->conns[c->slot][1] = -1;
	if (--b->n_conns == 0)
		pthread_cond_broadcast(&b->idle);
	pthread_mutex_unlock(&b->lock);
	free(c);
}

static void *conn_main(void *arg)
{
	struct conn *c = arg;
	if (handshake(c) == 0) {
		if (c->h2)
			brokerh2_relay(c);
		else
			relay(c);
	}
	conn_end(c);
	return NULL;
}

/* ---- the listener ---- */

static void spawn_conn(void *ctx, int fd)
{
	struct broker *b = ctx;
	pthread_mutex_lock(&b->lock);
	int slot = -1;
	for (int i = 0; i < BROKER_MAX_CONNS && slot < 0; i++)
		if (b->conns[i][0] < 0)
			slot = i;
	if (slot < 0) {
		pthread_mutex_unlock(&b->lock);
		broker_warn(b, "broker: more than %d connections at once; one refused", BROKER_MAX_CONNS);
		close(fd);
		return;
	}
	b->conns[slot][0] = fd;
	b->n_conns++;
	pthread_mutex_unlock(&b->lock);
	struct conn *c = xcalloc(1, sizeof(*c));
	*c = (struct conn){.b = b, .slot = slot, .jail = {fd, NULL, false}, .up = {-1, NULL, false}};
	int r = thread_detached(conn_main, c);
	if (r != 0) {
		log_warn("broker: start a connection thread: %s", strerror(r));
		conn_end(c);
	}
}

static void *accept_main(void *arg)
{
	struct broker *b = arg;
	/* OpenSSL writes with plain write(): the accept loop blocks SIGPIPE for
	 * this thread and the connection threads it starts */
	accept_until_stopped(b->stop[0], b->listen_fd, "broker", spawn_conn, b);
	return NULL;
}

int broker_start(struct broker *b, int listen_fd, struct jail_err *e)
{
	b->listen_fd = listen_fd;
	if (brokerconn_blocking(listen_fd, false) < 0)
		return jail_err_sys(e, "broker: make the listener non-blocking");
	if (pipe2(b->stop, O_CLOEXEC) < 0)
		return jail_err_sys(e, "pipe");
	int r = pthread_create(&b->thread, NULL, accept_main, b);
	if (r != 0)
		return jail_err_set(e, r, "start the broker's thread");
	b->running = true;
	return 0;
}

void broker_stop(struct broker *b, bool quiet)
{
	if (!b)
		return;
	if (b->running) {
		if (write_all(b->stop[1], "x", 1) < 0)
			log_warn("stop the broker: %s", strerror(errno));
		pthread_join(b->thread, NULL);
		b->running = false;
		/* the jail is gone: end what is still open, and wait for those threads */
		pthread_mutex_lock(&b->lock);
		b->stopping = true;
		for (int i = 0; i < BROKER_MAX_CONNS; i++)
			for (int k = 0; k < 2; k++)
				if (b->conns[i][k] >= 0)
					shutdown(b->conns[i][k], SHUT_RDWR);
		for (size_t i = 0; i < b->n_host; i++)  /* spares being made end as promptly */
			if (b->host[i].making_fd >= 0)
				shutdown(b->host[i].making_fd, SHUT_RDWR);
		while (b->n_conns || b->n_making)
			pthread_cond_wait(&b->idle, &b->lock);
		pthread_mutex_unlock(&b->lock);
		brokerspare_close_all(b);
	}
	for (int i = 0; i < 2; i++)
		if (b->stop[i] >= 0)
			close(steal_fd(&b->stop[i]));
	if (b->listen_fd >= 0)
		close(steal_fd(&b->listen_fd));
	broker_summary(b, quiet);
}
