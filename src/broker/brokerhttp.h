/* brokerhttp.h — the request side of a brokered HTTP/1.1 connection (and,
 * through reqp_pairs below, of each stream of an HTTP/2 one: brokerh2.c).
 *
 * Bytes from the jail go in, bytes for the upstream come out.  Only request
 * heads are rewritten: in the credential headers a secret names, its
 * placeholder becomes its real value, for the hosts it names and nowhere else,
 * and only as the whole credential (PH, SCHEME PH, or a whole field of a Basic
 * user:password), once per header name and request: glued to other text or
 * joined to a second copy it would make an invalid key, which an upstream's
 * error message might quote back into the jail.
 * Bodies (content-length, chunked) and upgraded streams pass through as they
 * are; a placeholder seen there, in the URL or in any other header is reported
 * (once per request, secret and place) and sent unchanged.  After a WebSocket
 * upgrade the client's frames are unmasked to be watched (a copy; the bytes
 * sent are the client's), and the upgrade goes without
 * Sec-WebSocket-Extensions, so that no compression hides a placeholder in a
 * message; Accept-Encoding becomes "identity" (and is added where the
 * client sent none, which lets a server choose any), so that none hides a real
 * value in a response from brokerscrub.h, and Range goes nowhere, so that no
 * answer is a slice of one, holding pieces of a real value too short for it.
 * The framing is parsed strictly (no CL with TE, no TE in HTTP/1.0,
 * no body on GET or HEAD, no obs-fold, CRLF only, in chunk lines and trailers
 * too): a request the broker could frame differently from the
 * upstream is refused rather than guessed at.  So is a request meant for
 * another site behind the same front end (a Host header or an absolute URL
 * naming another host: domain fronting would carry the key there), and TRACE,
 * which echoes the request, credentials included (methods in any case: a
 * lenient server may take them so).
 * A secret with rules (brokerrules.h) gets its real value only in requests
 * whose method and path one of them allows; any other request goes with the
 * placeholder (told through withhold, not reported as an exfiltration).
 * While such a secret is for this host, a target whose path could be read
 * two ways, and a method override header (X-HTTP-Method-Override and kin,
 * which some frameworks obey), are refused.
 *
 * One request per HTTP/1.1 connection: it goes upstream with "Connection: close" (the
 * jail's Connection and Keep-Alive headers held back; an upgrade gets
 * "Connection: Upgrade", naming no header a front end would drop),
 * and whatever the jail sends after it is dropped.  So no second head, with
 * its real value, ever follows a body on an upstream connection: a server
 * that misreads a body (takes it for a request, whose own Content-Length
 * then swallows what follows) finds nothing after it to swallow.  Clients
 * see the upstream's "Connection: close" and open a new connection.  After
 * an Upgrade request (which takes no body) the jail's bytes wait for the
 * upstream's answer (reqp_answered): a server that ignores the upgrade keeps
 * the connection, and would read them as requests never checked here.
 * Pure code, no I/O. */
#ifndef JAIL_BROKERHTTP_H
#define JAIL_BROKERHTTP_H
#include "util.h"

#include <stdint.h>

#define BROKER_HEAD_MAX (64 * 1024)
#define BROKER_PH_MAX 256            /* longest placeholder (and real value) */

/* One secret as the request rewriter sees it. */
struct broker_cred {
	const char *name;          /* the variable, for reports */
	const char *placeholder;
	const char *real;          /* NULL: not for this connection's host */
	const struct strv *headers;
	const struct strv *rules;  /* NULL: any request; else only those they allow */
};

/* RQ_UPGRADE: an Upgrade request went out; what the jail sends waits for the
 * answer (reqp_answered): a 101 passes it on, anything else drops it. */
enum reqp_state { RQ_HEAD, RQ_BODY, RQ_CHUNK_SIZE, RQ_CHUNK_DATA, RQ_CHUNK_CRLF, RQ_TRAILER, RQ_RAW,
                  RQ_UPGRADE };

struct reqp {
	const char *host;          /* the brokered host this connection is for */
	const struct broker_cred *creds;
	size_t n_creds;
	/* told once per request and place: NAME's placeholder, where */
	void (*report)(void *arg, const char *name, const char *where);
	/* told once per request and secret: NAME's real value kept from request
	 * ("METHOD PATH"), which its rules do not allow */
	void (*withhold)(void *arg, const char *name, const char *request);
	void *arg;

	enum reqp_state st;
	struct strbuf line;        /* the head, a chunk-size line or a trailer line */
	uint64_t left;             /* bytes of body or chunk still to come */
	char carry[BROKER_PH_MAX]; /* the body's last bytes: a placeholder split across reads */
	size_t ncarry;
	bool body_reported;
	bool done;                 /* a request went out: nothing more on this connection */
	bool head_method;          /* it was HEAD: its response has no body (brokerresp.h) */
	uint32_t told[4];          /* per place (URL, header, body, trailer): secrets reported */
	bool websocket;            /* RQ_RAW after a WebSocket upgrade: frames are read */
	bool ruled;                /* a secret for this host has rules */
	uint32_t withheld;         /* the secrets this request's rules keep their real values from */
	uint32_t told_withheld;
	char request[128];         /* "METHOD PATH", printable, for the withheld notice */
	struct {                   /* the client's frame being read (RFC 6455) */
		unsigned char head[14];
		size_t nhead;
		uint64_t left;         /* its payload bytes still to come */
		uint64_t pos;          /* the payload's bytes so far: the place in the mask */
		unsigned char mask[4];
	} ws;
	struct strbuf pending;     /* RQ_UPGRADE: the jail's bytes, until the answer */
	unsigned long carried;     /* request heads that got a real value */
	int status;                /* on error: the HTTP status to answer with */
	char err[160];
};

void reqp_init(struct reqp *r, const char *host, const struct broker_cred *creds, size_t n);
void reqp_free(struct reqp *r);
/* Feed bytes from the jail; what goes upstream is appended to *out (which may
 * hold a real value: wipe it after use).  -1: a request that may not pass
 * (r->status, r->err say why); the connection ends. */
int reqp_feed(struct reqp *r, const char *in, size_t len, struct strbuf *out) WUR;
/* The upstream answered an Upgrade request (RQ_UPGRADE; else nothing to do):
 * switched (101), what the jail sent since goes on to *out and the rest
 * passes as it comes; not switched, that exchange was the connection's one
 * request and anything more from the jail is dropped.  An upstream that
 * kept the connection would otherwise read those bytes as requests the
 * broker never checked (another site's Host, TRACE). */
void reqp_answered(struct reqp *r, bool switched, struct strbuf *out);

/* HTTP/2 (brokerh2.c): one reqp per stream, the same rules on its header
 * list, which nghttp2 has already checked for HTTP/2's own rules (lower-case
 * names, no connection headers, no CR, LF or NUL, the pseudo-headers once
 * and first).  :authority and Host must name this host, :scheme be https;
 * CONNECT and extended CONNECT, TRACE and TRACK are refused; the rules read
 * :method and :path; each other header is rewritten as an HTTP/1.1 one is.
 * Each value goes to *out, at off[i] for len[i] bytes, or the header goes
 * nowhere (len[i] == REQP_DROPPED: Range); sensitive[i] marks those given a
 * real value (never to be indexed by HPACK).  -1 as reqp_feed. */
#define REQP_DROPPED ((size_t)-1)
struct broker_pair {
	const char *name, *value;
	size_t nlen, vlen;
};
int reqp_pairs(struct reqp *r, const struct broker_pair *in, size_t n, struct strbuf *out,
               size_t *off, size_t *len, bool *sensitive) WUR;
/* A stream's DATA, watched like a body.  Its trailers: any field is
 * refused as in HTTP/1.1 (a server may merge them into the head), -1 (its
 * placeholders reported first). */
void reqp_data(struct reqp *r, const char *in, size_t len);
int reqp_trailers(struct reqp *r, const struct broker_pair *in, size_t n) WUR;
#endif
