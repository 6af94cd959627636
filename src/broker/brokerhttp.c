/* brokerhttp.c — parse and rewrite the requests of a brokered connection
 * (see brokerhttp.h). */
#include "brokerhttp.h"
#include "brokerrules.h"

#include <string.h>
#include <strings.h>

#define LINE_MAX_CHUNK 4096

void reqp_init(struct reqp *r, const char *host, const struct broker_cred *creds, size_t n)
{
	memset(r, 0, sizeof(*r));
	r->host = host;
	r->creds = creds;
	r->n_creds = n;
	r->st = RQ_HEAD;
	for (size_t i = 0; i < n; i++)
		r->ruled |= creds[i].real && creds[i].rules;
}

void reqp_free(struct reqp *r)
{
	if (r->line.s)
		explicit_bzero(r->line.s, r->line.cap);
	sb_free(&r->line);
	sb_free(&r->pending);
}

static int fail(struct reqp *r, int status, const char *why)
{
	r->status = status;
	snprintf(r->err, sizeof(r->err), "%s", why);
	return -1;
}

/* Append to a buffer that may hold a real value: grow it without leaving a
 * copy in freed memory. */
static void out_append(struct strbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *nb = xcalloc(1, cap);
		if (b->s) {
			memcpy(nb, b->s, b->len);
			explicit_bzero(b->s, b->cap);
			free(b->s);
		}
		b->s = nb;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

enum place { PL_URL, PL_HEADER, PL_BODY, PL_TRAILER };

/* Once per request, secret and place: a placeholder repeated a thousand times
 * is one report, not a thousand lines on the user's terminal. */
static void report(struct reqp *r, size_t cred, enum place pl, const char *where)
{
	uint32_t bit = cred < 32 ? 1u << cred : 0;
	if (!r->report || (r->told[pl] & bit))
		return;
	r->told[pl] |= bit;
	r->report(r->arg, r->creds[cred].name, where);
}

/* Report each placeholder in [s, end) (sent unchanged). */
static void report_in(struct reqp *r, const char *s, const char *end, enum place pl,
                      const char *where)
{
	for (size_t i = 0; i < r->n_creds; i++)
		if (memmem(s, (size_t)(end - s), r->creds[i].placeholder, strlen(r->creds[i].placeholder)))
			report(r, i, pl, where);
}

/* ---- bodies: passed through, watched for placeholders ---- */

static void body_scan(struct reqp *r, const char *in, size_t len)
{
	if (r->body_reported || !len)
		return;
	/* the carried tail and the start of this piece, for a placeholder across reads */
	char edge[2 * BROKER_PH_MAX];
	size_t head = len < BROKER_PH_MAX ? len : BROKER_PH_MAX;
	memcpy(edge, r->carry, r->ncarry);
	memcpy(edge + r->ncarry, in, head);
	for (size_t i = 0; i < r->n_creds && !r->body_reported; i++) {
		const char *ph = r->creds[i].placeholder;
		size_t pl = strlen(ph);
		if (memmem(in, len, ph, pl) || memmem(edge, r->ncarry + head, ph, pl)) {
			r->body_reported = true;
			report(r, i, PL_BODY, r->st != RQ_RAW ? "a request body"
			                      : r->websocket ? "a WebSocket message"
			                                     : "an upgraded stream");
		}
	}
	size_t keep = BROKER_PH_MAX - 1;
	if (len >= keep) {
		memcpy(r->carry, in + len - keep, keep);
		r->ncarry = keep;
	} else {
		size_t drop = r->ncarry + len > keep ? r->ncarry + len - keep : 0;
		memmove(r->carry, r->carry + drop, r->ncarry - drop);
		memcpy(r->carry + r->ncarry - drop, in, len);
		r->ncarry = r->ncarry - drop + len;
	}
}

/* The bytes of a frame's head (RFC 6455 5.2) once its first two are known. */
static size_t ws_head_len(const unsigned char *h)
{
	size_t n = 2 + ((h[1] & 0x7f) == 126 ? 2 : (h[1] & 0x7f) == 127 ? 8 : 0);
	return n + (h[1] & 0x80 ? 4 : 0);
}

static void ws_head_done(struct reqp *r)
{
	const unsigned char *h = r->ws.head;
	size_t at = 2, len7 = h[1] & 0x7f;
	uint64_t len = len7;
	if (len7 >= 126) {
		size_t nb = len7 == 126 ? 2 : 8;
		len = 0;
		for (size_t i = 0; i < nb; i++)
			len = len << 8 | h[at + i];
		at += nb;
	}
	if (h[1] & 0x80)
		memcpy(r->ws.mask, h + at, 4);
	else
		memset(r->ws.mask, 0, 4);
	r->ws.left = len;
	r->ws.pos = 0;
	r->ws.nhead = 0;
}

/* Watch the client's side of a WebSocket: its payloads unmasked (a copy),
 * scanned like a body, one stream across frames and messages. */
static void ws_scan(struct reqp *r, const char *in, size_t len)
{
	char plain[4096];
	if (r->body_reported)  /* once a connection: nothing more to look for */
		return;
	while (len) {
		if (!r->ws.left) {
			r->ws.head[r->ws.nhead++] = (unsigned char)*in++;
			len--;
			if (r->ws.nhead >= 2 && r->ws.nhead == ws_head_len(r->ws.head))
				ws_head_done(r);
			continue;
		}
		size_t n = len < sizeof(plain) ? len : sizeof(plain);
		if (n > r->ws.left)
			n = (size_t)r->ws.left;
		for (size_t i = 0; i < n; i++)
			plain[i] = (char)(in[i] ^ r->ws.mask[(r->ws.pos + i) & 3]);
		body_scan(r, plain, n);
		r->ws.pos += n;
		r->ws.left -= n;
		in += n;
		len -= n;
	}
}

/* ---- the head ---- */

#define CARRIERS_MAX 8

struct head_info {
	bool chunked, has_cl, upgrade, websocket, carried;
	bool accept_encoding;      /* one was sent (as identity) */
	int hosts;                 /* Host headers seen */
	uint64_t cl;
	/* the header names that got a real value (pointing into r->line) */
	const char *carrier[CARRIERS_MAX];
	size_t carrier_len[CARRIERS_MAX], n_carriers;
};

/* A header may carry a real value once per request: a second field of the
 * same name would be joined to it ("REAL, REAL", an invalid key that an
 * error message may quote). */
static bool may_carry(const struct head_info *h, const char *name, size_t nlen)
{
	for (size_t i = 0; i < h->n_carriers; i++)
		if (h->carrier_len[i] == nlen && strncasecmp(h->carrier[i], name, nlen) == 0)
			return false;
	return h->n_carriers < CARRIERS_MAX;
}

/* A header that got a real value must be the only field of its name: a
 * server joins repeated fields ("junk, REAL": an invalid key, which an
 * error message may quote back), or takes another one than the broker
 * checked.  count(arg, name, nlen) says how many fields have that name. */
static int carrier_alone(struct reqp *r, const struct head_info *h,
                         size_t (*count)(const void *, const char *, size_t), const void *arg)
{
	for (size_t i = 0; i < h->n_carriers; i++)
		if (count(arg, h->carrier[i], h->carrier_len[i]) > 1) {
			snprintf(r->err, sizeof(r->err), "the credential header %.*s given twice",
			         (int)(h->carrier_len[i] < 64 ? h->carrier_len[i] : 64), h->carrier[i]);
			r->status = 400;
			return -1;
		}
	return 0;
}

/* HOST or HOST:443, as a Host header or an absolute URL's authority names it */
static bool is_our_authority(const struct reqp *r, const char *v, const char *vend)
{
	size_t hl = strlen(r->host), n = (size_t)(vend - v);
	if (n < hl || strncasecmp(v, r->host, hl) != 0)
		return false;
	return n == hl || (n == hl + 4 && memcmp(v + hl, ":443", 4) == 0);
}

static bool is_tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

static const char *trim(const char *s, const char *end, const char **tend)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	*tend = end;
	return s;
}

static bool value_is(const char *v, const char *vend, const char *word)
{
	return (size_t)(vend - v) == strlen(word) && strncasecmp(v, word, strlen(word)) == 0;
}

static int parse_cl(struct reqp *r, const char *v, const char *vend, struct head_info *h)
{
	uint64_t n = 0;
	if (v == vend || vend - v > 15)
		return fail(r, 400, "a bad Content-Length");
	for (const char *p = v; p < vend; p++) {
		if (*p < '0' || *p > '9')
			return fail(r, 400, "a bad Content-Length");
		n = n * 10 + (uint64_t)(*p - '0');
	}
	if (h->has_cl && h->cl != n)
		return fail(r, 400, "two different Content-Length headers");
	h->has_cl = true;
	h->cl = n;
	return 0;
}

static bool is_cred_header(const struct broker_cred *c, const char *name, size_t nlen)
{
	for (size_t i = 0; i < c->headers->n; i++)
		if (strlen(c->headers->v[i]) == nlen && strncasecmp(c->headers->v[i], name, nlen) == 0)
			return true;
	return false;
}

/* ---- Basic credentials (git over HTTPS): user:password in base64 ---- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64_val(char c)
{
	const char *p = c ? strchr(b64, c) : NULL;
	return p ? (int)(p - b64) : -1;
}

/* Decode strict, padded base64; -1 if it is not that. */
static ssize_t b64_decode(const char *in, size_t n, char *out, size_t cap)
{
	size_t o = 0;
	if (n % 4)
		return -1;
	for (size_t i = 0; i < n; i += 4) {
		int v[4];
		for (int k = 0; k < 4; k++)
			v[k] = in[i + k] == '=' && i + 4 == n && k >= 2 ? 0 : b64_val(in[i + k]);
		if (v[0] < 0 || v[1] < 0 || v[2] < 0 || v[3] < 0 || (in[i + 2] == '=' && in[i + 3] != '='))
			return -1;
		unsigned w = (unsigned)v[0] << 18 | (unsigned)v[1] << 12 | (unsigned)v[2] << 6 | (unsigned)v[3];
		size_t take = in[i + 2] == '=' ? 1 : in[i + 3] == '=' ? 2 : 3;
		if (o + take > cap)
			return -1;
		for (size_t k = 0; k < take; k++)
			out[o++] = (char)(w >> (16 - 8 * k) & 0xff);
	}
	return (ssize_t)o;
}

static void b64_encode(const char *in, size_t n, struct strbuf *out)
{
	for (size_t i = 0; i < n; i += 3) {
		unsigned w = (unsigned char)in[i] << 16;
		if (i + 1 < n)
			w |= (unsigned char)in[i + 1] << 8;
		if (i + 2 < n)
			w |= (unsigned char)in[i + 2];
		char q[4] = {b64[w >> 18 & 63], b64[w >> 12 & 63],
		             i + 1 < n ? b64[w >> 6 & 63] : '=', i + 2 < n ? b64[w & 63] : '='};
		out_append(out, q, 4);
	}
}

/* The secret whose placeholder [t, tend) is, exactly, if this header carries
 * it to this host; else -1. */
static ssize_t whole_cred(const struct reqp *r, const char *name, size_t nlen, const char *t,
                          const char *tend)
{
	for (size_t i = 0; i < r->n_creds; i++) {
		const struct broker_cred *c = &r->creds[i];
		if (c->real && (size_t)(tend - t) == strlen(c->placeholder) &&
		    memcmp(t, c->placeholder, (size_t)(tend - t)) == 0 && is_cred_header(c, name, nlen))
			return (ssize_t)i;
	}
	return -1;
}

/* [t, tend) to out: the real value if it is a whole placeholder this header
 * carries, else as it is (any placeholder in it reported). */
static void put_field(struct reqp *r, const char *name, size_t nlen, const char *t,
                      const char *tend, struct strbuf *out, struct head_info *h)
{
	ssize_t i = may_carry(h, name, nlen) ? whole_cred(r, name, nlen, t, tend) : -1;
	uint32_t bit = i >= 0 ? 1u << i : 0;
	if (r->withheld & bit) {  /* the credential's place, but not a request for it */
		if (r->withhold && !(r->told_withheld & bit))
			r->withhold(r->arg, r->creds[i].name, r->request);
		r->told_withheld |= bit;
		out_append(out, t, (size_t)(tend - t));
		return;
	}
	if (i >= 0) {
		out_append(out, r->creds[i].real, strlen(r->creds[i].real));
		h->carried = true;
		h->carrier[h->n_carriers] = name;
		h->carrier_len[h->n_carriers++] = nlen;
		return;
	}
	char where[96];
	snprintf(where, sizeof(where), "the header %.*s", (int)(nlen < 64 ? nlen : 64), name);
	report_in(r, t, tend, PL_HEADER, where);
	out_append(out, t, (size_t)(tend - t));
}

/* "Basic BASE64" whose user:password holds a placeholder: rewritten inside
 * the encoding (git sends a token so), a whole field at a time.  false: not
 * such a value. */
static bool rewrite_basic(struct reqp *r, const char *name, size_t nlen, const char *v,
                          const char *vend, struct strbuf *out, struct head_info *h)
{
	char plain[2 * BROKER_PH_MAX + 64];
	if (vend - v < 7 || strncasecmp(v, "Basic ", 6) != 0)
		return false;
	const char *tok = v + 6;
	ssize_t n = b64_decode(tok, (size_t)(vend - tok), plain, sizeof(plain));
	const char *colon = n > 0 ? memchr(plain, ':', (size_t)n) : NULL;
	if (!colon) {
		explicit_bzero(plain, sizeof(plain));
		return false;
	}
	struct strbuf dec = {0};
	put_field(r, name, nlen, plain, colon, &dec, h);
	out_append(&dec, ":", 1);
	put_field(r, name, nlen, colon + 1, plain + n, &dec, h);
	out_append(out, v, 6);
	b64_encode(dec.s, dec.len, out);
	explicit_bzero(dec.s, dec.cap);
	explicit_bzero(plain, sizeof(plain));
	sb_free(&dec);
	return true;
}

/* The value to out: "PH" or "SCHEME PH" with the real value in place, if
 * this header carries that secret to this host; anything else as it is. */
static void rewrite_value(struct reqp *r, const char *name, size_t nlen, const char *v,
                          const char *vend, struct strbuf *out, struct head_info *h)
{
	const char *sp = memchr(v, ' ', (size_t)(vend - v)), *t = v;
	if (sp && sp > v) {
		t = sp + 1;
		for (const char *p = v; p < sp; p++)
			if (!is_tchar((unsigned char)*p))
				t = v;
	}
	out_append(out, v, (size_t)(t - v));
	put_field(r, name, nlen, t, vend, out, h);
}

/* Headers some frameworks take as the method instead of the request line's:
 * a rule allowing POST to a path must not carry a DELETE there. */
static bool is_method_override(const char *name, size_t nlen)
{
	static const char *const names[] = {"x-http-method-override", "x-http-method",
	                                    "x-method-override"};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (nlen == strlen(names[i]) && strncasecmp(name, names[i], nlen) == 0)
			return true;
	return false;
}

/* A slice of a response (Range: a 206, as caches serve any answer) holds
 * pieces of a real value the upstream echoes, each too short for
 * brokerscrub.c, which sees whole values only: answers are asked for whole. */
static bool is_range(const char *name, size_t nlen)
{
	return nlen == 5 && strncasecmp(name, "range", 5) == 0;
}

/* A compressed response would hide a real value the upstream echoes from
 * brokerscrub.c, which reads the responses: they are asked for as they are. */
static bool is_accept_encoding(const char *name, size_t nlen)
{
	return nlen == 15 && strncasecmp(name, "accept-encoding", 15) == 0;
}

static int head_field(struct reqp *r, const char *line, const char *end, struct strbuf *out,
                      struct head_info *h)
{
	if (line == end || *line == ' ' || *line == '\t')
		return fail(r, 400, "a folded or empty header line");
	const char *colon = memchr(line, ':', (size_t)(end - line));
	if (!colon || colon == line)
		return fail(r, 400, "a header line without a name");
	for (const char *p = line; p < colon; p++)
		if (!is_tchar((unsigned char)*p))
			return fail(r, 400, "a bad header name");
	for (const char *p = colon + 1; p < end; p++)
		if ((unsigned char)*p < 0x20 && *p != '\t')
			return fail(r, 400, "a control character in a header");
	size_t nlen = (size_t)(colon - line);
	const char *vend, *v = trim(colon + 1, end, &vend);
	if (nlen == 14 && strncasecmp(line, "content-length", 14) == 0 && parse_cl(r, v, vend, h) < 0)
		return -1;
	if (nlen == 17 && strncasecmp(line, "transfer-encoding", 17) == 0) {
		if (!value_is(v, vend, "chunked") || h->chunked)
			return fail(r, 501, "a transfer coding other than one 'chunked'");
		h->chunked = true;
	}
	/* After a 101 the host answers this very request, key and all, in the
	 * new protocol: only WebSocket's is read (its frames carry the echo as
	 * it is); another (h2c's HPACK, RFC 2817's TLS inside TLS) would hide an
	 * echoed key from brokerscrub.c.  Its Upgrade header stays back, and the
	 * request goes as a plain one (an upgrade is the server's to decline). */
	if (nlen == 7 && strncasecmp(line, "upgrade", 7) == 0) {
		if (!value_is(v, vend, "websocket"))
			return 0;
		h->upgrade = h->websocket = true;
	}
	/* a transfer coding the client accepts (TE: gzip) would compress the
	 * response's body past brokerscrub.c as Accept-Encoding would: only
	 * "trailers" goes */
	if (nlen == 2 && strncasecmp(line, "te", 2) == 0 && !value_is(v, vend, "trailers"))
		return 0;
	/* compressed messages (permessage-deflate) would hide a placeholder:
	 * without this header the server uses none */
	if (nlen == 24 && strncasecmp(line, "sec-websocket-extensions", 24) == 0)
		return 0;
	if (is_range(line, nlen))
		return 0;
	if (nlen == 4 && strncasecmp(line, "host", 4) == 0) {
		if (!is_our_authority(r, v, vend) || h->hosts++)
			return fail(r, 421, "a Host header for another site");
	}
	if (r->ruled && is_method_override(line, nlen))
		return fail(r, 400, "a method override header to a host with rules");
	if (nlen == 10 && (strncasecmp(line, "connection", 10) == 0 ||
	                   strncasecmp(line, "keep-alive", 10) == 0)) {
		/* held back: the broker sends its own (head_done) */
		report_in(r, v, vend, PL_HEADER, "the header Connection");
		return 0;
	}
	out_append(out, line, nlen + 1);
	if (is_accept_encoding(line, nlen)) {
		h->accept_encoding = true;
		out_append(out, " identity\r\n", 11);
		return 0;
	}
	out_append(out, " ", 1);
	if (!rewrite_basic(r, line, nlen, v, vend, out, h))
		rewrite_value(r, line, nlen, v, vend, out, h);
	out_append(out, "\r\n", 2);
	return 0;
}

/* Which secrets' rules keep their real values from this request. */
static int rules_decide(struct reqp *r, const char *method, size_t mlen, const char *target,
                        const char *tend)
{
	const char *path, *why;
	size_t plen;
	r->withheld = r->told_withheld = 0;
	if (!r->ruled)
		return 0;
	if (brokerrules_path(target, tend, &path, &plen, &why) < 0)
		return fail(r, 400, why);
	for (size_t i = 0; i < r->n_creds; i++)
		if (r->creds[i].real && r->creds[i].rules &&
		    !brokerrules_allow(r->creds[i].rules, method, mlen, path, plen))
			r->withheld |= 1u << i;
	/* for the user's terminal: no byte of it may be a control */
	int n = snprintf(r->request, sizeof(r->request), "%.*s %.*s", (int)(mlen < 24 ? mlen : 24),
	                 method, (int)(plen < 96 ? plen : 96), path);
	for (int k = 0; k < n && k < (int)sizeof(r->request) - 1; k++)
		if ((unsigned char)r->request[k] < 0x20 || (unsigned char)r->request[k] >= 0x7f)
			r->request[k] = '?';
	return 0;
}

static int request_line(struct reqp *r, const char *line, const char *end, struct strbuf *out)
{
	const char *sp = memchr(line, ' ', (size_t)(end - line));
	if (!sp || sp == line)
		return fail(r, 400, "a bad request line");
	for (const char *p = line; p < sp; p++)
		if (!is_tchar((unsigned char)*p))
			return fail(r, 400, "a bad request method");
	if ((sp - line == 7 && strncasecmp(line, "CONNECT", 7) == 0) ||
	    (sp - line == 5 && (strncasecmp(line, "TRACE", 5) == 0 || strncasecmp(line, "TRACK", 5) == 0)))
		return fail(r, 405, "CONNECT, TRACE or TRACK through a brokered host");
	/* origin-form, "*", or an absolute URL of this very host */
	const char *target = sp + 1;
	if (*target != '/' && *target != '*') {
		const char *auth = strncasecmp(target, "https://", 8) == 0 ? target + 8 : NULL;
		const char *aend = auth ? auth + strcspn(auth, "/? ") : NULL;
		if (!auth || !is_our_authority(r, auth, aend))
			return fail(r, 421, "a request for another site");
	}
	if (end - line < 10 || (memcmp(end - 9, " HTTP/1.1", 9) && memcmp(end - 9, " HTTP/1.0", 9)))
		return fail(r, 505, "not an HTTP/1.x request");
	/* METHOD SP TARGET SP VERSION: a server splitting a longer line
	 * elsewhere would see another target than the one checked above */
	if (end - 9 <= target || memchr(target, ' ', (size_t)(end - 9 - target)))
		return fail(r, 400, "a bad request line");
	for (const char *p = line; p < end; p++)
		if ((unsigned char)*p <= 0x20 && *p != ' ')
			return fail(r, 400, "a control character in the request line");
	if (rules_decide(r, line, (size_t)(sp - line), target, end - 9) < 0)
		return -1;
	/* A HEAD's answer has no body, and brokerresp.c passes what follows its
	 * head unread.  Methods are case-sensitive: a server whose handlers take
	 * any method (Go's net/http) answers "head" with a body, chunked, its
	 * framing then left inside an echoed value; a lenient one sends none.
	 * Only one spelling is framed alike by both: the others are refused. */
	r->head_method = sp - line == 4 && memcmp(line, "HEAD", 4) == 0;
	if (sp - line == 4 && strncasecmp(line, "HEAD", 4) == 0 && !r->head_method)
		return fail(r, 400, "a HEAD method not in capitals");
	report_in(r, line, end, PL_URL, "the URL");
	out_append(out, line, (size_t)(end - line));
	out_append(out, "\r\n", 2);
	return 0;
}

/* GET and HEAD: a server may not read a body on them and take it for the
 * next request (RFC 9110 9.3.1 calls it a smuggling risk), the broker's
 * next head, key included, becoming that request's body. */
static bool no_body_method(const char *line)
{
	return strncmp(line, "GET ", 4) == 0 || strncmp(line, "HEAD ", 5) == 0;
}

/* The fields of a head (in r->line) named so. */
static size_t head_count(const void *arg, const char *name, size_t nlen)
{
	const struct reqp *r = arg;
	const char *s = r->line.s, *end = s + r->line.len;
	size_t n = 0;
	for (s = memmem(s, (size_t)(end - s), "\r\n", 2); s && s + 2 < end;
	     s = memmem(s + 2, (size_t)(end - s - 2), "\r\n", 2))
		if ((size_t)(end - s) > nlen + 3 && s[2 + nlen] == ':' &&
		    strncasecmp(s + 2, name, nlen) == 0)
			n++;
	return n;
}

/* A whole head in r->line (ending in CRLF CRLF): rewritten into out. */
static int head_done(struct reqp *r, struct strbuf *out)
{
	const char *s = r->line.s, *end = s + r->line.len - 2;
	struct head_info h = {0};
	memset(r->told, 0, sizeof(r->told));  /* a new request: new reports */
	if (memchr(s, '\0', r->line.len))
		return fail(r, 400, "a NUL byte in the request head");
	bool first = true;
	const char *rl_end = NULL;  /* the request line's */
	while (s < end) {
		const char *eol = memmem(s, (size_t)(end - s), "\r\n", 2);
		const char *lf = memchr(s, '\n', (size_t)(eol - s));
		const char *cr = memchr(s, '\r', (size_t)(eol - s));
		if (lf || cr)
			return fail(r, 400, "a bare CR or LF in the request head");
		if ((first ? request_line(r, s, eol, out) : head_field(r, s, eol, out, &h)) < 0)
			return -1;
		if (first)
			rl_end = eol;
		first = false;
		s = eol + 2;
	}
	/* No Accept-Encoding lets a server choose any coding (RFC 9110
	 * 12.5.3), gzip that hides an echoed value from brokerscrub.c: the
	 * broker asks for none in every request, not only where the jail's
	 * client named some */
	if (!h.accept_encoding)
		out_append(out, "Accept-Encoding: identity\r\n", 27);
	/* The broker's own Connection, never the jail's: a header it names is
	 * hop-by-hop, which a front end drops before the origin (Connection:
	 * Upgrade, Accept-Encoding would take the identity above away) */
	out_append(out, h.upgrade ? "Connection: Upgrade\r\n" : "Connection: close\r\n",
	           h.upgrade ? 21 : 19);
	out_append(out, "\r\n", 2);
	if (h.chunked && h.has_cl)
		return fail(r, 400, "both Content-Length and Transfer-Encoding");
	if (h.chunked && memcmp(rl_end - 8, "HTTP/1.0", 8) == 0)
		return fail(r, 400, "Transfer-Encoding in an HTTP/1.0 request");
	if (no_body_method(r->line.s) && (h.chunked || h.cl))
		return fail(r, 400, "a body on a GET or HEAD request");
	if (h.hosts != 1)
		return fail(r, 400, "no Host header");
	/* its bytes after the head wait for the answer (RQ_UPGRADE): a body
	 * would wait with them, and the upstream for it */
	if (h.upgrade && (h.chunked || h.cl))
		return fail(r, 400, "a body on an Upgrade request");
	if (carrier_alone(r, &h, head_count, r) < 0)
		return -1;
	r->carried += h.carried;
	r->body_reported = false;
	r->ncarry = 0;
	r->st = h.upgrade ? RQ_UPGRADE : h.chunked ? RQ_CHUNK_SIZE : h.cl ? RQ_BODY : RQ_HEAD;
	r->websocket = h.upgrade && h.websocket;
	r->left = h.cl;
	r->done = true;
	return 0;
}

/* Collect one line (a head: up to the empty line) into r->line; returns
 * bytes used, *done when it is whole. */
static size_t collect(struct reqp *r, const char *in, size_t len, const char *term, bool *done)
{
	size_t tl = strlen(term), used = 0;
	*done = false;
	while (used < len) {
		sb_append(&r->line, in + used, 1);
		used++;
		if (r->line.len >= tl && memcmp(r->line.s + r->line.len - tl, term, tl) == 0) {
			*done = true;
			break;
		}
	}
	return used;
}

/* A chunk size or trailer line (in r->line, CRLF-ended) with no other CR,
 * LF or control byte: an upstream ending lines at a bare CR would frame the
 * body differently. */
static bool line_clean(const struct reqp *r)
{
	for (size_t i = 0; i + 2 < r->line.len; i++) {
		unsigned char c = (unsigned char)r->line.s[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return false;
	}
	return true;
}

static int chunk_size_line(struct reqp *r)
{
	const char *s = r->line.s;
	uint64_t n = 0;
	size_t digits = 0;
	for (; *s; s++, digits++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
		        : *s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : -1;
		if (d < 0)
			break;
		n = n * 16 + (uint64_t)d;
	}
	if (!digits || digits > 15 || (*s != ';' && *s != '\r' && *s != ' ' && *s != '\t'))
		return fail(r, 400, "a bad chunk size");
	if (!line_clean(r))
		return fail(r, 400, "a control character in a chunk size line");
	r->left = n;
	r->st = n ? RQ_CHUNK_DATA : RQ_TRAILER;
	return 0;
}

/* Some servers merge a request's trailers into its head (Netty's
 * aggregator and the frameworks on it), past everything the broker does to
 * a head: a Range there slices an echo into pieces of a real value too short
 * for brokerscrub.c, an Accept-Encoding compresses it, a credential header
 * comes twice.  Clients hardly send any: a request with trailer fields is
 * refused before they go. */
#define TRAILERS_REFUSED "trailer fields in a request (a server may merge them into its head)"

static int trailer_line(struct reqp *r, struct strbuf *out)
{
	if (r->line.len == 2) {  /* the empty line: the request ends */
		out_append(out, "\r\n", 2);
		r->st = RQ_HEAD;
		return 0;
	}
	const char *s = r->line.s;
	if (!line_clean(r))
		return fail(r, 400, "a control character in a trailer line");
	/* a trailer is never a credential: a placeholder in it is reported */
	report_in(r, s, s + r->line.len, PL_TRAILER, "a trailer");
	return fail(r, 400, TRAILERS_REFUSED);
}

/* One state's worth of input; returns bytes used or -1. */
static ssize_t step(struct reqp *r, const char *in, size_t len, struct strbuf *out)
{
	bool done;
	size_t used;
	switch (r->st) {
	case RQ_HEAD:
		if (r->done)  /* one request per connection (brokerhttp.h): the rest is dropped */
			return (ssize_t)len;
		if (r->line.len == 0 && (in[0] == '\r' || in[0] == '\n'))
			return 1;  /* empty lines before a request are ignored (RFC 9112 2.2) */
		used = collect(r, in, len, "\r\n\r\n", &done);
		if (!done && r->line.len >= BROKER_HEAD_MAX)
			return fail(r, 431, "a request head over 64 KiB");
		if (done && head_done(r, out) < 0)
			return -1;
		break;
	case RQ_CHUNK_SIZE:
	case RQ_TRAILER:
		used = collect(r, in, len, "\r\n", &done);
		if (!done && r->line.len >= LINE_MAX_CHUNK)
			return fail(r, 400, "a chunk size or trailer line over 4 KiB");
		if (!done)
			break;
		if (r->st == RQ_TRAILER) {
			if (trailer_line(r, out) < 0)
				return -1;
			break;
		}
		if (chunk_size_line(r) < 0)
			return -1;
		out_append(out, r->line.s, r->line.len);
		break;
	case RQ_BODY:
	case RQ_CHUNK_DATA:
		used = len < r->left ? len : (size_t)r->left;
		body_scan(r, in, used);
		out_append(out, in, used);
		r->left -= used;
		if (!r->left)
			r->st = r->st == RQ_BODY ? RQ_HEAD : RQ_CHUNK_CRLF;
		return (ssize_t)used;
	case RQ_CHUNK_CRLF:
		used = collect(r, in, len, "\r\n", &done);
		if (r->line.len > 2 || (r->line.len == 2 && !done) || (r->line.len == 1 && r->line.s[0] != '\r'))
			return fail(r, 400, "chunk data longer than its size");
		if (done) {
			out_append(out, "\r\n", 2);
			r->st = RQ_CHUNK_SIZE;
		}
		break;
	case RQ_UPGRADE:
		if (r->pending.len + len > BROKER_HEAD_MAX)
			return fail(r, 400, "over 64 KiB sent before an upgrade was answered");
		sb_append(&r->pending, in, len);
		return (ssize_t)len;
	case RQ_RAW:
	default:
		if (r->websocket)
			ws_scan(r, in, len);
		else
			body_scan(r, in, len);
		out_append(out, in, len);
		return (ssize_t)len;
	}
	if (done) {
		explicit_bzero(r->line.s, r->line.len);
		r->line.len = 0;
		r->line.s[0] = '\0';
	}
	return (ssize_t)used;
}

int reqp_feed(struct reqp *r, const char *in, size_t len, struct strbuf *out)
{
	while (len) {
		ssize_t used = step(r, in, len, out);
		if (used < 0)
			return -1;
		in += used;
		len -= (size_t)used;
	}
	return 0;
}

void reqp_answered(struct reqp *r, bool switched, struct strbuf *out)
{
	if (r->st != RQ_UPGRADE)
		return;
	if (!switched) {
		r->st = RQ_HEAD;  /* r->done: the rest is dropped */
		sb_free(&r->pending);
		return;
	}
	r->st = RQ_RAW;
	int rc = r->pending.len ? reqp_feed(r, r->pending.s, r->pending.len, out) : 0;
	(void)rc;  /* RQ_RAW takes any bytes */
	sb_free(&r->pending);
}

/* ---- HTTP/2: a stream's header list, its DATA and trailers ---- */

static bool pair_is(const struct broker_pair *p, const char *name)
{
	return p->nlen == strlen(name) && memcmp(p->name, name, p->nlen) == 0;
}

/* The pseudo-headers (and Host) checked as a request line is: the method,
 * the target's path for the rules, the authority this host's. */
static int pairs_check(struct reqp *r, const struct broker_pair *in, size_t n,
                       struct head_info *h)
{
	const struct broker_pair *method = NULL, *path = NULL, *scheme = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct broker_pair *p = &in[i];
		if (pair_is(p, ":method"))
			method = p;
		else if (pair_is(p, ":path"))
			path = p;
		else if (pair_is(p, ":scheme"))
			scheme = p;
		else if (pair_is(p, ":protocol"))  /* extended CONNECT (RFC 8441) */
			return fail(r, 405, "a tunnel (extended CONNECT) through a brokered host");
		else if (pair_is(p, ":authority") || pair_is(p, "host")) {
			if (!is_our_authority(r, p->value, p->value + p->vlen))
				return fail(r, 421, "a request for another site");
			h->hosts++;
		} else if (r->ruled && is_method_override(p->name, p->nlen))
			return fail(r, 400, "a method override header to a host with rules");
	}
	const char *m = method ? method->value : "";
	size_t ml = method ? method->vlen : 0;
	if ((ml == 7 && strncasecmp(m, "CONNECT", 7) == 0) ||
	    (ml == 5 && (strncasecmp(m, "TRACE", 5) == 0 || strncasecmp(m, "TRACK", 5) == 0)))
		return fail(r, 405, "CONNECT, TRACE or TRACK through a brokered host");
	if (!method || !path || !h->hosts)
		return fail(r, 400, "a request without :method, :path or :authority");
	if (scheme && !(scheme->vlen == 5 && memcmp(scheme->value, "https", 5) == 0))
		return fail(r, 400, "a scheme other than https");
	if (path->vlen == 0 || (path->value[0] != '/' && !(path->vlen == 1 && path->value[0] == '*')))
		return fail(r, 400, "a bad :path");
	if (rules_decide(r, m, ml, path->value, path->value + path->vlen) < 0)
		return -1;
	report_in(r, path->value, path->value + path->vlen, PL_URL, "the URL");
	return 0;
}

struct pair_list {
	const struct broker_pair *p;
	size_t n;
};

static size_t pairs_count(const void *arg, const char *name, size_t nlen)
{
	const struct pair_list *l = arg;
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += l->p[i].nlen == nlen && strncasecmp(l->p[i].name, name, nlen) == 0;
	return n;
}

int reqp_pairs(struct reqp *r, const struct broker_pair *in, size_t n, struct strbuf *out,
               size_t *off, size_t *len, bool *sensitive)
{
	struct head_info h = {0};
	memset(r->told, 0, sizeof(r->told));
	if (pairs_check(r, in, n, &h) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct broker_pair *p = &in[i];
		size_t carriers = h.n_carriers;
		off[i] = out->len;
		len[i] = 0;
		if (is_range(p->name, p->nlen))
			len[i] = REQP_DROPPED;
		else if (p->nlen && p->name[0] == ':')  /* checked above, never a credential */
			out_append(out, p->value, p->vlen);
		else if (is_accept_encoding(p->name, p->nlen))
			out_append(out, "identity", 8);
		else if (!rewrite_basic(r, p->name, p->nlen, p->value, p->value + p->vlen, out, &h))
			rewrite_value(r, p->name, p->nlen, p->value, p->value + p->vlen, out, &h);
		if (len[i] != REQP_DROPPED)
			len[i] = out->len - off[i];
		sensitive[i] = h.n_carriers > carriers;
	}
	if (carrier_alone(r, &h, pairs_count, &(struct pair_list){in, n}) < 0)
		return -1;
	r->carried += h.carried;
	r->done = true;
	return 0;
}

void reqp_data(struct reqp *r, const char *in, size_t len)
{
	body_scan(r, in, len);
}

int reqp_trailers(struct reqp *r, const struct broker_pair *in, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		report_in(r, in[i].name, in[i].name + in[i].nlen, PL_TRAILER, "a trailer");
		report_in(r, in[i].value, in[i].value + in[i].vlen, PL_TRAILER, "a trailer");
	}
	return n ? fail(r, 400, TRAILERS_REFUSED) : 0;
}
