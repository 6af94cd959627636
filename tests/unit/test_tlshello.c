/* test_tlshello.c — the SNI gate's ClientHello parser: well-formed hellos
 * (one record, split over records, cut short) and malformed ones (lengths
 * past the end, zero lengths, duplicate SNI, other name types), and a
 * fuzz-style loop of mutations that must never read past the input. */
#include <stdint.h>
#include <stdlib.h>

#include "t.h"
#include "tlshello.h"
#include "util.h"

struct hello {
	unsigned char b[TLSHELLO_MAX + 64];
	size_t n;
};

static void put(struct hello *h, const void *p, size_t n)
{
	memcpy(h->b + h->n, p, n);
	h->n += n;
}
static void put8(struct hello *h, unsigned v) { h->b[h->n++] = (unsigned char)v; }
static void put16(struct hello *h, unsigned v) { put8(h, v >> 8); put8(h, v & 0xff); }
static void set16(struct hello *h, size_t at, size_t v)
{
	h->b[at] = (unsigned char)(v >> 8);
	h->b[at + 1] = (unsigned char)v;
}

/* The server_name extension's data for names (each of the given type). */
static void sni_ext(struct hello *h, const char *const *names, const unsigned *types, size_t n)
{
	put16(h, 0);  /* server_name */
	size_t ext = h->n;
	put16(h, 0);
	put16(h, 0);  /* the list's length */
	for (size_t i = 0; i < n; i++) {
		put8(h, types[i]);
		put16(h, (unsigned)strlen(names[i]));
		put(h, names[i], strlen(names[i]));
	}
	set16(h, ext, h->n - ext - 2);
	set16(h, ext + 2, h->n - ext - 4);
}

/* A ClientHello body: its handshake header, then version … extensions with
 * the given server_name extension(s) (sni_count of them) between two others. */
static void body(struct hello *h, const char *const *names, const unsigned *types, size_t n,
                 int sni_count, size_t pad)
{
	put8(h, 1);
	size_t hs = h->n;
	put8(h, 0);
	put16(h, 0);
	put16(h, 0x0303);
	for (int i = 0; i < 32; i++)
		put8(h, (unsigned)i);
	put8(h, 32);
	for (int i = 0; i < 32; i++)
		put8(h, 0xaa);
	put16(h, 4);
	put16(h, 0x1301);
	put16(h, 0x1302);
	put8(h, 1);
	put8(h, 0);
	size_t exts = h->n;
	put16(h, 0);
	put16(h, 0x002b);  /* supported_versions */
	put16(h, 3);
	put8(h, 2);
	put16(h, 0x0304);
	for (int i = 0; i < sni_count; i++)
		sni_ext(h, names, types, n);
	put16(h, 0x0015);  /* padding */
	put16(h, (unsigned)pad);
	for (size_t i = 0; i < pad; i++)
		put8(h, 0);
	set16(h, exts, h->n - exts - 2);
	size_t len = h->n - hs - 3;
	h->b[hs] = (unsigned char)(len >> 16);
	set16(h, hs + 1, len);
}

/* The body wrapped in records of at most split bytes each. */
static void records(const struct hello *body_, size_t split, struct hello *out)
{
	out->n = 0;
	for (size_t off = 0; off < body_->n; off += split) {
		size_t k = body_->n - off < split ? body_->n - off : split;
		put8(out, 22);
		put16(out, 0x0301);
		put16(out, (unsigned)k);
		put(out, body_->b + off, k);
	}
}

static void make(struct hello *out, const char *name, size_t split)
{
	static struct hello b;
	b.n = 0;
	const char *names[] = {name};
	const unsigned types[] = {0};
	body(&b, names, types, 1, 1, 40);
	records(&b, split, out);
}

static int parse(const struct hello *h, size_t len, char *sni, const char **why)
{
	return tlshello_sni(h->b, len, sni, TLSHELLO_NAME_MAX, why);
}

T(tlshello_reads_the_sni_of_one_record)
{
	static struct hello h;
	char sni[TLSHELLO_NAME_MAX];
	const char *why;
	make(&h, "API.Example.com.", 16384);
	CHECK_INT(parse(&h, h.n, sni, &why), TLSHELLO_OK);
	CHECK_STR(sni, "API.Example.com.");
	/* trailing bytes (a next record) are the caller's to forward */
	h.b[h.n] = 23;
	CHECK_INT(parse(&h, h.n + 1, sni, &why), TLSHELLO_OK);
}

T(tlshello_asks_for_more_until_whole)
{
	static struct hello h;
	char sni[TLSHELLO_NAME_MAX];
	const char *why;
	make(&h, "api.example.com", 16384);
	for (size_t k = 0; k < h.n; k++)
		CHECK_INT(parse(&h, k, sni, &why), TLSHELLO_MORE);
	CHECK_INT(parse(&h, h.n, sni, &why), TLSHELLO_OK);
}

T(tlshello_joins_records)
{
	static struct hello h;
	char sni[TLSHELLO_NAME_MAX];
	const char *why;
	make(&h, "two.example.com", 100);  /* 3 records */
	CHECK_INT(parse(&h, h.n, sni, &why), TLSHELLO_OK);
	CHECK_STR(sni, "two.example.com");
	for (size_t k = 0; k < h.n; k++)
		CHECK_INT(parse(&h, k, sni, &why), TLSHELLO_MORE);
	make(&h, "many.example.com", 30);  /* more records than allowed */
	CHECK_INT(parse(&h, h.n, sni, &why), TLSHELLO_BAD);
	CHECK_STR(why, "a ClientHello split over too many records");
}

T(tlshello_refuses_what_is_not_a_client_hello)
{
	static struct hello h;
	char sni[TLSHELLO_NAME_MAX];
	const char *why;
	const char *http = "GET / HTTP/1.1\r\n";
	CHECK_INT(tlshello_sni((const unsigned char *)http, strlen(http), sni, sizeof(sni), &why),
	          TLSHELLO_BAD);
	CHECK_INT(tlshello_sni((const unsigned char *)"G", 1, sni, sizeof(sni), &why), TLSHELLO_BAD);
	make(&h, "a.example", 16384);
	h.b[5] = 2;  /* a ServerHello */
	CHECK_INT(parse(&h, h.n, sni, &why), TLSHELLO_BAD);
	make(&h, "a.example", 16384);
	h.b[1] = 2;  /* SSL 2 record version */
	CHECK_INT(parse(&h, h.n, sni, &why), TLSHELLO_BAD);
	make(&h, "a.example", 16384);
	set16(&h, 3, 0);  /* a zero-length record */
	CHECK_INT(parse(&h, 5, sni, &why), TLSHELLO_BAD);
	CHECK_STR(why, "a TLS record of bad length");
	set16(&h, 3, 16385);
	CHECK_INT(parse(&h, 5, sni, &why), TLSHELLO_BAD);
}

/* A hello whose body was built by fn, in one record. */
static int parse_body(void (*fn)(struct hello *), char *sni, const char **why)
{
	static struct hello b, h;
	b.n = 0;
	fn(&b);
	records(&b, 16384, &h);
	return parse(&h, h.n, sni, why);
}

static void no_sni(struct hello *b) { body(b, NULL, NULL, 0, 0, 0); }
static void two_exts(struct hello *b)
{
	const char *names[] = {"a.example"};
	const unsigned t[] = {0};
	body(b, names, t, 1, 2, 0);
}
static void two_names(struct hello *b)
{
	const char *names[] = {"a.example", "b.example"};
	const unsigned t[] = {0, 0};
	body(b, names, t, 2, 1, 0);
}
static void other_type(struct hello *b)
{
	const char *names[] = {"a.example"};
	const unsigned t[] = {1};
	body(b, names, t, 1, 1, 0);
}
static void empty_name(struct hello *b)
{
	const char *names[] = {""};
	const unsigned t[] = {0};
	body(b, names, t, 1, 1, 0);
}
static void empty_list(struct hello *b) { body(b, NULL, NULL, 0, 1, 0); }
static void nul_in_name(struct hello *b)
{
	const char *names[] = {"a.example\x01" "b"};
	const unsigned t[] = {0};
	body(b, names, t, 1, 1, 0);
}

T(tlshello_refuses_bad_server_names)
{
	char sni[TLSHELLO_NAME_MAX];
	const char *why;
	CHECK_INT(parse_body(no_sni, sni, &why), TLSHELLO_BAD);
	CHECK_STR(why, "no server name (SNI)");
	CHECK_INT(parse_body(two_exts, sni, &why), TLSHELLO_BAD);
	CHECK_STR(why, "two server_name extensions");
	CHECK_INT(parse_body(two_names, sni, &why), TLSHELLO_BAD);
	CHECK_STR(why, "two host names in server_name");
	CHECK_INT(parse_body(other_type, sni, &why), TLSHELLO_BAD);
	CHECK_STR(why, "a server_name entry not of type host_name");
	CHECK_INT(parse_body(empty_name, sni, &why), TLSHELLO_BAD);
	CHECK_INT(parse_body(empty_list, sni, &why), TLSHELLO_BAD);
	CHECK_INT(parse_body(nul_in_name, sni, &why), TLSHELLO_BAD);
}

T(tlshello_refuses_lengths_past_the_end)
{
	static struct hello h;
	char sni[TLSHELLO_NAME_MAX];
	const char *why;
	make(&h, "a.example", 16384);
	size_t at_exts = 5 + 4 + 2 + 32 + 1 + 32 + 2 + 4 + 1 + 1;
	/* each length field one too long, then one too short, in turn */
	size_t fields[] = {at_exts, at_exts + 2 + 2 + 2 + 3 + 2, at_exts + 2 + 2 + 2 + 3 + 2 + 2};
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		for (int d = -1; d <= 1; d += 2) {
			static struct hello m;
			m = h;
			size_t v = (size_t)m.b[fields[i]] << 8 | m.b[fields[i] + 1];
			set16(&m, fields[i], v + (size_t)d);
			CHECK_INT(parse(&m, m.n, sni, &why), TLSHELLO_BAD);
		}
	}
	static struct hello m;
	m = h;
	m.b[5 + 4 + 2 + 32] = 33;  /* a session id longer than 32 */
	CHECK_INT(parse(&m, m.n, sni, &why), TLSHELLO_BAD);
	m = h;
	m.b[5 + 4 + 2 + 32] = 255;  /* past the end of the message */
	CHECK_INT(parse(&m, m.n, sni, &why), TLSHELLO_BAD);
	m = h;
	set16(&m, 5 + 4 + 2 + 32 + 1 + 32, 0);  /* no cipher suites */
	CHECK_INT(parse(&m, m.n, sni, &why), TLSHELLO_BAD);
	m = h;
	m.b[6] = 0xff;  /* a handshake length past the cap: never MORE forever */
	CHECK_INT(parse(&m, m.n, sni, &why), TLSHELLO_BAD);
}

T(tlshello_refuses_an_encrypted_client_hello)
{
	static struct hello h;
	char sni[TLSHELLO_NAME_MAX];
	const char *why;
	size_t first_ext = 5 + 4 + 2 + 32 + 1 + 32 + 2 + 4 + 1 + 1 + 2;
	make(&h, "allowed.example", 16384);
	CHECK_INT(parse(&h, h.n, sni, &why), TLSHELLO_OK);
	set16(&h, first_ext, 0xfe0d);  /* supported_versions' bytes as an ECH extension */
	CHECK_INT(parse(&h, h.n, sni, &why), TLSHELLO_BAD);
	CHECK_STR(why, "an encrypted ClientHello (ECH), whose real server name is hidden");
	set16(&h, first_ext, 0xffce);
	CHECK_INT(parse(&h, h.n, sni, &why), TLSHELLO_BAD);
}

/* Mutations of good hellos: every result is one of the three, a name given
 * is NUL-terminated within the cap, and the input is never read past its
 * length (an ASan build checks that; the copy below ends at the length). */
T(tlshello_ends_at_the_hellos_record)
{
	static struct hello h;
	char sni[TLSHELLO_NAME_MAX];
	const char *why;
	size_t end = 0;
	make(&h, "a.example", 100);
	h.b[h.n] = 20;  /* the next record is the caller's */
	CHECK_INT(tlshello_sni_end(h.b, h.n + 1, sni, sizeof(sni), &why, &end), TLSHELLO_OK);
	CHECK_INT(end, h.n);
	/* a byte more in the hello's own record: a server reads it as the next
	 * handshake message (a second hello after a retry request) */
	make(&h, "a.example", 16384);
	set16(&h, 3, h.n - 5 + 1);
	h.b[h.n] = 1;
	CHECK_INT(parse(&h, h.n, sni, &why), TLSHELLO_MORE);
	CHECK_INT(parse(&h, h.n + 1, sni, &why), TLSHELLO_BAD);
	CHECK_STR(why, "a ClientHello not alone in its TLS record");
}

T(tlshello_knows_a_hello_retry_request)
{
	static const unsigned char hrr_rand[32] = {
		0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65,
		0xb8, 0x91, 0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2,
		0xc8, 0xa8, 0x33, 0x9c};
	unsigned char sh[60] = {22, 3, 3, 0, 55, 2, 0, 0, 51, 3, 3};
	memcpy(sh + 11, hrr_rand, 32);
	for (size_t k = 0; k < 43; k++)
		CHECK_INT(tlshello_retry(sh, k), TLSHELLO_MORE);
	CHECK_INT(tlshello_retry(sh, 43), TLSHELLO_OK);
	sh[42] ^= 1;  /* a plain ServerHello */
	CHECK_INT(tlshello_retry(sh, sizeof(sh)), TLSHELLO_BAD);
	const unsigned char alert[] = {21, 3, 3, 0, 2, 2, 40};
	CHECK_INT(tlshello_retry(alert, 1), TLSHELLO_BAD);
	CHECK_INT(tlshello_retry(alert, sizeof(alert)), TLSHELLO_BAD);
	/* its random cut by the record: checked as one */
	sh[4] = 20;
	CHECK_INT(tlshello_retry(sh, 10), TLSHELLO_OK);
}

T(tlshello_skips_change_cipher_spec)
{
	const unsigned char b[] = {20, 3, 3, 0, 1, 1, 20, 3, 3, 0, 1, 1, 22, 3, 1};
	size_t skip;
	CHECK_INT(tlshello_skip_ccs(b, sizeof(b), &skip), TLSHELLO_OK);
	CHECK_INT(skip, 12);
	CHECK_INT(tlshello_skip_ccs(b, 9, &skip), TLSHELLO_MORE);
	const unsigned char odd[] = {20, 3, 3, 0, 2, 1, 1};  /* not the one record it can be */
	CHECK_INT(tlshello_skip_ccs(odd, sizeof(odd), &skip), TLSHELLO_OK);
	CHECK_INT(skip, 0);
}

T(tlshello_fuzz_loop)
{
	static struct hello h, m;
	char sni[TLSHELLO_NAME_MAX];
	const char *why;
	unsigned seed = 12345;
	size_t oks = 0;
	for (int i = 0; i < 20000; i++) {
		make(&h, "fuzz.example.com", 16 + (size_t)(i % 300));
		m = h;
		int flips = 1 + rand_r(&seed) % 4;
		for (int f = 0; f < flips; f++)
			m.b[(size_t)rand_r(&seed) % m.n] = (unsigned char)rand_r(&seed);
		size_t len = (size_t)rand_r(&seed) % (m.n + 1);
		unsigned char *copy = malloc(len ? len : 1);
		memcpy(copy, m.b, len);
		int r = tlshello_sni(copy, len, sni, sizeof(sni), &why);
		free(copy);
		CHECK(r == TLSHELLO_BAD || r == TLSHELLO_MORE || r == TLSHELLO_OK);
		if (r == TLSHELLO_OK) {
			CHECK(strlen(sni) > 0 && strlen(sni) < sizeof(sni));
			oks++;
		}
	}
	CHECK(oks > 0);
}
