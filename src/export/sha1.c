/* sha1.c — SHA-1 (FIPS 180-4), with the x86 SHA instructions when there. */
#include "sha1.h"

#include <string.h>

#if defined(__x86_64__) && !defined(JAIL_SHA1_C_ONLY)  /* the latter: to test the C version whole */
#include <cpuid.h>
#include <immintrin.h>
#define HAVE_SHA_NI 1
#endif

static uint32_t rol(uint32_t x, int n)
{
	return x << n | x >> (32 - n);
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* n blocks of 64 bytes, the standard's way. */
static void blocks_c(uint32_t h[5], const unsigned char *p, size_t n)
{
	for (; n--; p += 64) {
		uint32_t w[80];
		for (int i = 0; i < 16; i++)
			w[i] = be32(p + 4 * i);
		for (int i = 16; i < 80; i++)
			w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
		uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
		for (int i = 0; i < 80; i++) {
			uint32_t f, k;
			if (i < 20)
				f = (b & c) | (~b & d), k = 0x5A827999u;
			else if (i < 40)
				f = b ^ c ^ d, k = 0x6ED9EBA1u;
			else if (i < 60)
				f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDCu;
			else
				f = b ^ c ^ d, k = 0xCA62C1D6u;
			uint32_t t = rol(a, 5) + f + e + k + w[i];
			e = d, d = c, c = rol(b, 30), b = a, a = t;
		}
		h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
	}
}

#ifdef HAVE_SHA_NI
#define NI __attribute__((target("sha,sse4.1,ssse3")))

/* Four rounds; the round function is an immediate of the instruction. */
NI static inline __m128i rounds4(__m128i abcd, __m128i e, int f)
{
	switch (f) {
	case 0:
		return _mm_sha1rnds4_epu32(abcd, e, 0);
	case 1:
		return _mm_sha1rnds4_epu32(abcd, e, 1);
	case 2:
		return _mm_sha1rnds4_epu32(abcd, e, 2);
	default:
		return _mm_sha1rnds4_epu32(abcd, e, 3);
	}
}

/* The 80 rounds as 20 groups of four.  Group g takes its schedule words from
 * m[g % 4] and its E from the state before the previous group (ex[g & 1]);
 * meanwhile the schedule of later groups is made: msg2 finishes group g+1's
 * words, msg1 and the xor prepare those of groups g+3 and g+2. */
NI static void blocks_ni(uint32_t h[5], const unsigned char *p, size_t n)
{
	const __m128i swap = _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
	__m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)h), 0x1B);
	__m128i e0 = _mm_set_epi32((int)h[4], 0, 0, 0);
	for (; n--; p += 64) {
		__m128i abcd_save = abcd, e_save = e0, m[4], ex[2] = {e0, e0};
#pragma GCC unroll 20
		for (int g = 0; g < 20; g++) {
			__m128i *cur = &ex[g & 1], *next = &ex[(g + 1) & 1];
			if (g < 4)
				m[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)), swap);
			*cur = g == 0 ? _mm_add_epi32(*cur, m[0]) : _mm_sha1nexte_epu32(*cur, m[g % 4]);
			*next = abcd;
			if (g >= 3 && g <= 18)
				m[(g + 1) % 4] = _mm_sha1msg2_epu32(m[(g + 1) % 4], m[g % 4]);
			abcd = rounds4(abcd, *cur, g / 5);
			if (g >= 1 && g <= 16)
				m[(g + 3) % 4] = _mm_sha1msg1_epu32(m[(g + 3) % 4], m[g % 4]);
			if (g >= 2 && g <= 17)
				m[(g + 2) % 4] = _mm_xor_si128(m[(g + 2) % 4], m[g % 4]);
		}
		e0 = _mm_sha1nexte_epu32(ex[0], e_save);
		abcd = _mm_add_epi32(abcd, abcd_save);
	}
	_mm_storeu_si128((__m128i *)h, _mm_shuffle_epi32(abcd, 0x1B));
	h[4] = (uint32_t)_mm_extract_epi32(e0, 3);
}

static int cpu_has_sha(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1) || !(c & bit_SSSE3))
		return 0;
	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
}
#endif

static int use_cpu = -1;  /* -1: not asked yet */

bool sha1_uses_cpu(void)
{
#ifdef HAVE_SHA_NI
	if (use_cpu < 0)
		use_cpu = cpu_has_sha();
#else
	use_cpu = 0;
#endif
	return use_cpu;
}

void sha1_use_cpu(bool on)
{
	use_cpu = 0;
	if (on)
		use_cpu = -1, use_cpu = sha1_uses_cpu();
}

static void blocks(uint32_t h[5], const unsigned char *p, size_t n)
{
#ifdef HAVE_SHA_NI
	if (sha1_uses_cpu()) {
		blocks_ni(h, p, n);
		return;
	}
#endif
	blocks_c(h, p, n);
}

void sha1_init(struct sha1 *c)
{
	static const uint32_t iv[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u,
	                               0xC3D2E1F0u};
	memcpy(c->h, iv, sizeof(iv));
	c->len = 0;
	c->blen = 0;
}

void sha1_update(struct sha1 *c, const void *data, size_t n)
{
	const unsigned char *p = data;
	c->len += n;
	if (c->blen) {
		size_t k = 64 - c->blen < n ? 64 - c->blen : n;
		memcpy(c->buf + c->blen, p, k);
		c->blen += k, p += k, n -= k;
		if (c->blen < 64)
			return;
		blocks(c->h, c->buf, 1);
		c->blen = 0;
	}
	if (n >= 64)
		blocks(c->h, p, n / 64);
	p += n / 64 * 64, n %= 64;
	memcpy(c->buf, p, n);
	c->blen = n;
}

void sha1_final(struct sha1 *c, unsigned char out[20])
{
	uint64_t bits = c->len * 8;
	unsigned char pad[72] = {0x80};
	size_t k = (c->blen < 56 ? 56 : 120) - c->blen;
	for (int i = 0; i < 8; i++)
		pad[k + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
	sha1_update(c, pad, k + 8);
	for (int i = 0; i < 5; i++) {
		out[4 * i] = (unsigned char)(c->h[i] >> 24), out[4 * i + 1] = (unsigned char)(c->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(c->h[i] >> 8), out[4 * i + 3] = (unsigned char)c->h[i];
	}
	sha1_init(c);
}
