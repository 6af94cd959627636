/* brokerresp.c — a brokered HTTP/1.1 response, scrubbed through its framing
 * (brokerresp.h). */
#include "brokerresp.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define CHUNK_LINE_MAX 4096

void resp_init(struct resp *r, const struct broker_cred *creds, size_t n)
{
	memset(r, 0, sizeof(*r));
	scrub_init(&r->sc, creds, n);
	r->st = RS_HEAD;
}

void resp_free(struct resp *r)
{
	scrub_free(&r->sc);
	if (r->line.s)
		explicit_bzero(r->line.s, r->line.cap);
	sb_free(&r->line);
}

/* Scrubbed chunk data, out as a chunk of its own size (none when empty). */
static void put_chunk(const struct strbuf *data, struct strbuf *out)
{
	if (!data->len)
		return;
	sb_printf(out, "%zx\r\n", data->len);
	sb_append(out, data->s, data->len);
	sb_append(out, "\r\n", 2);
}

static void feed_chunk(struct resp *r, const char *in, size_t len, struct strbuf *out)
{
	struct strbuf data = {0};
	scrub_feed(&r->sc, in, len, &data);
	put_chunk(&data, out);
	if (data.s)
		explicit_bzero(data.s, data.cap);
	sb_free(&data);
}

static bool in_chunked_body(const struct resp *r)
{
	return r->st == RS_CHUNK_SIZE || r->st == RS_CHUNK_DATA || r->st == RS_CHUNK_CRLF;
}

/* What the scrubber held (on a pause: what it lets go then), to out, as a
 * chunk inside a chunked body. */
static void held_out(struct resp *r, struct strbuf *out, bool pause)
{
	bool chunked = in_chunked_body(r);
	struct strbuf data = {0};
	struct strbuf *to = chunked ? &data : out;
	if (pause)
		(void)scrub_pause(&r->sc, to);
	else
		scrub_flush(&r->sc, to);
	if (!chunked)
		return;
	put_chunk(&data, out);
	if (data.s)
		explicit_bzero(data.s, data.cap);
	sb_free(&data);
}

void resp_flush(struct resp *r, struct strbuf *out)
{
	held_out(r, out, false);
}

void resp_pause(struct resp *r, struct strbuf *out)
{
	held_out(r, out, true);
}

/* The response cannot be read on (brokerresp.h): nothing more passes, what
 * the scrubber holds included. */
static void broken(struct resp *r)
{
	r->st = RS_BROKEN;
	explicit_bzero(r->sc.held, r->sc.n_held);
	r->sc.n_held = 0;
	for (size_t i = 0; i < r->sc.n; i++)  /* (no verdict on a value cut off here) */
		r->sc.keys[i].state = 0;
	r->sc.active = 0;
	if (r->line.s)
		explicit_bzero(r->line.s, r->line.len);
	r->line.len = 0;
}

/* The value of the field NAME (with its colon) that line L starts, trimmed
 * (its end in *vend); NULL if L starts another. */
static const char *field_value(const char *l, const char *end, const char *name,
                               const char **vend)
{
	size_t nlen = strlen(name);
	if ((size_t)(end - l) < nlen || strncasecmp(l, name, nlen) != 0)
		return NULL;
	const char *v = l + nlen, *ve = memchr(v, '\n', (size_t)(end - v));
	if (!ve)
		ve = end;
	while (v < ve && (*v == ' ' || *v == '\t'))
		v++;
	while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ' || ve[-1] == '\t'))
		ve--;
	*vend = ve;
	return v;
}

/* A whole head in r->line: its status, and whether its body is chunked.
 * Its bytes went out already. */
static enum resp_state after_head(const struct resp *r)
{
	const char *s = r->line.s, *end = s + r->line.len;
	unsigned status = 0;
	if (r->line.len < 12 || memcmp(s, "HTTP/1.", 7) != 0 || s[8] != ' ' ||
	    sscanf(s + 9, "%3u", &status) != 1)
		return RS_RAW;
	if (status >= 100 && status < 200 && status != 101)
		return RS_HEAD;  /* an interim answer: the real one follows */
	if (status < 200 || status == 204 || status == 304 || r->head_request)
		return RS_RAW;   /* no body (after a 101, another protocol) */
	int te = 0;
	bool chunked = false, coded = false;
	for (const char *l = memchr(s, '\n', (size_t)(end - s)); l && ++l < end;
	     l = memchr(l, '\n', (size_t)(end - l))) {
		const char *ve, *v = field_value(l, end, "transfer-encoding:", &ve);
		if (v) {
			te++;
			chunked = ve - v == 7 && strncasecmp(v, "chunked", 7) == 0;
		}
		/* A server may code its answer whatever the request asked
		 * (Accept-Encoding: identity is a wish, RFC 9110 12.5.3; an
		 * endpoint that always gzips, a stored object served with its
		 * coding): an echoed value in a gzip body is past brokerscrub.c. */
		v = field_value(l, end, "content-encoding:", &ve);
		coded |= v && !(ve == v || (ve - v == 8 && strncasecmp(v, "identity", 8) == 0));
	}
	/* another coding, or two fields, or a content coding: not readable
	 * (the broker asks for none but chunked, and identity) */
	if (coded)
		return RS_BROKEN;
	return te == 0 ? RS_RAW : te == 1 && chunked ? RS_CHUNK_SIZE : RS_BROKEN;
}

/* The head's bytes up to its end (or all of in): out through the scrubber,
 * kept in r->line to be read.  How many were taken. */
static size_t take_head(struct resp *r, const char *in, size_t len, struct strbuf *out)
{
	size_t i = 0;
	bool whole = false;
	while (i < len && !whole) {
		char c = in[i++];
		sb_append(&r->line, &c, 1);
		size_t n = r->line.len;
		whole = c == '\n' && n >= 2 &&
		        (r->line.s[n - 2] == '\n' || (n >= 3 && r->line.s[n - 2] == '\r' &&
		                                      r->line.s[n - 3] == '\n'));
	}
	scrub_feed(&r->sc, in, i, out);
	if (whole) {
		/* (nothing is held here, no value holding a line end; were it, it
		 * would go before the framing of the broker's own) */
		scrub_flush(&r->sc, out);
		enum resp_state next = after_head(r);
		unsigned status = 0;
		if (r->line.len < 12 || sscanf(r->line.s + 9, "%3u", &status) != 1 || status < 100)
			status = 1;
		if (next != RS_HEAD || status == 1)  /* not an interim answer */
			r->status = status;
		r->line.len = 0;
		r->st = next;
	} else if (r->line.len > BROKER_HEAD_MAX) {
		broken(r);  /* its end, and the body's framing, never read */
		r->status = 1;
	}
	return i;
}

/* A chunk-size line in r->line: the size (extensions ignored), or -1. */
static int chunk_size(const struct resp *r, uint64_t *size)
{
	const char *s = r->line.s, *end = s + r->line.len;
	uint64_t n = 0;
	int digits = 0;
	for (; s < end; s++, digits++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0'
		        : (*s | 0x20) >= 'a' && (*s | 0x20) <= 'f' ? (*s | 0x20) - 'a' + 10 : -1;
		if (d < 0)
			break;
		if (digits == 16)
			return -1;
		n = n << 4 | (uint64_t)d;
	}
	if (!digits || (*s != ';' && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n'))
		return -1;
	*size = n;
	return 0;
}

/* One line's bytes (to its LF) into r->line; true when it is whole. */
static bool take_line(struct resp *r, const char *in, size_t len, size_t *used)
{
	const char *nl = memchr(in, '\n', len);
	size_t n = nl ? (size_t)(nl - in) + 1 : len;
	sb_append(&r->line, in, n);
	*used = n;
	return nl != NULL;
}

static size_t step(struct resp *r, const char *in, size_t len, struct strbuf *out)
{
	size_t used = 0;
	switch (r->st) {
	case RS_HEAD:
		return take_head(r, in, len, out);
	case RS_CHUNK_SIZE: {
		bool whole = take_line(r, in, len, &used);
		uint64_t size = 0;
		if (!whole) {
			if (r->line.len > CHUNK_LINE_MAX)
				broken(r);
			return used;
		}
		if (chunk_size(r, &size) < 0) {
			broken(r);
			return used;
		}
		r->line.len = 0;
		if (size) {
			r->left = size;
			r->st = RS_CHUNK_DATA;
			return used;
		}
		/* the last chunk: what was held, then it; the trailers as they come */
		resp_flush(r, out);
		sb_puts(out, "0\r\n");
		r->st = RS_RAW;
		return used;
	}
	case RS_CHUNK_DATA:
		used = len < r->left ? len : (size_t)r->left;
		feed_chunk(r, in, used, out);
		r->left -= used;
		if (!r->left)
			r->st = RS_CHUNK_CRLF;
		return used;
	case RS_CHUNK_CRLF: {
		/* "\r\n" or "\n", perhaps in two reads */
		bool whole = take_line(r, in, len, &used);
		const char *l = r->line.s;
		bool ok = (r->line.len == 1 && (l[0] == '\n' || l[0] == '\r')) ||
		          (r->line.len == 2 && l[0] == '\r' && l[1] == '\n');
		if (!ok)
			broken(r);
		else if (whole) {
			r->line.len = 0;
			r->st = RS_CHUNK_SIZE;
		}
		return used;
	}
	case RS_BROKEN:
		return len;
	case RS_RAW:
	default:
		scrub_feed(&r->sc, in, len, out);
		return len;
	}
}

void resp_feed(struct resp *r, const char *in, size_t len, struct strbuf *out)
{
	if (!r->sc.n) {  /* nothing to scrub: no need to read the framing */
		sb_append(out, in, len);
		return;
	}
	while (len) {
		size_t n = step(r, in, len, out);
		in += n;
		len -= n;
	}
}
