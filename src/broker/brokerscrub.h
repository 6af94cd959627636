/* brokerscrub.h — the response side of a brokered connection: the real
 * values never come back into the jail.  An upstream that echoes a request
 * (an error quoting the header, a debugging endpoint) would hand the agent
 * the key the broker put there; every occurrence of a real value in what the
 * upstream sends is replaced by its placeholder, which has the same length,
 * so framing (Content-Length, chunk sizes, HTTP/2 frames) stays as it was.
 *
 * The bytes are a stream read in pieces: a value split across reads is
 * found by a matcher per secret (KMP) that runs over the whole stream.  The
 * bytes of a possible value past the part its placeholder shares with it
 * (the kept prefix: sk-ant-api03-) are held back until the value is whole or
 * ruled out; the shared part may go at once, being the same in both.  So
 * what is held is at most a value's length, and only while the stream's
 * last bytes begin a real value beyond its public prefix.  Encodings are not
 * seen through (compressed, base64): the broker asks for uncompressed
 * responses (brokerhttp.c drops Accept-Encoding).  One is: the broker itself
 * puts a value inside base64 (a Basic credential's user:password), so an
 * upstream that quotes that header back quotes the value in base64; each of
 * its three spellings (one per offset in base64's 3-byte groups) is watched
 * as a value of its own and becomes the placeholder's spelling at that
 * offset.
 *
 * What the scrubber does with a possible value shows the agent whether the
 * bytes it had an upstream echo begin the real one: a guess that does
 * comes back as the placeholder's (at a pause or the end) or later (held),
 * a wrong one as it was.  One character at a time, that spells the whole
 * value.  So a possible value that gets SCRUB_GUESS_MAX characters past the
 * kept prefix and then is not one (another byte follows, the stream ends,
 * or it is cut short) is taken for a guess: nothing more of the stream
 * passes (cut, cut_cred say whose), and the caller ends the connection
 * and stops brokering that secret (broker.c): guesses confirm at most that
 * many characters.  A pause there holds the bytes until the stream goes
 * on (a real value is still replaced whole), rather than telling.
 * Pure code, no I/O. */
#ifndef JAIL_BROKERSCRUB_H
#define JAIL_BROKERSCRUB_H
#include "brokerhttp.h"
#include "util.h"

/* the longest string watched for: a value's base64 spelling */
#define SCRUB_MAX (BROKER_PH_MAX / 3 * 4 + 8)

struct scrub_key {
	const char *real, *ph;
	size_t len, keep;          /* its length; the prefix it shares with ph */
	uint16_t fail[SCRUB_MAX + 1];
	char b64_real[SCRUB_MAX + 1], b64_ph[SCRUB_MAX + 1];  /* a base64 spelling's */
	size_t state;              /* bytes of real matched at the stream's end */
	size_t cred;               /* its index in the creds given to scrub_init */
	bool guess_watch;          /* a value that dies past SCRUB_GUESS_MAX is a guess
	                            * (not the longer twin of a base64 spelling) */
};

/* characters past a value's kept prefix that a guess may confirm */
#define SCRUB_GUESS_MAX 8

struct scrub {
	struct scrub_key *keys;
	size_t n;
	char held[SCRUB_MAX];      /* the stream's last bytes, not yet passed on */
	size_t n_held;
	bool first[256];           /* the bytes a value begins with */
	size_t active;             /* non-zero: some matcher is inside a value */
	bool cut;                  /* a guess was seen: nothing more passes */
	size_t cut_cred;           /* whose value it guessed */
};

/* The real values of creds (those that have one) to watch for, as they are
 * and in base64. */
void scrub_init(struct scrub *s, const struct broker_cred *creds, size_t n);
void scrub_free(struct scrub *s);
/* len bytes from the upstream: what may go to the jail now, to out. */
void scrub_feed(struct scrub *s, const char *in, size_t len, struct strbuf *out);
/* The stream ended: what was held, to out (nothing if that makes a guess). */
void scrub_flush(struct scrub *s, struct strbuf *out);
/* The stream waits too long: the same, unless a possible value is past
 * SCRUB_GUESS_MAX (held on).  Does anything stay held? */
bool scrub_pause(struct scrub *s, struct strbuf *out);
/* Are bytes held that a pause would let go (scrub_pause)? */
bool scrub_pausable(const struct scrub *s);
/* The stream was cut short: what was held goes nowhere (s->cut if it was
 * a guess). */
void scrub_drop(struct scrub *s);
/* One whole value (an HTTP/2 header's), in place. */
void scrub_value(const struct scrub *s, char *v, size_t len);
#endif
