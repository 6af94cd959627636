/* resolver.c — the event-driven transport of the jail's DNS resolver (see
 * resolver.h). */
#include "resolver.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>

#include "log.h"

#define DNS_BUF 65536
#define MAX_PER_CLIENT 8  /* questions per TCP connection */
#define BURST 64          /* UDP queries taken per wakeup */

struct client {              /* a TCP client of the jail's */
	int fd;              /* -1: free */
	long long since, deadline;
	unsigned char in[2 + RES_MAX_QUERY];
	size_t in_len;
	unsigned char *out;  /* a framed reply being written */
	size_t out_len, out_off;
	bool busy;           /* its question is upstream */
	int served;
};

enum { TO_UDP = -1, TO_NOBODY = -2 };

struct job {                 /* a question upstream */
	bool used;
	int client;          /* a TCP client's slot, TO_UDP or TO_NOBODY */
	struct sockaddr_storage from;
	socklen_t fromlen;
	unsigned char q[RES_MAX_QUERY];
	size_t qlen;
	struct dns_question qq;
	unsigned char up[RES_MAX_QUERY];  /* the rebuilt query sent upstream */
	size_t uplen;
	int fd;
	bool tcp, connecting, resent;
	long long resend_at, deadline;
	unsigned char *buf;  /* TCP: the framed response so far */
	size_t got;
};

enum slot_kind { S_UDP, S_TCP, S_CLIENT, S_JOB };

struct resolver {
	int udp, tcp;
	struct sockaddr_storage upstream;
	socklen_t upstream_len;
	struct resolver_ops ops;
	struct client clients[RES_MAX_TCP];
	struct job jobs[RES_MAX_JOBS];
	enum slot_kind kind[RES_MAX_POLL];
	int idx[RES_MAX_POLL];
	unsigned char reply[DNS_BUF], pkt[DNS_BUF];
};

static void set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		log_warn("dns: make a socket non-blocking: %s", strerror(errno));
}

struct resolver *resolver_new(int udp, int tcp, const struct sockaddr_storage *upstream,
                              socklen_t upstream_len, const struct resolver_ops *ops)
{
	struct resolver *r = xcalloc(1, sizeof(*r));
	r->udp = udp;
	r->tcp = tcp;
	r->upstream = *upstream;
	r->upstream_len = upstream_len;
	r->ops = *ops;
	for (size_t i = 0; i < RES_MAX_TCP; i++)
		r->clients[i].fd = -1;
	set_nonblock(udp);
	set_nonblock(tcp);
	return r;
}

/* ---- TCP clients ---- */

static void client_close(struct resolver *r, int i)
{
	struct client *c = &r->clients[i];
	for (size_t j = 0; j < RES_MAX_JOBS; j++)
		if (r->jobs[j].used && r->jobs[j].client == i)
			r->jobs[j].client = TO_NOBODY;
	close(c->fd);
	free(c->out);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* A free slot, or the one of the oldest client not waiting for upstream. */
static int client_slot(struct resolver *r)
{
	int oldest = -1;
	for (int i = 0; i < RES_MAX_TCP; i++) {
		if (r->clients[i].fd < 0)
			return i;
		if (!r->clients[i].busy &&
		    (oldest < 0 || r->clients[i].since < r->clients[oldest].since))
			oldest = i;
	}
	if (oldest >= 0)
		client_close(r, oldest);
	return oldest;
}

static void accept_clients(struct resolver *r)
{
	for (int n = 0; n < RES_MAX_TCP; n++) {
		int fd = accept4(r->tcp, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		int i = client_slot(r);  /* only now: nobody is evicted for nothing */
		if (i < 0) {
			close(fd);  /* every client waits for upstream: try again */
			return;
		}
		struct client *c = &r->clients[i];
		c->fd = fd;
		c->since = (long long)mono_ms();
		c->deadline = c->since + RES_CLIENT_MS;
	}
}

static void client_reply(struct resolver *r, int i, const unsigned char *msg, size_t len)
{
	struct client *c = &r->clients[i];
	c->out = xmalloc(len + 2);
	c->out[0] = (unsigned char)(len >> 8);
	c->out[1] = (unsigned char)len;
	memcpy(c->out + 2, msg, len);
	c->out_len = len + 2;
	c->out_off = 0;
	c->busy = false;
	c->deadline = (long long)mono_ms() + RES_CLIENT_MS;  /* to take the reply */
}

static void client_write(struct resolver *r, int i)
{
	struct client *c = &r->clients[i];
	ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
	if (w < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (w <= 0) {
		client_close(r, i);
		return;
	}
	if ((c->out_off += (size_t)w) < c->out_len)
		return;
	free(c->out);
	c->out = NULL;
	c->in_len = 0;
	if (++c->served >= MAX_PER_CLIENT)
		client_close(r, i);
}

static void query(struct resolver *r, int client, const unsigned char *pkt, size_t len,
                  const struct sockaddr_storage *from, socklen_t fromlen);

static void client_read(struct resolver *r, int i)
{
	struct client *c = &r->clients[i];
	size_t want = c->in_len < 2 ? 2 : 2 + (size_t)(c->in[0] << 8 | c->in[1]);
	ssize_t got = recv(c->fd, c->in + c->in_len, want - c->in_len, 0);
	if (got < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (got <= 0) {
		client_close(r, i);
		return;
	}
	c->in_len += (size_t)got;
	if (c->in_len == 2) {
		size_t len = (size_t)(c->in[0] << 8 | c->in[1]);
		if (len < DNS_HEADER || len > RES_MAX_QUERY)
			client_close(r, i);  /* no query is that size */
		return;
	}
	if (c->in_len == want) {
		c->busy = true;  /* until its reply is queued */
		query(r, i, c->in + 2, c->in_len - 2, NULL, 0);
	}
}

/* ---- upstream ---- */

static struct job *job_new(struct resolver *r)
{
	for (size_t j = 0; j < RES_MAX_JOBS; j++)
		if (!r->jobs[j].used) {
			struct job *job = &r->jobs[j];
			memset(job, 0, sizeof(*job));
			job->used = true;
			job->fd = -1;
			return job;
		}
	return NULL;
}

static int upstream_socket(struct resolver *r, struct job *job, bool tcp)
{
	if (job->fd >= 0)
		close(steal_fd(&job->fd));
	job->tcp = tcp;
	job->fd = socket(r->upstream.ss_family,
	                 (tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (job->fd < 0)
		return -1;
	if (connect(job->fd, (const struct sockaddr *)&r->upstream, r->upstream_len) < 0 &&
	    !(tcp && errno == EINPROGRESS))
		return -1;
	job->connecting = tcp;  /* its first POLLOUT sends the query */
	return tcp || send(job->fd, job->up, job->uplen, 0) >= 0 ? 0 : -1;
}

/* Does resp answer our rebuilt query (same id, same question)? */
static bool answers(const unsigned char *resp, size_t len, const struct job *job)
{
	struct dns_question a;
	return dns_parse_response(resp, len, &a) == 0 && a.id == job->qq.id &&
	       a.qtype == job->qq.qtype && a.qclass == job->qq.qclass &&
	       strcmp(a.name, job->qq.name) == 0;
}

static void deliver(struct resolver *r, struct job *job, size_t n)
{
	if (n && job->client == TO_UDP) {
		if (n > dns_udp_limit(&job->qq))
			n = dns_build_truncated(job->q, &job->qq, r->reply, sizeof(r->reply));
		if (n && sendto(r->udp, r->reply, n, 0, (struct sockaddr *)&job->from,
		                job->fromlen) < 0)
			log_debug("dns: reply to the jail: %s", strerror(errno));
	} else if (job->client >= 0) {
		if (n)
			client_reply(r, job->client, r->reply, n);
		else
			client_close(r, job->client);
	}
}

/* The job is done: resp is the upstream response (NULL: none). */
static void job_done(struct resolver *r, struct job *job, unsigned char *resp, size_t rlen)
{
	job->qq.id = (uint16_t)(job->q[0] << 8 | job->q[1]);  /* the client's again */
	size_t n = r->ops.finish(r->ops.arg, &job->qq, job->q, resp, rlen, r->reply,
	                         sizeof(r->reply));
	if (n >= 2) {
		r->reply[0] = job->q[0];
		r->reply[1] = job->q[1];
	}
	deliver(r, job, n);
	if (job->fd >= 0)
		close(job->fd);
	free(job->buf);
	memset(job, 0, sizeof(*job));
	job->fd = -1;
}

static void job_start(struct resolver *r, struct job *job)
{
	uint16_t id;
	if (getrandom(&id, sizeof(id), 0) != sizeof(id)) {
		job_done(r, job, NULL, 0);
		return;
	}
	job->qq.id = id;  /* our own id upstream, the client's goes back */
	job->uplen = dns_build_upstream(&job->qq, id, job->up, sizeof(job->up));
	long long now = (long long)mono_ms();
	job->deadline = now + RES_UPSTREAM_MS;
	job->resend_at = now + RES_UPSTREAM_MS / 2;
	if (!job->uplen || upstream_socket(r, job, job->client != TO_UDP) < 0)
		job_done(r, job, NULL, 0);
}

static void query(struct resolver *r, int client, const unsigned char *pkt, size_t len,
                  const struct sockaddr_storage *from, socklen_t fromlen)
{
	struct dns_question qq;
	if (len > RES_MAX_QUERY || dns_parse_query(pkt, len, &qq) < 0) {
		if (client >= 0)
			client_close(r, client);  /* malformed: dropped */
		return;
	}
	size_t n = r->ops.decide(r->ops.arg, &qq, pkt, r->reply, sizeof(r->reply));
	struct job *job = n ? NULL : job_new(r);
	if (n || !job) {
		if (!n)  /* no room upstream: the client retries */
			n = dns_build_answer(pkt, &qq, DNS_RCODE_SERVFAIL, NULL, 0, r->reply,
			                     sizeof(r->reply));
		struct job tmp = {.client = client, .qq = qq, .fromlen = fromlen};
		if (from)
			tmp.from = *from;
		memcpy(tmp.q, pkt, len);
		deliver(r, &tmp, n);
		return;
	}
	job->client = client;
	if (from)
		job->from = *from;
	job->fromlen = fromlen;
	memcpy(job->q, pkt, len);
	job->qlen = len;
	job->qq = qq;
	job_start(r, job);
}

static void serve_udp(struct resolver *r)
{
	for (int i = 0; i < BURST; i++) {
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		ssize_t len = recvfrom(r->udp, r->pkt, sizeof(r->pkt), 0, (struct sockaddr *)&from,
		                       &fl);
		if (len < 0)
			return;
		query(r, TO_UDP, r->pkt, (size_t)len, &from, fl);
	}
}

/* TCP upstream: connected → send the framed query; then read the reply. */
static void job_tcp(struct resolver *r, struct job *job, short revents)
{
	if (job->connecting) {
		if (!(revents & (POLLOUT | POLLERR | POLLHUP)))
			return;
		int err = 0;
		socklen_t el = sizeof(err);
		unsigned char framed[2 + RES_MAX_QUERY];
		framed[0] = (unsigned char)(job->uplen >> 8);
		framed[1] = (unsigned char)job->uplen;
		memcpy(framed + 2, job->up, job->uplen);
		job->connecting = false;
		if (getsockopt(job->fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err ||
		    send(job->fd, framed, job->uplen + 2, MSG_NOSIGNAL) != (ssize_t)(job->uplen + 2))
			job_done(r, job, NULL, 0);
		return;
	}
	if (!job->buf)
		job->buf = xmalloc(DNS_BUF + 2);
	size_t want = job->got < 2 ? 2 : 2 + (size_t)(job->buf[0] << 8 | job->buf[1]);
	ssize_t got = recv(job->fd, job->buf + job->got, want - job->got, 0);
	if (got < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (got <= 0) {
		job_done(r, job, NULL, 0);
		return;
	}
	if ((job->got += (size_t)got) == want && want > 2) {
		bool ok = answers(job->buf + 2, want - 2, job);
		job_done(r, job, ok ? job->buf + 2 : NULL, ok ? want - 2 : 0);
	}
}

static void job_udp(struct resolver *r, struct job *job)
{
	for (;;) {
		ssize_t len = recv(job->fd, r->pkt, sizeof(r->pkt), 0);
		if (len < 0)
			return;  /* EAGAIN, or an ICMP error: the deadline decides */
		if (!answers(r->pkt, (size_t)len, job))
			continue;  /* stray or spoofed: keep waiting */
		if (r->pkt[2] & 0x02) {  /* TC: ask again over TCP */
			job->deadline = (long long)mono_ms() + RES_UPSTREAM_MS;
			if (upstream_socket(r, job, true) < 0)
				job_done(r, job, NULL, 0);
			return;
		}
		job_done(r, job, r->pkt, (size_t)len);
		return;
	}
}

/* ---- the loop ---- */

size_t resolver_pollfds(struct resolver *r, struct pollfd *p)
{
	size_t n = 0;
	bool room = false, can_accept = false;
	for (size_t j = 0; j < RES_MAX_JOBS; j++) {
		struct job *job = &r->jobs[j];
		if (!job->used) {
			room = true;
			continue;
		}
		p[n] = (struct pollfd){job->fd, job->connecting ? POLLOUT : POLLIN, 0};
		r->kind[n] = S_JOB;
		r->idx[n++] = (int)j;
	}
	for (size_t i = 0; i < RES_MAX_TCP; i++) {
		struct client *c = &r->clients[i];
		can_accept |= c->fd < 0 || !c->busy;
		if (c->fd < 0 || (c->busy && !c->out))
			continue;
		p[n] = (struct pollfd){c->fd, c->out ? POLLOUT : POLLIN, 0};
		r->kind[n] = S_CLIENT;
		r->idx[n++] = (int)i;
	}
	/* full tables leave new queries in the kernel's queues */
	if (room) {
		p[n] = (struct pollfd){r->udp, POLLIN, 0};
		r->kind[n++] = S_UDP;
	}
	if (can_accept) {
		p[n] = (struct pollfd){r->tcp, POLLIN, 0};
		r->kind[n++] = S_TCP;
	}
	return n;
}

static void expire(struct resolver *r)
{
	long long now = (long long)mono_ms();
	for (size_t j = 0; j < RES_MAX_JOBS; j++) {
		struct job *job = &r->jobs[j];
		if (!job->used)
			continue;
		if (now >= job->deadline)
			job_done(r, job, NULL, 0);
		else if (!job->tcp && !job->resent && now >= job->resend_at) {
			job->resent = true;  /* one more try over UDP */
			if (send(job->fd, job->up, job->uplen, 0) < 0)
				log_debug("dns: resend upstream: %s", strerror(errno));
		}
	}
	for (int i = 0; i < RES_MAX_TCP; i++)
		if (r->clients[i].fd >= 0 && !r->clients[i].busy && now >= r->clients[i].deadline)
			client_close(r, i);
}

void resolver_handle(struct resolver *r, const struct pollfd *p, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		if (!p[k].revents)
			continue;
		int i = r->idx[k];
		switch (r->kind[k]) {
		case S_UDP:
			serve_udp(r);
			break;
		case S_TCP:
			accept_clients(r);
			break;
		case S_CLIENT:  /* still the same client: slots are only freed below */
			if (r->clients[i].fd != p[k].fd)
				break;
			if (r->clients[i].out)
				client_write(r, i);
			else if (!r->clients[i].busy)
				client_read(r, i);
			break;
		case S_JOB:
			if (!r->jobs[i].used || r->jobs[i].fd != p[k].fd)
				break;
			if (r->jobs[i].tcp)
				job_tcp(r, &r->jobs[i], p[k].revents);
			else
				job_udp(r, &r->jobs[i]);
			break;
		default:
			break;
		}
	}
	expire(r);
}

int resolver_timeout_ms(const struct resolver *r)
{
	long long next = -1, now = (long long)mono_ms();
	for (size_t j = 0; j < RES_MAX_JOBS; j++) {
		const struct job *job = &r->jobs[j];
		if (!job->used)
			continue;
		long long t = !job->tcp && !job->resent ? job->resend_at : job->deadline;
		if (next < 0 || t < next)
			next = t;
	}
	for (size_t i = 0; i < RES_MAX_TCP; i++) {
		const struct client *c = &r->clients[i];
		if (c->fd >= 0 && !c->busy && (next < 0 || c->deadline < next))
			next = c->deadline;
	}
	if (next < 0)
		return -1;
	return next <= now ? 0 : (int)(next - now > 60000 ? 60000 : next - now);
}

void resolver_free(struct resolver *r)
{
	if (!r)
		return;
	for (size_t j = 0; j < RES_MAX_JOBS; j++)
		if (r->jobs[j].used) {
			if (r->jobs[j].fd >= 0)
				close(r->jobs[j].fd);
			free(r->jobs[j].buf);
		}
	for (int i = 0; i < RES_MAX_TCP; i++)
		if (r->clients[i].fd >= 0)
			client_close(r, i);
	free(r);
}
