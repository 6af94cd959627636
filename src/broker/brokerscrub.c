/* brokerscrub.c — real values out of the upstream's bytes (brokerscrub.h). */
#include "brokerscrub.h"

#include <string.h>

static void key_init(struct scrub_key *k, const char *real, const char *ph)
{
	memset(k, 0, sizeof(*k));
	k->real = real;
	k->ph = ph;
	k->len = strlen(real);
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

void scrub_init(struct scrub *s, const struct broker_cred *creds, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->keys = n ? xcalloc(n, sizeof(*s->keys)) : NULL;
	for (size_t i = 0; i < n; i++) {
		size_t len = creds[i].real ? strlen(creds[i].real) : 0;
		if (len && len <= BROKER_PH_MAX && strlen(creds[i].placeholder) == len) {
			key_init(&s->keys[s->n++], creds[i].real, creds[i].placeholder);
			s->first[(unsigned char)creds[i].real[0]] = true;
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
	for (size_t pos = s->n_held; pos < total; pos++) {
		/* no value under way: on to a byte that may begin one */
		if (!s->active) {
			while (pos < total && !s->first[(unsigned char)w[pos]])
				pos++;
			if (pos == total)
				break;
		}
		s->active = 0;
		for (size_t i = 0; i < s->n; i++) {
			struct scrub_key *k = &s->keys[i];
			if (!key_step(k, w[pos]))
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
 * still replaced from where it stands. */
void scrub_flush(struct scrub *s, struct strbuf *out)
{
	sb_append(out, s->held, s->n_held);
	explicit_bzero(s->held, s->n_held);
	s->n_held = 0;
}

void scrub_value(const struct scrub *s, char *v, size_t len)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct scrub_key *k = &s->keys[i];
		for (char *p = v; (p = memmem(p, len - (size_t)(p - v), k->real, k->len));
		     p += k->len)
			memcpy(p, k->ph, k->len);
	}
}

void scrub_drop(struct scrub *s)
{
	explicit_bzero(s->held, s->n_held);
	s->n_held = 0;
}
