/* brokerh2.c — the relay of a brokered connection whose both ends chose
 * HTTP/2 (brokertls.c offers the jail what the upstream chose).
 *
 * Two nghttp2 sessions, a server toward the jail and a client toward the
 * upstream, on one thread's poll loop; each jail stream becomes one upstream
 * stream.  A request's header list goes through the same rewriter as an
 * HTTP/1.1 head (reqp_pairs: the real value only in a whole credential
 * header, the rules on :method and :path, :authority this host's), with the
 * credential headers never indexed by HPACK.  DATA passes as it comes, in
 * both directions (SSE is never held back), watched for placeholders on the
 * way up; on the way down every real value becomes its placeholder (per
 * stream, brokerscrub.h; in headers and trailers too); a response's trailers
 * pass too, a request's are refused (reqp_trailers).
 * Flow control bounds what waits here: the
 * windows given to one side are opened again only as the other side takes
 * the bytes (automatic WINDOW_UPDATE off), so a slow reader slows its writer
 * and nothing grows without bound.  CONNECT, extended CONNECT and server push
 * are refused; RST_STREAM and GOAWAY cross over.  The upstream session's
 * memory is wiped when freed: its frames held a real value. */
#include "brokerpriv.h"
#include "brokerscrub.h"
#include "h2lib.h"
#include "log.h"

#include <errno.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#define STREAM_WINDOW (256 * 1024)     /* each way, per stream */
#define CONN_WINDOW (1024 * 1024)      /* each way, per connection */
#define MAX_STREAMS 100                /* the jail's concurrent streams */
/* The streams the broker holds, and their request headers: a stream the jail
 * has reset is closed on its side (no longer under MAX_STREAMS) while its
 * request still waits for the upstream, and HPACK makes 64 KiB of headers
 * from a few bytes.  Past either bound a new stream is refused (REFUSED_STREAM:
 * the client may retry it) until the upstream has finished some. */
#define MAX_LIVE (2 * MAX_STREAMS)
#define HELD_MAX (1024 * 1024)
#define MAX_FIELDS 256                 /* per header block */
#define OUT_CAP 16384
#define IN_CAP 16384

struct field {
	char *name, *value;
	size_t nlen, vlen;
};

struct fields {                        /* one header block, copied */
	struct field *f;
	size_t n, bytes;
};

struct queue {                         /* DATA waiting for the other side */
	char *s;
	size_t head, len, cap;
};

struct h2;

struct stream {
	struct h2 *h;
	struct stream *next, **pprev;
	int32_t jid, uid;                  /* the jail's stream; the upstream's (-1: none) */
	struct reqp rq;
	struct fields in_req, in_resp;     /* the block being received */
	struct fields req_trailers, resp_trailers;
	struct queue up_q, down_q;         /* request DATA to send up; response DATA down */
	struct scrub sc;                   /* real values out of the response (brokerscrub.h) */
	bool req_seen, req_end, resp_started, resp_end;
	bool jail_closed, up_closed;
	bool resp_refused;                 /* the upstream's answer went nowhere (content_coded) */
	size_t held;                       /* request header bytes counted in h->held */
	char answer[200];                  /* the broker's own answer (a refused request) */
};

struct side {
	struct tls_end *t;
	nghttp2_session *s;
	unsigned char out[OUT_CAP];
	size_t olen;
	bool blocked;                      /* SSL_write wants the same bytes again */
	const uint8_t *spill;              /* mem_send's bytes not yet in out */
	size_t nspill;
};

struct h2 {
	struct conn *c;
	struct side jail, up;
	struct broker_cred creds[BROKER_MAX_SECRETS];
	size_t n_creds;
	struct stream *streams;
	size_t n_live, held;               /* streams held, their header bytes (MAX_LIVE) */
	bool up_dead, ending;
	bool guessed;                      /* a stream's answer was a guess (brokerscrub.h): the end */
	bool jail_spoke;                   /* the jail sent something: the upstream's preface may go */
};

/* ---- memory ---- */

static void fields_clear(struct fields *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->f[i].name);
		free(l->f[i].value);
	}
	free(l->f);
	*l = (struct fields){0};
}

/* A copy ending in NUL (nghttp2 lets none through inside a name or value). */
static char *copy(const uint8_t *s, size_t n)
{
	char *d = xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

/* -1: over the bounds of one header block (cap bytes, at most BROKER_HEAD_MAX) */
static int fields_add(struct fields *l, const uint8_t *name, size_t nlen, const uint8_t *value,
                      size_t vlen, size_t cap)
{
	l->bytes += nlen + vlen + 32;  /* RFC 9113 6.5.2's size of a field */
	if (l->n >= MAX_FIELDS || l->bytes > BROKER_HEAD_MAX || l->bytes > cap)
		return -1;
	if (l->n % 16 == 0)
		l->f = xrealloc(l->f, (l->n + 16) * sizeof(*l->f));
	l->f[l->n++] = (struct field){copy(name, nlen), copy(value, vlen), nlen, vlen};
	return 0;
}

static size_t fields_nv(const struct fields *l, nghttp2_nv *nv)
{
	for (size_t i = 0; i < l->n; i++)
		nv[i] = (nghttp2_nv){(uint8_t *)l->f[i].name, (uint8_t *)l->f[i].value, l->f[i].nlen,
		                     l->f[i].vlen, NGHTTP2_NV_FLAG_NONE};
	return l->n;
}

static void q_put(struct queue *q, const uint8_t *d, size_t n)
{
	if (q->len + n > q->cap && q->head) {
		memmove(q->s, q->s + q->head, q->len - q->head);
		q->len -= q->head;
		q->head = 0;
	}
	if (q->len + n > q->cap) {
		q->cap = q->len + n > 2 * q->cap ? q->len + n : 2 * q->cap;
		q->s = xrealloc(q->s, q->cap);
	}
	memcpy(q->s + q->len, d, n);
	q->len += n;
}

static size_t q_take(struct queue *q, uint8_t *out, size_t max)
{
	size_t n = q->len - q->head < max ? q->len - q->head : max;
	memcpy(out, q->s + q->head, n);
	q->head += n;
	if (q->head == q->len)
		q->head = q->len = 0;
	return n;
}

static size_t q_left(const struct queue *q)
{
	return q->len - q->head;
}

static void stream_free(struct stream *st)
{
	st->h->n_live--;
	st->h->held -= st->held;
	*st->pprev = st->next;
	if (st->next)
		st->next->pprev = st->pprev;
	fields_clear(&st->in_req);
	fields_clear(&st->in_resp);
	fields_clear(&st->req_trailers);
	fields_clear(&st->resp_trailers);
	free(st->up_q.s);
	free(st->down_q.s);
	scrub_free(&st->sc);
	reqp_free(&st->rq);
	free(st);
}

/* The upstream session's allocator: its frames and header copies held a real
 * value, so whatever it frees is wiped first. */
static void *wipe_malloc(size_t n, void *u)
{
	return malloc(n);
}

static void wipe_free(void *p, void *u)
{
	if (p)
		explicit_bzero(p, malloc_usable_size(p));
	free(p);
}

static void *wipe_calloc(size_t n, size_t size, void *u)
{
	return calloc(n, size);
}

static void *wipe_realloc(void *p, size_t n, void *u)
{
	if (!p)
		return malloc(n);
	void *q = n ? malloc(n) : NULL;
	if (!q && n)
		return NULL;
	size_t old = malloc_usable_size(p);
	if (q)
		memcpy(q, p, old < n ? old : n);
	wipe_free(p, u);
	return q;
}

static nghttp2_mem wipe_mem = {NULL, wipe_malloc, wipe_free, wipe_calloc, wipe_realloc};

/* ---- reports ---- */

static void on_report(void *arg, const char *name, const char *where)
{
	struct h2 *h = arg;
	broker_report(h->c->b, h->c->host->name, name, where);
}

static void on_withhold(void *arg, const char *name, const char *request)
{
	struct h2 *h = arg;
	broker_withheld(h->c->b, name, request);
}

/* ---- DATA both ways ---- */

/* Take queued bytes for a frame; the side they came from may send as many
 * again (its window opens only now). */
static ssize_t read_queue(struct stream *st, bool up, uint8_t *buf, size_t length,
                          uint32_t *flags)
{
	struct h2 *h = st->h;
	struct queue *q = up ? &st->up_q : &st->down_q;
	size_t n = q_take(q, buf, length);
	if (n && up)
		(void)nghttp2_session_consume(h->jail.s, st->jid, n);
	else if (n && st->uid >= 0 && !h->up_dead)
		(void)nghttp2_session_consume(h->up.s, st->uid, n);
	bool end = up ? st->req_end : st->resp_end;
	if (q_left(q) || !end)
		return n ? (ssize_t)n : NGHTTP2_ERR_DEFERRED;
	*flags |= NGHTTP2_DATA_FLAG_EOF;
	/* the broker's own answer is whole: the rest of the request is not
	 * wanted (RFC 9113 8.1), sent after this frame */
	if (!up && st->uid < 0 && !st->req_end)
		(void)nghttp2_submit_rst_stream(h->jail.s, NGHTTP2_FLAG_NONE, st->jid, NGHTTP2_NO_ERROR);
	struct fields *tr = up ? &st->req_trailers : &st->resp_trailers;
	if (tr->n) {
		nghttp2_nv nv[MAX_FIELDS];
		*flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM;
		(void)nghttp2_submit_trailer(up ? h->up.s : h->jail.s, up ? st->uid : st->jid, nv,
		                             fields_nv(tr, nv));
	}
	return (ssize_t)n;
}

static ssize_t read_up(nghttp2_session *s, int32_t id, uint8_t *buf, size_t length,
                       uint32_t *flags, nghttp2_data_source *src, void *u)
{
	return read_queue(src->ptr, true, buf, length, flags);
}

static ssize_t read_down(nghttp2_session *s, int32_t id, uint8_t *buf, size_t length,
                         uint32_t *flags, nghttp2_data_source *src, void *u)
{
	return read_queue(src->ptr, false, buf, length, flags);
}

/* A stream's scrubber saw a guess at a secret's value (brokerscrub.h):
 * the connection ends (loop) with nothing more of it, the secret no more
 * brokered. */
static bool guess_seen(struct stream *st)
{
	if (!st->sc.cut)
		return false;
	if (!st->h->guessed)
		broker_guessed(st->h->c->b, st->h->c->host->name, st->sc.cut_cred);
	st->h->guessed = true;
	return true;
}

/* Response bytes the scrubber passed on, queued for the jail. */
static void down_put(struct stream *st, struct strbuf *out)
{
	if (guess_seen(st))
		out->len = 0;
	if (out->len)
		q_put(&st->down_q, (const uint8_t *)out->s, out->len);
	if (out->s)
		explicit_bzero(out->s, out->cap);
	sb_free(out);
	(void)nghttp2_session_resume_data(st->h->jail.s, st->jid);
}

/* The response's DATA is all in: what the scrubber held goes too. */
static void down_end(struct stream *st)
{
	struct strbuf out = {0};
	st->resp_end = true;
	scrub_flush(&st->sc, &out);
	down_put(st, &out);
}

static int on_data(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *data,
                   size_t len, void *u)
{
	struct h2 *h = u;
	struct stream *st = nghttp2_session_get_stream_user_data(s, id);
	if (s == h->jail.s) {
		if (!st || st->uid < 0 || st->up_closed || h->up_dead) {
			(void)nghttp2_session_consume(s, id, len);  /* nowhere to go */
			return 0;
		}
		reqp_data(&st->rq, (const char *)data, len);
		q_put(&st->up_q, data, len);
		(void)nghttp2_session_resume_data(h->up.s, st->uid);
		return 0;
	}
	if (!st || st->jail_closed || st->resp_refused) {
		(void)nghttp2_session_consume(s, id, len);
		return 0;
	}
	struct strbuf out = {0};
	scrub_feed(&st->sc, (const char *)data, len, &out);
	down_put(st, &out);
	return 0;
}

/* ---- headers ---- */

static int on_begin_headers(nghttp2_session *s, const nghttp2_frame *frame, void *u)
{
	struct h2 *h = u;
	if (s != h->jail.s || frame->hd.type != NGHTTP2_HEADERS ||
	    frame->headers.cat != NGHTTP2_HCAT_REQUEST)
		return 0;
	if (h->n_live >= MAX_LIVE || h->held >= HELD_MAX) {  /* no stream: its headers are dropped */
		(void)nghttp2_submit_rst_stream(s, NGHTTP2_FLAG_NONE, frame->hd.stream_id,
		                                NGHTTP2_REFUSED_STREAM);
		return 0;
	}
	h->n_live++;
	struct stream *st = xcalloc(1, sizeof(*st));
	st->h = h;
	st->jid = frame->hd.stream_id;
	st->uid = -1;
	reqp_init(&st->rq, h->c->host->name, h->creds, h->n_creds);
	scrub_init(&st->sc, h->creds, h->n_creds);
	st->rq.report = on_report;
	st->rq.withhold = on_withhold;
	st->rq.arg = h;
	st->next = h->streams;
	st->pprev = &h->streams;
	if (h->streams)
		h->streams->pprev = &st->next;
	h->streams = st;
	(void)nghttp2_session_set_stream_user_data(s, st->jid, st);
	return 0;
}

static int on_header(nghttp2_session *s, const nghttp2_frame *frame, const uint8_t *name,
                     size_t nlen, const uint8_t *value, size_t vlen, uint8_t flags, void *u)
{
	struct h2 *h = u;
	struct stream *st = nghttp2_session_get_stream_user_data(s, frame->hd.stream_id);
	if (!st)
		return 0;
	bool req = s == h->jail.s;
	struct fields *l = req ? &st->in_req : &st->in_resp;
	/* over the bounds: the stream is reset (nghttp2 answers the callback's failure so) */
	return fields_add(l, name, nlen, value, vlen, req ? HELD_MAX - h->held : SIZE_MAX) < 0 ?
	               NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE : 0;
}

/* Request headers kept (by the broker or nghttp2) until the stream is freed. */
static void hold(struct h2 *h, struct stream *st, size_t bytes)
{
	st->held += bytes;
	h->held += bytes;
}

/* The broker answers a request itself (refused): status and one line. */
static void answer(struct h2 *h, struct stream *st, int status, const char *why)
{
	char code[8];
	snprintf(code, sizeof(code), "%d", status);
	int n = snprintf(st->answer, sizeof(st->answer), "jail broker: %s\n", why);
	q_put(&st->down_q, (const uint8_t *)st->answer, (size_t)n);
	st->resp_started = st->resp_end = true;
	nghttp2_nv nv[] = {{(uint8_t *)":status", (uint8_t *)code, 7, strlen(code), 0},
	                   {(uint8_t *)"content-type", (uint8_t *)"text/plain", 12, 10, 0}};
	nghttp2_data_provider prd = {{.ptr = st}, read_down};
	(void)nghttp2_submit_response(h->jail.s, st->jid, nv, ARRAY_SIZE(nv), &prd);
}

/* A request's header list, rewritten, becomes an upstream stream. */
static void start_request(struct h2 *h, struct stream *st, bool end)
{
	struct fields *l = &st->in_req;
	struct broker_pair p[MAX_FIELDS];
	size_t off[MAX_FIELDS], len[MAX_FIELDS];
	bool sens[MAX_FIELDS];
	nghttp2_nv nv[MAX_FIELDS + 1];
	struct strbuf out = {0};
	bool accept_encoding = false;
	for (size_t i = 0; i < l->n; i++)
		accept_encoding |= l->f[i].nlen == 15 && memcmp(l->f[i].name, "accept-encoding", 15) == 0;
	for (size_t i = 0; i < l->n; i++)
		p[i] = (struct broker_pair){l->f[i].name, l->f[i].value, l->f[i].nlen, l->f[i].vlen};
	st->req_end = end;
	if (reqp_pairs(&st->rq, p, l->n, &out, off, len, sens) < 0) {
		broker_warn(h->c->b, "broker: a request to %s refused: %s", h->c->host->name,
		            st->rq.err);
		answer(h, st, st->rq.status, st->rq.err);
	} else if (h->up_dead) {
		(void)nghttp2_submit_rst_stream(h->jail.s, NGHTTP2_FLAG_NONE, st->jid,
		                                NGHTTP2_REFUSED_STREAM);
	} else {
		size_t nnv = 0;
		for (size_t i = 0; i < l->n; i++)
			if (len[i] != REQP_DROPPED)
				nv[nnv++] = (nghttp2_nv){(uint8_t *)l->f[i].name, (uint8_t *)out.s + off[i],
				                         l->f[i].nlen, len[i],
				                         sens[i] ? NGHTTP2_NV_FLAG_NO_INDEX : NGHTTP2_NV_FLAG_NONE};
		/* none lets the server choose any coding (RFC 9110 12.5.3), one
		 * that hides an echoed value from the scrubber: identity always */
		if (!accept_encoding)
			nv[nnv++] = (nghttp2_nv){(uint8_t *)"accept-encoding", (uint8_t *)"identity", 15, 8,
			                         NGHTTP2_NV_FLAG_NONE};
		nghttp2_data_provider prd = {{.ptr = st}, read_up};
		int32_t id = nghttp2_submit_request(h->up.s, NULL, nv, nnv, end ? NULL : &prd, st);
		if (id < 0)  /* the upstream said GOAWAY: the client may retry elsewhere */
			(void)nghttp2_submit_rst_stream(h->jail.s, NGHTTP2_FLAG_NONE, st->jid,
			                                NGHTTP2_REFUSED_STREAM);
		else
			st->uid = id;
		if (id >= 0)  /* nghttp2 holds a copy until the stream ends */
			hold(h, st, l->bytes);
		if (id >= 0 && st->rq.carried)
			broker_count(h->c->b, h->c->host, st->rq.carried);
	}
	if (out.s)
		explicit_bzero(out.s, out.cap);
	sb_free(&out);
	fields_clear(l);
}

/* A server may code its answer whatever the request asked (Accept-Encoding:
 * identity is a wish): a content-encoding other than identity. */
static bool content_coded(const struct fields *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->f[i].nlen == 16 && strncasecmp(l->f[i].name, "content-encoding", 16) == 0 &&
		    !(l->f[i].vlen == 0 || (l->f[i].vlen == 8 &&
		                            strncasecmp(l->f[i].value, "identity", 8) == 0)))
			return true;
	return false;
}

/* A header block from the upstream: a 1xx, the response, or trailers. */
static void on_response_headers(struct h2 *h, struct stream *st, bool end)
{
	nghttp2_nv nv[MAX_FIELDS];
	/* an echoed credential header; its value in a name too (HTTP/1.1's
	 * names pass the stream's scrubber, as every byte of a head does) */
	for (size_t i = 0; i < st->in_resp.n; i++) {
		scrub_value(&st->sc, st->in_resp.f[i].name, st->in_resp.f[i].nlen);
		scrub_value(&st->sc, st->in_resp.f[i].value, st->in_resp.f[i].vlen);
	}
	size_t n = fields_nv(&st->in_resp, nv);
	if (st->jail_closed || st->resp_refused) {
		fields_clear(&st->in_resp);
		return;
	}
	if (st->resp_started) {  /* trailers: sent once the DATA before them is */
		fields_clear(&st->resp_trailers);
		st->resp_trailers = st->in_resp;
		st->in_resp = (struct fields){0};
		down_end(st);
		return;
	}
	bool informational = n && nv[0].valuelen == 3 && nv[0].value[0] == '1';
	if (!informational && content_coded(&st->in_resp)) {
		/* (brokerresp.c: an echoed value in a gzip body is past the
		 * scrubber) nothing of it passes; the stream ends on both sides */
		broker_warn(h->c->b, "broker: an answer from %s in a content coding was not passed",
		            h->c->host->name);
		fields_clear(&st->in_resp);
		st->resp_refused = true;  /* its DATA goes nowhere (on_data) */
		if (!st->up_closed && !h->up_dead)
			(void)nghttp2_submit_rst_stream(h->up.s, NGHTTP2_FLAG_NONE, st->uid, NGHTTP2_CANCEL);
		(void)nghttp2_submit_rst_stream(h->jail.s, NGHTTP2_FLAG_NONE, st->jid, NGHTTP2_CANCEL);
		return;
	}
	if (informational) {
		(void)nghttp2_submit_headers(h->jail.s, NGHTTP2_FLAG_NONE, st->jid, NULL, nv, n, NULL);
	} else {
		nghttp2_data_provider prd = {{.ptr = st}, read_down};
		st->resp_started = true;
		st->resp_end = end;
		(void)nghttp2_submit_response(h->jail.s, st->jid, nv, n, end ? NULL : &prd);
	}
	fields_clear(&st->in_resp);
}

/* A request's trailers were refused (reqp_trailers): they go nowhere, and
 * the stream ends on both sides, its request not whole upstream. */
static void refuse_trailers(struct h2 *h, struct stream *st)
{
	broker_warn(h->c->b, "broker: a request to %s refused: %s", h->c->host->name, st->rq.err);
	fields_clear(&st->in_req);
	if (st->uid >= 0 && !st->up_closed && !h->up_dead)
		(void)nghttp2_submit_rst_stream(h->up.s, NGHTTP2_FLAG_NONE, st->uid, NGHTTP2_CANCEL);
	if (!st->jail_closed)
		(void)nghttp2_submit_rst_stream(h->jail.s, NGHTTP2_FLAG_NONE, st->jid, NGHTTP2_CANCEL);
}

static int on_frame(nghttp2_session *s, const nghttp2_frame *frame, void *u)
{
	struct h2 *h = u;
	bool from_jail = s == h->jail.s;
	bool end = frame->hd.flags & NGHTTP2_FLAG_END_STREAM;
	struct stream *st = frame->hd.stream_id ?
	        nghttp2_session_get_stream_user_data(s, frame->hd.stream_id) : NULL;
	switch (frame->hd.type) {
	case NGHTTP2_HEADERS:
		if (!st)
			break;
		if (!from_jail) {
			on_response_headers(h, st, end);
		} else if (!st->req_seen) {
			st->req_seen = true;
			start_request(h, st, end);
		} else {  /* trailers: refused (reqp_trailers), else the stream's end */
			struct broker_pair p[MAX_FIELDS];
			for (size_t i = 0; i < st->in_req.n; i++)
				p[i] = (struct broker_pair){st->in_req.f[i].name, st->in_req.f[i].value,
				                            st->in_req.f[i].nlen, st->in_req.f[i].vlen};
			if (reqp_trailers(&st->rq, p, st->in_req.n) < 0) {
				refuse_trailers(h, st);
				break;
			}
			hold(h, st, st->in_req.bytes);
			fields_clear(&st->req_trailers);
			st->req_trailers = st->in_req;
			st->in_req = (struct fields){0};
			st->req_end = true;
			if (st->uid >= 0 && !h->up_dead)
				(void)nghttp2_session_resume_data(h->up.s, st->uid);
		}
		break;
	case NGHTTP2_DATA:
		if (!st || !end)
			break;
		if (from_jail && st->uid >= 0 && !h->up_dead) {
			st->req_end = true;
			(void)nghttp2_session_resume_data(h->up.s, st->uid);
		} else if (!from_jail) {
			down_end(st);
		}
		break;
	case NGHTTP2_GOAWAY:  /* no new streams on the other side either */
		if (from_jail && !h->up_dead)
			(void)nghttp2_submit_goaway(h->up.s, NGHTTP2_FLAG_NONE, 0,
			                            frame->goaway.error_code, NULL, 0);
		else if (!from_jail)
			(void)nghttp2_submit_goaway(h->jail.s, NGHTTP2_FLAG_NONE,
			                            nghttp2_session_get_last_proc_stream_id(h->jail.s),
			                            frame->goaway.error_code, NULL, 0);
		break;
	default:
		break;
	}
	return 0;
}

/* A stream ended on one side: a reset crosses over; the stream is freed
 * once both sides are done with it. */
static int on_close(nghttp2_session *s, int32_t id, uint32_t code, void *u)
{
	struct h2 *h = u;
	struct stream *st = nghttp2_session_get_stream_user_data(s, id);
	if (!st || h->ending)
		return 0;
	if (s == h->jail.s) {
		st->jail_closed = true;
		/* an error, or a response not yet whole (RST_STREAM NO_ERROR: the
		 * client wants no more of it): no reason to go on upstream */
		if ((code != NGHTTP2_NO_ERROR || !st->resp_end) && st->uid >= 0 && !st->up_closed &&
		    !h->up_dead)
			(void)nghttp2_submit_rst_stream(h->up.s, NGHTTP2_FLAG_NONE, st->uid,
			                                NGHTTP2_CANCEL);
		if (st->uid >= 0 && !h->up_dead)  /* what waits for the jail is dropped */
			(void)nghttp2_session_consume(h->up.s, st->uid,
			                              q_left(&st->down_q) + st->sc.n_held);
		st->down_q.head = st->down_q.len = 0;
		scrub_drop(&st->sc);
		(void)guess_seen(st);
	} else {
		st->up_closed = true;
		if (!st->resp_end && !h->up_dead) {  /* a response cut short: its held bytes too */
			(void)nghttp2_session_consume(s, id, st->sc.n_held);
			scrub_drop(&st->sc);
			(void)guess_seen(st);
		}
		if (!st->jail_closed && (code != NGHTTP2_NO_ERROR || !st->resp_end))
			(void)nghttp2_submit_rst_stream(h->jail.s, NGHTTP2_FLAG_NONE, st->jid,
			                                code != NGHTTP2_NO_ERROR ? code
			                                                         : NGHTTP2_INTERNAL_ERROR);
		(void)nghttp2_session_consume(h->jail.s, st->jid, q_left(&st->up_q));
		st->up_q.head = st->up_q.len = 0;
	}
	if (st->jail_closed && (st->uid < 0 || st->up_closed || h->up_dead))
		stream_free(st);
	return 0;
}

/* ---- the sessions ---- */

static int make_sessions(struct h2 *h)
{
	nghttp2_session_callbacks *cb = NULL;
	nghttp2_option *opt = NULL;
	if (nghttp2_session_callbacks_new(&cb) != 0 || nghttp2_option_new(&opt) != 0) {
		nghttp2_session_callbacks_del(cb);
		return -1;
	}
	nghttp2_session_callbacks_set_on_begin_headers_callback(cb, on_begin_headers);
	nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
	nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data);
	nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_close);
	nghttp2_option_set_no_auto_window_update(opt, 1);
	int r = nghttp2_session_server_new3(&h->jail.s, cb, h, opt, NULL);
	if (r == 0)
		r = nghttp2_session_client_new3(&h->up.s, cb, h, opt, &wipe_mem);
	nghttp2_session_callbacks_del(cb);
	nghttp2_option_del(opt);
	if (r != 0)
		return -1;
	nghttp2_settings_entry to_jail[] = {
		{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, MAX_STREAMS},
		{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, STREAM_WINDOW},
		{NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, BROKER_HEAD_MAX},
	};
	nghttp2_settings_entry to_up[] = {
		{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
		{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, STREAM_WINDOW},
		{NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, BROKER_HEAD_MAX},
	};
	if (nghttp2_submit_settings(h->jail.s, NGHTTP2_FLAG_NONE, to_jail, ARRAY_SIZE(to_jail)) ||
	    nghttp2_submit_settings(h->up.s, NGHTTP2_FLAG_NONE, to_up, ARRAY_SIZE(to_up)) ||
	    nghttp2_session_set_local_window_size(h->jail.s, NGHTTP2_FLAG_NONE, 0, CONN_WINDOW) ||
	    nghttp2_session_set_local_window_size(h->up.s, NGHTTP2_FLAG_NONE, 0, CONN_WINDOW))
		return -1;
	return 0;
}

/* What the session has to send, written as far as the socket takes it. */
static int flush(struct side *d)
{
	for (;;) {
		while (!d->blocked && d->olen < OUT_CAP) {
			if (!d->nspill) {
				ssize_t n = nghttp2_session_mem_send(d->s, &d->spill);
				if (n < 0)
					return -1;
				if (n == 0)
					break;
				d->nspill = (size_t)n;
			}
			size_t k = d->nspill < OUT_CAP - d->olen ? d->nspill : OUT_CAP - d->olen;
			memcpy(d->out + d->olen, d->spill, k);
			d->spill += k;
			d->nspill -= k;
			d->olen += k;
		}
		if (!d->olen)
			return 0;
		size_t w = 0;
		if (SSL_write_ex(d->t->ssl, d->out, d->olen, &w) == 1) {
			explicit_bzero(d->out, d->olen);
			d->olen = 0;
			d->blocked = false;
			continue;
		}
		int err = SSL_get_error(d->t->ssl, 0);
		ERR_clear_error();
		if (err != SSL_ERROR_WANT_WRITE && err != SSL_ERROR_WANT_READ)
			return -1;
		d->blocked = true;  /* again with the same bytes when the socket takes more */
		return 0;
	}
}

/* What the peer sent, into its session (a few reads: then the other side's
 * turn); 1 if bytes came, 0 if none, -1 when the peer is gone. */
static int pump_in(struct side *d)
{
	char buf[IN_CAP];
	int r = 0;
	for (int i = 0; i < 4; i++) {
		ssize_t n = brokerconn_read(d->t, buf, sizeof(buf));
		if (n <= 0) {
			r = n < 0 ? -1 : r;
			break;
		}
		r = 1;
		if (nghttp2_session_mem_recv(d->s, (const uint8_t *)buf, (size_t)n) < 0) {
			r = -1;
			break;
		}
	}
	explicit_bzero(buf, sizeof(buf));
	return r;
}

/* The upstream connection is gone: streams still waiting for their
 * response are reset, those whose response is whole finish, and the jail
 * opens no new ones. */
static void up_gone(struct h2 *h)
{
	h->up_dead = true;
	for (struct stream *st = h->streams; st; st = st->next)
		if (!st->jail_closed && !st->resp_end)
			(void)nghttp2_submit_rst_stream(h->jail.s, NGHTTP2_FLAG_NONE, st->jid,
			                                NGHTTP2_INTERNAL_ERROR);
	(void)nghttp2_submit_goaway(h->jail.s, NGHTTP2_FLAG_NONE,
	                            nghttp2_session_get_last_proc_stream_id(h->jail.s),
	                            NGHTTP2_NO_ERROR, NULL, 0);
}

static bool jail_streams_open(const struct h2 *h)
{
	for (const struct stream *st = h->streams; st; st = st->next)
		if (!st->jail_closed)
			return true;
	return false;
}

static bool wants(const struct side *d)
{
	return nghttp2_session_want_read(d->s) || nghttp2_session_want_write(d->s) || d->olen;
}

/* Whether s has frames to send that its socket would take now. */
static bool more(const struct side *d)
{
	return !d->blocked && nghttp2_session_want_write(d->s);
}

/* Both sides' frames, written.  The upstream first (a request waits on it),
 * and its preface and SETTINGS only with the jail's first request: one
 * write, which the server reads at once, as it would the client's own.  Each
 * side's writing makes frames for the other (DATA taken from a queue opens
 * the window it came in by: a WINDOW_UPDATE), so again while it did: left
 * for the next poll, they would wait on the peers, and a slow reader's
 * window stay shut.  -1: the jail's side failed. */
static int flush_both(struct h2 *h)
{
	for (int i = 0; i < 4; i++) {
		bool up = !h->up_dead && h->jail_spoke;
		if (up && (flush(&h->up) < 0 || !wants(&h->up)))
			up_gone(h);
		if (flush(&h->jail) < 0)
			return -1;
		if (!(up && !h->up_dead && more(&h->up)) && !more(&h->jail))
			break;
	}
	return 0;
}

static void loop(struct h2 *h)
{
	bool busy = false;  /* the last round read something */
	for (;;) {
		if (h->guessed || flush_both(h) < 0)
			break;
		if (h->up_dead && !jail_streams_open(h) && !nghttp2_session_want_write(h->jail.s) &&
		    !h->jail.olen)
			break;
		if (!wants(&h->jail))
			break;
		/* decrypted bytes OpenSSL holds already: no poll would wake for them;
		 * but a part of a record is pending too, and only the socket brings
		 * the rest (so a round that read nothing waits) */
		bool pending = SSL_has_pending(h->jail.t->ssl) ||
		               (!h->up_dead && SSL_has_pending(h->up.t->ssl));
		if (!busy || !pending) {
			struct pollfd p[2] = {
				{h->jail.t->fd, (short)(POLLIN | (h->jail.blocked ? POLLOUT : 0)), 0},
				{h->up_dead ? -1 : h->up.t->fd, (short)(POLLIN | (h->up.blocked ? POLLOUT : 0)), 0}};
			if (poll(p, 2, -1) < 0 && errno != EINTR)
				break;
		}
		int rj = pump_in(&h->jail);
		if (rj < 0)
			break;
		h->jail_spoke |= rj > 0;
		int ru = h->up_dead ? 0 : pump_in(&h->up);
		if (ru < 0)
			up_gone(h);
		busy = rj > 0 || ru > 0;
	}
	if (!h->up_dead) {  /* the jail's side ended: tell the upstream, as far as it takes it now */
		(void)nghttp2_session_terminate_session(h->up.s, NGHTTP2_NO_ERROR);
		(void)flush(&h->up);
	}
}

void brokerh2_relay(struct conn *c)
{
	struct h2 *h = xcalloc(1, sizeof(*h));
	h->c = c;
	h->jail.t = &c->jail;
	h->up.t = &c->up;
	h->n_creds = broker_creds(c->b, c->host->name, h->creds);
	/* HTTP/2 writes small frames (WINDOW_UPDATE, HEADERS) that must not wait
	 * for the peer's delayed ACK (Nagle): 40 ms a round otherwise.  Best
	 * effort: without it the relay is slower, not wrong. */
	int one = 1;
	(void)setsockopt(c->jail.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	(void)setsockopt(c->up.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (make_sessions(h) == 0)
		loop(h);
	else
		broker_warn(c->b, "broker: %s: cannot start an HTTP/2 session", c->host->name);
	h->ending = true;
	nghttp2_session_del(h->jail.s);
	nghttp2_session_del(h->up.s);
	while (h->streams)
		stream_free(h->streams);
	explicit_bzero(h, sizeof(*h));
	free(h);
}
