/* Unit tests: brokerresp.c (a response scrubbed through its framing). */
#include "t.h"
#include "brokerresp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REAL "sk-ant-api03-REALvalue0123456789abcdef"
#define PH "sk-ant-api03-PHldrvalu9876543210zyxwvu"

static struct broker_cred creds[] = {{.name = "A", .placeholder = PH, .real = REAL}};

/* A response fed in reads of `step` bytes, then flushed (the stream's end). */
static char *run(const char *text, size_t step, bool head)
{
	struct resp r;
	struct strbuf out = {0};
	resp_init(&r, creds, 1);
	r.head_request = head;
	size_t len = strlen(text);
	for (size_t at = 0; at < len; at += step)
		resp_feed(&r, text + at, len - at < step ? len - at : step, &out);
	resp_flush(&r, &out);
	resp_free(&r);
	sb_append(&out, "", 1);
	return out.s;
}

/* body in chunks of n bytes, with an extension on each size line */
static char *chunked(const char *head, const char *body, size_t n)
{
	struct strbuf b = {0};
	sb_puts(&b, head);
	for (size_t i = 0; i < strlen(body); i += n) {
		size_t k = strlen(body) - i < n ? strlen(body) - i : n;
		sb_printf(&b, "%zx;x=1\r\n", k);
		sb_append(&b, body + i, k);
		sb_puts(&b, "\r\n");
	}
	sb_puts(&b, "0\r\nT: " REAL "\r\n\r\n");
	sb_append(&b, "", 1);
	return b.s;
}

/* The data of a chunked body at *p (strict), its trailers after it. */
static char *dechunk(const char *p, const char **trailers)
{
	struct strbuf b = {0};
	for (;;) {
		char *end;
		unsigned long n = strtoul(p, &end, 16);
		if (end == p || strncmp(end, "\r\n", 2) != 0)
			break;
		p = end + 2;
		if (!n)
			break;
		sb_append(&b, p, n);
		p += n;
		if (strncmp(p, "\r\n", 2) != 0)
			break;
		p += 2;
	}
	*trailers = p;
	sb_append(&b, "", 1);
	return b.s;
}

#define HEAD "HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\nX-Echo: " REAL "\r\n\r\n"

T(resp_chunked_body_scrubbed_through_any_chunking)
{
	const char *body = "{\"error\":\"bad key " REAL "\",\"again\":\"" REAL "\"}";
	for (size_t n = 1; n <= strlen(body); n++)
		for (size_t step = 1; step < 40; step += 13) {
			char *in = chunked(HEAD, body, n);
			char *o = run(in, step, false);
			const char *sep = strstr(o, "\r\n\r\n");
			CHECK(sep != NULL);
			if (!sep) {
				free(in), free(o);
				return;
			}
			CHECK(strncmp(o, "HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\n"
			                 "X-Echo: " PH "\r\n\r\n", (size_t)(sep + 4 - o)) == 0);
			const char *tr;
			char *data = dechunk(sep + 4, &tr);
			CHECK_STR(data, "{\"error\":\"bad key " PH "\",\"again\":\"" PH "\"}");
			CHECK_STR(tr, "T: " PH "\r\n\r\n");
			CHECK(strstr(o, "REALvalue") == NULL);
			free(data), free(in), free(o);
		}
}

T(resp_interim_answers_then_chunked)
{
	char *in = chunked("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: x\r\n\r\n"
	                   HEAD, "k=" REAL, 5);
	char *o = run(in, 3, false);
	CHECK(strstr(o, "REALvalue") == NULL);
	const char *sep = strstr(o, "X-Echo: " PH "\r\n\r\n");
	CHECK(sep != NULL);
	const char *tr;
	char *data = sep ? dechunk(sep + strlen("X-Echo: " PH "\r\n\r\n"), &tr) : NULL;
	CHECK_STR(data ? data : "", "k=" PH);
	free(data), free(in), free(o);
}

T(resp_other_bodies_go_as_they_are)
{
	/* Content-Length: the bytes themselves, scrubbed */
	const char *cl = "HTTP/1.1 200 OK\r\nContent-Length: 44\r\n\r\nk=" REAL "\r\n\r\n";
	char *o = run(cl, 5, false);
	CHECK_STR(o, "HTTP/1.1 200 OK\r\nContent-Length: 44\r\n\r\nk=" PH "\r\n\r\n");
	free(o);
	/* HEAD, 204, 304: a chunked head has no body; nothing is re-framed */
	const char *h = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
	o = run(h, 4, true);
	CHECK_STR(o, h);
	free(o);
	/* a coding besides chunked is not readable (the broker asks for none):
	 * its head, then nothing */
	const char *gz = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n";
	struct strbuf in = {0};
	sb_puts(&in, gz);
	sb_puts(&in, "5\r\nhello\r\n");
	o = run(in.s, 7, false);
	CHECK_STR(o, gz);
	free(o);
	sb_free(&in);
	/* a content coding is not readable either (a server may use one what
	 * ever was asked): its head, then nothing; identity is read */
	const char *cz = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Encoding:  GZip \r\n\r\n";
	sb_puts(&in, cz);
	sb_puts(&in, "hello");
	o = run(in.s, 3, false);
	CHECK_STR(o, cz);
	free(o);
	sb_free(&in);
	o = run("HTTP/1.1 200 OK\r\nContent-Length: 2\r\ncontent-encoding: identity\r\n\r\nhi", 3, false);
	CHECK_STR(o, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\ncontent-encoding: identity\r\n\r\nhi");
	free(o);
	/* after a 101, another protocol's bytes: as they are, scrubbed */
	o = run("HTTP/1.1 101 Switching\r\nUpgrade: websocket\r\n\r\n3\r\nabc" REAL, 6, false);
	CHECK_STR(o, "HTTP/1.1 101 Switching\r\nUpgrade: websocket\r\n\r\n3\r\nabc" PH);
	free(o);
}

T(resp_bad_framing_ends_it_there)
{
	/* (in one read: the chunks leave as the reads came) a chunk-size line that
	 * is not one: nothing from there on, not even the scrubbed rest */
	struct resp r;
	struct strbuf out = {0};
	resp_init(&r, creds, 1);
	const char *in = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	                 "3\r\nabc\r\nzz sk-ant-api03-REAL\r\n";
	resp_feed(&r, in, strlen(in), &out);
	CHECK(resp_broken(&r));
	resp_feed(&r, "value0123456789abcdef\r\n", 23, &out);
	resp_flush(&r, &out);
	sb_append(&out, "", 1);
	CHECK_STR(out.s, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n");
	CHECK(!r.sc.cut);
	resp_free(&r);
	sb_free(&out);
	/* data longer than its size */
	char *o = run("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n", 1000, false);
	CHECK_STR(o, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n");
	free(o);
	/* a head over 64 KiB: the rest of it, and its body, never read */
	struct strbuf big = {0};
	sb_puts(&big, "HTTP/1.1 200 OK\r\n");
	for (int i = 0; i < 5000; i++)
		sb_puts(&big, "X-Pad: xxxxxxxxxxxxxxxxxxxx\r\n");
	sb_puts(&big, "Transfer-Encoding: chunked\r\n\r\n1\r\nk\r\n");
	resp_init(&r, creds, 1);
	resp_feed(&r, big.s, 70000, &out);
	CHECK(resp_broken(&r));
	size_t sent = out.len;
	resp_feed(&r, big.s + 70000, big.len - 70000, &out);
	CHECK_INT((int)out.len, (int)sent);
	CHECK_INT((int)r.status, 1);
	resp_free(&r);
	sb_free(&out);
	sb_free(&big);
}

T(resp_pause_inside_a_chunk_sends_a_chunk)
{
	struct resp r;
	struct strbuf out = {0};
	resp_init(&r, creds, 1);
	const char *in = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n20\r\nsk-ant-api03-REALval";
	resp_feed(&r, in, strlen(in), &out);
	CHECK(resp_held(&r) > 0);
	/* the relay's pause: what was held goes, framed, as the placeholder's */
	resp_flush(&r, &out);
	sb_append(&out, "", 1);
	CHECK(strstr(out.s, "\r\n\r\n14\r\nsk-ant-api03-PHldrva\r\n") != NULL);
	sb_free(&out);
	resp_free(&r);
}

T(resp_without_secrets_is_untouched)
{
	struct resp r;
	struct strbuf out = {0};
	resp_init(&r, creds, 0);
	const char *in = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;e\r\nabc\r\n0\r\n\r\n";
	resp_feed(&r, in, strlen(in), &out);
	sb_append(&out, "", 1);
	CHECK_STR(out.s, in);
	sb_free(&out);
	resp_free(&r);
}

T(resp_status_is_the_final_answers)
{
	/* what an Upgrade request waits for (reqp_answered): not a 1xx */
	struct resp r;
	struct strbuf out = {0};
	resp_init(&r, creds, 1);
	const char *in = "HTTP/1.1 100 Continue\r\n\r\n";
	resp_feed(&r, in, strlen(in), &out);
	CHECK_INT((int)r.status, 0);
	in = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n";
	resp_feed(&r, in, strlen(in), &out);
	CHECK_INT((int)r.status, 0);
	resp_feed(&r, "\r\n", 2, &out);
	CHECK_INT((int)r.status, 101);
	resp_free(&r);
	resp_init(&r, creds, 1);
	in = "garbage\r\n\r\n";
	resp_feed(&r, in, strlen(in), &out);
	CHECK_INT((int)r.status, 1);
	resp_free(&r);
	sb_free(&out);
}
