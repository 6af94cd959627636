/* brokerspare.c — a verified spare upstream connection per brokered host, as
 * browsers preconnect.  Once a connection of the agent's has taken its
 * upstream, one more TLS connection to that host is opened in the background
 * (verified exactly as any: brokertls.c) and kept idle, no HTTP byte sent,
 * for the host's next connection: its wait for the upstream's handshake is
 * gone.  At most one idle spare per host, made only for a host the agent
 * used and only after it did; none counts against the connection slots.
 *
 * A spare is valid while young and while its upstream sent nothing but TLS
 * session tickets, and for h2 the server's own setup frames (SETTINGS,
 * WINDOW_UPDATE, PING), which it sends unprompted: those are kept and given
 * to the nghttp2 session first (brokerconn_read).  Anything else (EOF, an
 * alert, GOAWAY, HTTP/1.1 bytes) means the server is done with it. */
#include "brokerpriv.h"
#include "log.h"

#include <errno.h>
#include <string.h>

#define SPARE_MAX_AGE_S 10.0
#define STASH_MAX 4096  /* a few SETTINGS frames; read by brokerh2.c in one round */

struct maker {
	struct broker *b;
	struct broker_host *h;
	bool h2;
};

static void *make_main(void *arg)
{
	struct maker *m = arg;
	struct broker *b = m->b;
	struct broker_host *h = m->h;
	struct conn c = {.b = b, .slot = -1, .host = h, .jail = {-1, NULL, false, NULL, 0, 0},
	                 .up = {-1, NULL, false, NULL, 0, 0}};
	bool ok = brokertls_start(&c, m->h2) == 0 && brokertls_finish(&c) == 0 &&
	          brokerconn_blocking(c.up.fd, false) == 0;
	ERR_clear_error();
	pthread_mutex_lock(&b->lock);
	h->making = false;
	h->making_fd = -1;
	if (ok && !b->stopping && !h->spare) {
		h->spare = c.up.ssl;
		h->spare_fd = c.up.fd;
		h->spare_h2 = c.up_h2;
		h->spare_born = mono_ms() / 1e3;
		c.up.ssl = NULL;
		c.up.fd = -1;
	}
	if (--b->n_making == 0)
		pthread_cond_broadcast(&b->idle);
	pthread_mutex_unlock(&b->lock);
	SSL_free(c.up.ssl);  /* failed or not wanted: silently, the agent asked for nothing */
	if (c.up.fd >= 0)
		close(c.up.fd);
	free(m);
	return NULL;
}

void brokerspare_make(struct conn *c)
{
	struct broker *b = c->b;
	struct broker_host *h = c->host;
	pthread_mutex_lock(&b->lock);
	bool go = !b->stopping && !h->spare && !h->making;
	bool h2 = h->proto == BROKER_PROTO_H2 || c->up_h2;  /* the offer the host's answer was to */
	if (go) {
		h->making = true;
		b->n_making++;
	}
	pthread_mutex_unlock(&b->lock);
	if (!go)
		return;
	struct maker *m = xcalloc(1, sizeof(*m));
	*m = (struct maker){b, h, h2};
	if (thread_detached(make_main, m) != 0) {  /* no spare: the next connection connects afresh */
		free(m);
		pthread_mutex_lock(&b->lock);
		h->making = false;
		if (--b->n_making == 0)
			pthread_cond_broadcast(&b->idle);
		pthread_mutex_unlock(&b->lock);
	}
}

/* Only h2's connection-level setup frames, whole or the start of one. */
static bool only_setup_frames(const unsigned char *p, size_t len)
{
	for (size_t i = 0; i + 9 <= len;) {
		size_t flen = (size_t)p[i] << 16 | (size_t)p[i + 1] << 8 | p[i + 2];
		unsigned type = p[i + 3];
		if (type != 0x4 && type != 0x6 && type != 0x8)  /* SETTINGS, PING, WINDOW_UPDATE */
			return false;
		i += 9 + flen;
	}
	return true;
}

/* Read what the idle spare got, without blocking: still open and nothing
 * but what may come unprompted (kept in t's stash for h2). */
static bool still_valid(struct tls_end *t, bool h2)
{
	char buf[4096];
	for (;;) {
		size_t n = 0;
		if (SSL_read_ex(t->ssl, buf, sizeof(buf), &n) != 1)
			break;
		if (!h2 || t->stash_len + n > STASH_MAX)
			return false;
		t->stash = xrealloc(t->stash, t->stash_len + n);
		memcpy(t->stash + t->stash_len, buf, n);
		t->stash_len += n;
	}
	int err = SSL_get_error(t->ssl, 0);
	ERR_clear_error();
	return err == SSL_ERROR_WANT_READ &&
	       only_setup_frames((const unsigned char *)t->stash, t->stash_len);
}

bool brokerspare_take(struct conn *c, bool h2)
{
	struct broker *b = c->b;
	struct broker_host *h = c->host;
	pthread_mutex_lock(&b->lock);
	struct tls_end t = {h->spare_fd, h->spare, false, NULL, 0, 0};
	bool spare_h2 = h->spare_h2;
	double born = h->spare_born;
	h->spare = NULL;
	pthread_mutex_unlock(&b->lock);
	if (!t.ssl)
		return false;
	if (spare_h2 == h2 && mono_ms() / 1e3 - born < SPARE_MAX_AGE_S && still_valid(&t, h2) &&
	    brokerconn_track(c, t.fd) == 0) {
		c->up = t;
		c->up_h2 = spare_h2;
		return true;
	}
	brokerconn_track(c, -1);
	SSL_free(t.ssl);
	close(t.fd);
	free(t.stash);
	return false;
}

void brokerspare_close_all(struct broker *b)
{
	pthread_mutex_lock(&b->lock);
	for (size_t i = 0; i < b->n_host; i++) {
		struct broker_host *h = &b->host[i];
		if (h->spare) {
			SSL_free(h->spare);
			close(h->spare_fd);
			h->spare = NULL;
		}
	}
	pthread_mutex_unlock(&b->lock);
}
