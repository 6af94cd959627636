/* brokerscrub.c — real values out of the upstream's bytes (brokerscrub.h). */
#include "brokerscrub.h"

#include <string.h>

/* k's real and ph set, k->len long: its prefix and failure table. */
static void key_tables(struct scrub_key *k)
{
	const char *real = k->real, *ph = k->ph;
	while (k->keep < k->len && real[k->keep] == ph[k->keep])
		k->keep++;
	/* fail[i]: the longest proper border of real[0..i) */
	size_t b = 0;
	for (size_t i = 1; i < k->len; i++) {
		while (b && real[i] != real[b])
			b = k->fail[b];
		if (real[i] == real[b])
			b++;
		k->fail[i + 1] = (uint16_t)b;
	}
}

static void key_init(struct scrub_key *k, const char *real, const char *ph)
{
	memset(k, 0, sizeof(*k));
	k->real = real;
	k->ph = ph;
	k->len = strlen(real);
	key_tables(k);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The base64 characters that v alone decides when it starts at byte a (0-2)
 * of a 3-byte group, to out; with tail, also the last character of an
 * encoding that ends with v (its missing bits zero, as before '=').
 * Returns their number. */
static size_t b64_spelling(const char *v, size_t len, size_t a, bool tail, char *out)
{
	size_t total = a + len, bits = total * 8, o = 0;
	size_t first = (a * 8 + 5) / 6, last = bits / 6 + (tail && bits % 6 ? 1 : 0);
	for (size_t c = first; c < last; c++) {
		unsigned w = 0;
		for (size_t b = c * 6; b < c * 6 + 6; b++) {
			size_t byte = b / 8;
			unsigned bit = byte >= a && byte < total ?
			               ((unsigned char)v[byte - a] >> (7 - b % 8)) & 1 : 0;
			w = w << 1 | bit;
		}
		out[o++] = b64[w];
	}
	out[o] = '\0';
	return o;
}

/* The value's base64 spelling at offset a (with tail: as an encoding's end),
 * a key of its own whose placeholder is the placeholder's same spelling. */
static void key_init_b64(struct scrub_key *k, const char *real, const char *ph, size_t a,
                         bool tail)
{
	size_t len = strlen(real);
	memset(k, 0, sizeof(*k));
	k->len = b64_spelling(real, len, a, tail, k->b64_real);
	b64_spelling(ph, len, a, tail, k->b64_ph);
	k->real = k->b64_real;
	k->ph = k->b64_ph;
	key_tables(k);
}

static void add_key(struct scrub *s, size_t cred, const char *real, const char *ph, int b64_at,
                    bool tail)
{
	struct scrub_key *k = &s->keys[s->n];
	if (b64_at < 0)
		key_init(k, real, ph);
	else
		key_init_b64(k, real, ph, (size_t)b64_at, tail);
	k->cred = cred;
	/* a spelling with its encoding's end is its twin without it and one
	 * character more, which a value that goes on (user:password with the
	 * value as the user) does not match: its twin stands for it */
	k->guess_watch = !tail;
	/* a spelling of a few characters would turn up in any long base64
	 * body, each time mangled; a value that short is guessed anyway */
	if (!k->len || (b64_at >= 0 && k->len < 8))
		return;
	s->first[(unsigned char)k->real[0]] = true;
	s->n++;
}

void scrub_init(struct scrub *s, const struct broker_cred *creds, size_t n)
{
	memset(s, 0, sizeof(*s));
	/* each value as it is, then its spellings at the 3 offsets, each
	 * also as the end of an encoding (the password of user:password) */
	s->keys = n ? xcalloc(n * 7, sizeof(*s->keys)) : NULL;
	for (size_t i = 0; i < n; i++) {
		const char *real = creds[i].real, *ph = creds[i].placeholder;
		size_t len = real ? strlen(real) : 0;
		if (!len || len > BROKER_PH_MAX || strlen(ph) != len)
			continue;
		add_key(s, i, real, ph, -1, false);
		for (int a = 0; a < 3; a++) {
			add_key(s, i, real, ph, a, false);
			if ((a + len) % 3)
				add_key(s, i, real, ph, a, true);
		}
	}
}

void scrub_free(struct scrub *s)
{
	if (s->keys)
		explicit_bzero(s->keys, s->n * sizeof(*s->keys));
	free(s->keys);
	explicit_bzero(s->held, sizeof(s->held));
	s->keys = NULL;
	s->n = s->n_held = 0;
}

/* Advance k over c; true when a whole real value ends with c. */
static bool key_step(struct scrub_key *k, char c)
{
	while (k->state && c != k->real[k->state])
		k->state = k->fail[k->state];
	if (c == k->real[k->state])
		k->state++;
	if (k->state < k->len)
		return false;
	k->state = k->fail[k->len];
	return true;
}

/* Is k inside a possible value so far past its kept prefix that, should it
 * not be one, it was a guess? */
static bool past_guess(const struct scrub_key *k)
{
	return k->guess_watch && k->state >= k->keep + SCRUB_GUESS_MAX;
}

/* A possible value past SCRUB_GUESS_MAX was not one (brokerscrub.h):
 * nothing more of the stream passes. */
static void guessed(struct scrub *s, const struct scrub_key *k)
{
	if (!s->cut)
		s->cut_cred = k->cred;
	s->cut = true;
}

/* Is any possible value past SCRUB_GUESS_MAX?  (The first such one is
 * noted, should the stream end there: guessed.) */
static const struct scrub_key *any_past_guess(const struct scrub *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (past_guess(&s->keys[i]))
			return &s->keys[i];
	return NULL;
}

/* How many of the stream's last bytes must wait: those of a possible value
 * beyond the prefix its placeholder shares. */
static size_t must_hold(const struct scrub *s)
{
	size_t hold = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->keys[i].state > s->keys[i].keep && s->keys[i].state > hold)
			hold = s->keys[i].state;
	return hold;
}

void scrub_feed(struct scrub *s, const char *in, size_t len, struct strbuf *out)
{
	if (s->cut)
		return;
	if (!s->n || (!len && !s->n_held)) {
		sb_append(out, in, len);
		return;
	}
	/* work in out: the held bytes, then the new ones */
	size_t base = out->len;
	sb_append(out, s->held, s->n_held);
	sb_append(out, in, len);
	char *w = out->s + base;
	size_t total = s->n_held + len;
	for (size_t pos = s->n_held; pos < total && !s->cut; pos++) {
		/* no value under way: on to a byte that may begin one */
		if (!s->active) {
			while (pos < total && !s->first[(unsigned char)w[pos]])
				pos++;
			if (pos == total)
				break;
		}
		s->active = 0;
		/* every matcher reads the byte as it came: one value's replacement
		 * must not hide a longer one that ends later (a base64 spelling
		 * and the same spelling with the encoding's last character) */
		char c = w[pos];
		for (size_t i = 0; i < s->n; i++) {
			struct scrub_key *k = &s->keys[i];
			if (past_guess(k) && c != k->real[k->state])
				guessed(s, k);  /* it goes on otherwise: not the value */
			if (!key_step(k, c))
				continue;
			/* the value ends at pos; what of it went out already was within
			 * its kept prefix (must_hold), the same in the placeholder */
			size_t start = pos + 1 >= k->len ? pos + 1 - k->len : 0;
			size_t from = k->len - (pos + 1 - start);
			memcpy(w + start, k->ph + from, k->len - from);
		}
		for (size_t i = 0; i < s->n; i++)
			s->active += s->keys[i].state;
	}
	if (s->cut) {  /* none of it: the bytes before the guess go nowhere either */
		explicit_bzero(w, total);
		out->len = base;
		scrub_drop(s);
		return;
	}
	size_t hold = must_hold(s);
	if (hold > total)
		hold = total;  /* the rest went out earlier, within a kept prefix */
	memcpy(s->held, w + total - hold, hold);
	s->n_held = hold;
	out->len = base + total - hold;
	if (hold)
		explicit_bzero(out->s + out->len, hold);
}

/* The matchers keep their state: after a pause, a value that goes on is
 * still replaced from where it stands.  What was held is the beginning of a
 * real value past its public prefix (must_hold): it goes as the
 * placeholder's beginning, so a pause inside an echoed value (a TLS
 * record's end, then the network's delay, or a window the agent let fill)
 * hands out none of it, and a value that goes on stays the placeholder. */
void scrub_flush(struct scrub *s, struct strbuf *out)
{
	const struct scrub_key *g = any_past_guess(s);
	if (g)
		guessed(s, g);  /* the stream ends inside it: not the value */
	if (s->cut) {
		scrub_drop(s);
		return;
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct scrub_key *k = &s->keys[i];
		if (k->state <= k->keep)
			continue;
		/* held holds the value's last n_held bytes so far (any before
		 * them went out within the kept prefix) */
		size_t from = k->state - (k->state < s->n_held ? k->state : s->n_held);
		if (from < k->keep)
			from = k->keep;
		memcpy(s->held + s->n_held - (k->state - from), k->ph + from, k->state - from);
	}
	sb_append(out, s->held, s->n_held);
	explicit_bzero(s->held, s->n_held);
	s->n_held = 0;
}

void scrub_value(const struct scrub *s, char *v, size_t len)
{
	/* last first: a base64 spelling with its encoding's end comes after
	 * the same spelling without, which would leave that end as it was */
	for (size_t i = s->n; i-- > 0;) {
		const struct scrub_key *k = &s->keys[i];
		for (char *p = v; (p = memmem(p, len - (size_t)(p - v), k->real, k->len));
		     p += k->len)
			memcpy(p, k->ph, k->len);
	}
}

bool scrub_pause(struct scrub *s, struct strbuf *out)
{
	if (any_past_guess(s))
		return true;
	scrub_flush(s, out);
	return false;
}

bool scrub_pausable(const struct scrub *s)
{
	return s->n_held && !any_past_guess(s);
}

void scrub_drop(struct scrub *s)
{
	const struct scrub_key *g = any_past_guess(s);
	if (g)
		guessed(s, g);  /* what was held goes nowhere, but it told: cut short there */
	explicit_bzero(s->held, s->n_held);
	s->n_held = 0;
}
