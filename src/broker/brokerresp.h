/* brokerresp.h — the response of a brokered HTTP/1.1 connection, scrubbed
 * through its framing.
 *
 * The scrubber (brokerscrub.h) finds a real value however the stream's bytes
 * are split into reads; but a chunked body splits them with bytes of its
 * own: an echo whose chunk ends inside the key ("...sk-ant-AB\r\n20\r\nCD...")
 * showed no whole value to the scrubber, and the agent's HTTP client, which
 * drops the framing, had the key.  The agent chooses where the echo falls
 * (by the length of what it sends), and an upstream's chunk ends where its
 * buffers do.  So the response is read as HTTP: its head (and any 1xx
 * before it) goes through the scrubber as it is; a chunked body's data goes
 * through it without the framing, and leaves in chunks of the broker's own
 * (extensions dropped: the sizes are new), then the last chunk and the
 * trailers.  Any other body is contiguous and goes as it is (Content-Length,
 * or to the connection's end), as does everything after a 101 (a WebSocket's
 * frames are not read: the broker does not see through them).  A response
 * the broker cannot read to its end (a head over BROKER_HEAD_MAX, a
 * transfer coding other than one "chunked", chunk framing that does not
 * parse) ends there (r->broken; the relay ends the connection): passed on
 * as it came, its framing would stand between the bytes of an echoed value
 * where the scrubber looks, and the agent's client, which drops it, would
 * join them.
 *
 * One response per connection (brokerhttp.h: one request, "Connection:
 * close"), after any number of 1xx.  Pure code, no I/O. */
#ifndef JAIL_BROKERRESP_H
#define JAIL_BROKERRESP_H
#include "brokerscrub.h"

enum resp_state {
	RS_HEAD,        /* a status line and headers */
	RS_CHUNK_SIZE,  /* a chunk-size line */
	RS_CHUNK_DATA,  /* chunk data: `left` bytes to come */
	RS_CHUNK_CRLF,  /* the line end after chunk data */
	RS_TRAILER,     /* trailer lines, to the empty one */
	RS_RAW,         /* everything else: as it comes, through the scrubber */
	RS_BROKEN,      /* not readable: nothing more passes */
};

struct resp {
	struct scrub sc;
	enum resp_state st;
	struct strbuf line;  /* the head so far, or the chunk-size line */
	uint64_t left;
	bool head_request;   /* the request was HEAD: no body follows its head */
	unsigned status;     /* the final answer's status once its head is whole
	                      * (1: not a readable one), else 0 */
};

void resp_init(struct resp *r, const struct broker_cred *creds, size_t n);
void resp_free(struct resp *r);
/* len bytes from the upstream: what may go to the jail now, to out. */
void resp_feed(struct resp *r, const char *in, size_t len, struct strbuf *out);
/* The stream ended: what the scrubber held, to out (as a chunk inside a
 * chunked body); nothing if that makes a guess (r->sc.cut, brokerscrub.h). */
void resp_flush(struct resp *r, struct strbuf *out);
/* The stream paused: the same, but a possible value past SCRUB_GUESS_MAX
 * stays held. */
void resp_pause(struct resp *r, struct strbuf *out);
/* Bytes the scrubber holds now that a pause would let go. */
static inline bool resp_held(const struct resp *r) { return scrub_pausable(&r->sc); }
/* The response could not be read to its end: the connection ends. */
static inline bool resp_broken(const struct resp *r) { return r->st == RS_BROKEN; }
/* A guess was seen (brokerscrub.h): the connection ends. */
static inline bool resp_cut(const struct resp *r) { return r->sc.cut; }
#endif
