/* packw.c — blobs into a git pack, hashed once (why: packw.h). */
#include "packw.h"

#include "sha1.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OUT_BUF (64u << 10)
#define V1_MAX 0x7fffffffu  /* a pack this long or shorter gets a version 1 index */
#define STORED_MAX 65535u  /* the most a zlib stored block holds */

/* ---- the checksums of the formats ---- */

static uint32_t crc_tab[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		crc_tab[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_tab[t][i] = (crc_tab[t - 1][i] >> 8) ^ crc_tab[0][crc_tab[t - 1][i] & 0xff];
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* CRC-32 (the zlib one the pack index keeps), eight bytes a step. */
uint32_t packw_crc32(uint32_t crc, const void *data, size_t n)
{
	pthread_once(&crc_once, crc_init);
	const unsigned char *p = data;
	crc = ~crc;
	for (; n >= 8; p += 8, n -= 8) {
		uint32_t a = le32(p) ^ crc, b = le32(p + 4);
		crc = crc_tab[7][a & 0xff] ^ crc_tab[6][(a >> 8) & 0xff] ^
		      crc_tab[5][(a >> 16) & 0xff] ^ crc_tab[4][a >> 24] ^ crc_tab[3][b & 0xff] ^
		      crc_tab[2][(b >> 8) & 0xff] ^ crc_tab[1][(b >> 16) & 0xff] ^ crc_tab[0][b >> 24];
	}
	for (; n; p++, n--)
		crc = crc_tab[0][(crc ^ *p) & 0xff] ^ (crc >> 8);
	return ~crc;
}

#define ADLER_MOD 65521u
#define ADLER_NMAX 5552u  /* bytes the sums take before 32 bits could overflow */

#ifdef __SSE2__
#include <emmintrin.h>

/* The sum of a vector's four 32-bit lanes. */
static uint64_t lanes_sum(__m128i v)
{
	uint32_t w[4];
	_mm_storeu_si128((__m128i *)w, v);
	return (uint64_t)w[0] + w[1] + w[2] + w[3];
}

/* Adler-32 over whole 16-byte blocks, at most ADLER_NMAX bytes: a block of
 * bytes b0..b15 entered with sum s1 adds 16 * s1 + 16 b0 + 15 b1 + ... + b15
 * to s2, so the bytes' plain sums (psadbw) and weighted sums (pmaddwd) are
 * kept in vectors and the sums made once.  Every byte of the export's pack
 * goes through this (SSE2 is in every x86-64). */
static void adler_blocks(uint32_t *a, uint32_t *b, const unsigned char *p, size_t blocks)
{
	const __m128i zero = _mm_setzero_si128();
	const __m128i w_lo = _mm_setr_epi16(16, 15, 14, 13, 12, 11, 10, 9);
	const __m128i w_hi = _mm_setr_epi16(8, 7, 6, 5, 4, 3, 2, 1);
	__m128i sum = zero, before = zero, weighted = zero;
	for (size_t k = 0; k < blocks; k++, p += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)p);
		before = _mm_add_epi32(before, sum);  /* the block's bytes before it, summed */
		sum = _mm_add_epi32(sum, _mm_sad_epu8(v, zero));
		weighted = _mm_add_epi32(weighted, _mm_madd_epi16(_mm_unpacklo_epi8(v, zero), w_lo));
		weighted = _mm_add_epi32(weighted, _mm_madd_epi16(_mm_unpackhi_epi8(v, zero), w_hi));
	}
	uint64_t s1 = *a, s2 = *b;
	s2 += 16 * (s1 * blocks + lanes_sum(before)) + lanes_sum(weighted);
	s1 += lanes_sum(sum);
	*a = (uint32_t)(s1 % ADLER_MOD), *b = (uint32_t)(s2 % ADLER_MOD);
}
#endif

/* Adler-32 (the zlib stream's trailer): the sums are reduced once per 5,552
 * bytes, the most that cannot overflow 32 bits. */
void packw_adler32(uint32_t *a, uint32_t *b, const void *data, size_t n)
{
	const unsigned char *p = data;
#ifdef __SSE2__
	for (; n >= 16; ) {
		size_t k = (n < ADLER_NMAX ? n : ADLER_NMAX) / 16;
		adler_blocks(a, b, p, k);
		p += 16 * k, n -= 16 * k;
	}
#endif
	uint32_t s1 = *a, s2 = *b;
	while (n) {
		size_t k = n < ADLER_NMAX ? n : ADLER_NMAX;
		n -= k;
		while (k--) {
			s1 += *p++;
			s2 += s1;
		}
		s1 %= ADLER_MOD;
		s2 %= ADLER_MOD;
	}
	*a = s1, *b = s2;
}

/* ---- writing ---- */

static int flush_out(struct packw *p, struct jail_err *e)
{
	if (p->blen && write_all(p->fd, p->buf, p->blen) < 0)
		return jail_err_sys(e, "write the export's pack '%s'", p->tmp);
	p->flushed += p->blen;
	p->blen = 0;
	return 0;
}

/* Bytes of the pack: into its checksum, the current object's CRC, the file. */
static int out(struct packw *p, const void *d, size_t n, struct jail_err *e)
{
	if (!p->resum)
		sha1_update(&p->sum, d, n);
	p->off += n;
	while (n) {
		size_t k = OUT_BUF - p->blen < n ? OUT_BUF - p->blen : n;
		memcpy(p->buf + p->blen, d, k);
		p->blen += k, d = (const char *)d + k, n -= k;
		if (p->blen == OUT_BUF && flush_out(p, e) < 0)
			return -1;
	}
	return 0;
}

static void be32(unsigned char *b, uint32_t v)
{
	b[0] = (unsigned char)(v >> 24), b[1] = (unsigned char)(v >> 16);
	b[2] = (unsigned char)(v >> 8), b[3] = (unsigned char)v;
}

int packw_open(struct packw *p, const char *git_dir, uint32_t count, struct jail_err *e)
{
	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->dir = xasprintf("%s/objects/pack", git_dir);
	p->tmp = xasprintf("%s/tmp_jail_pack_XXXXXX", p->dir);
	p->fd = mkostemp(p->tmp, O_CLOEXEC);
	if (p->fd < 0) {
		jail_err_sys(e, "create the export's pack in '%s'", p->dir);
		free(p->tmp);
		p->tmp = NULL;
		return -1;
	}
	sha1_init(&p->obj);
	p->v1_max = V1_MAX;
	p->buf = xmalloc(OUT_BUF);
	p->v = count ? xcalloc(count, sizeof(*p->v)) : NULL;
	p->count = count;
	for (p->nslots = 16; p->nslots < 2 * (size_t)count; p->nslots *= 2) {
	}
	p->slots = xcalloc(p->nslots, sizeof(*p->slots));
	unsigned char hdr[12] = {'P', 'A', 'C', 'K'};
	be32(hdr + 4, 2);
	be32(hdr + 8, count);  /* a repeat dropped makes it one less: packw_finish */
	sha1_init(&p->sum);
	return out(p, hdr, sizeof(hdr), e);
}

/* A stored block's header: final bit, then LEN and its complement. */
static int block_start(struct packw *p, struct jail_err *e)
{
	uint32_t len = p->left < STORED_MAX ? (uint32_t)p->left : STORED_MAX;
	unsigned char h[5] = {len == p->left ? 1 : 0, (unsigned char)len, (unsigned char)(len >> 8),
	                      (unsigned char)~len, (unsigned char)(~len >> 8)};
	p->blk_left = len;
	return out(p, h, sizeof(h), e);
}

int packw_blob_start(struct packw *p, uint64_t size, struct jail_err *e)
{
	return packw_start(p, PACKW_BLOB, size, e);
}

int packw_start(struct packw *p, int type, uint64_t size, struct jail_err *e)
{
	if (p->n == p->count)
		return jail_err_set(e, 0, "the export's pack: more objects than announced");
	p->v[p->n++] = (struct packw_ent){.off = p->off};
	/* the object's header: type and size, 4 bits then 7 a byte */
	unsigned char h[16];
	size_t k = 0;
	uint64_t s = size;
	h[k++] = (unsigned char)(type << 4 | (s & 0x0f) | (s >> 4 ? 0x80 : 0));
	for (s >>= 4; s; s >>= 7)
		h[k++] = (unsigned char)((s & 0x7f) | (s >> 7 ? 0x80 : 0));
	h[k++] = 0x78, h[k++] = 0x01;  /* zlib: deflate, 32 KiB window, no dictionary */
	char id[40];
	const char *name = type == PACKW_COMMIT ? "commit" : type == PACKW_TREE ? "tree" : "blob";
	int idn = snprintf(id, sizeof(id), "%s %llu", name, (unsigned long long)size);
	sha1_update(&p->obj, id, (size_t)idn + 1);  /* with its NUL */
	p->left = size;
	p->adler_a = 1, p->adler_b = 0;
	if (out(p, h, k, e) < 0)
		return -1;
	return size == 0 ? block_start(p, e) : 0;  /* an empty stream is one empty block */
}

int packw_blob_data(struct packw *p, const void *data, size_t n, struct jail_err *e)
{
	if (n > p->left)
		return jail_err_set(e, 0, "the export's pack: more data than announced");
	while (n) {
		if (p->blk_left == 0 && block_start(p, e) < 0)
			return -1;
		size_t k = p->blk_left < n ? (size_t)p->blk_left : n;
		sha1_update(&p->obj, data, k);
		packw_adler32(&p->adler_a, &p->adler_b, data, k);
		if (out(p, data, k, e) < 0)
			return -1;
		p->left -= k, p->blk_left -= k;
		data = (const char *)data + k, n -= k;
	}
	return 0;
}

/* Slots of an open-addressed set of the objects written (index + 1), twice
 * as many as objects can be: git refuses a pack that holds one twice, and two
 * files of the same content are one blob.  Is the last one a repeat? */
static bool seen(struct packw *p)
{
	size_t mask = p->nslots - 1, last = p->n - 1;
	uint64_t h;
	memcpy(&h, p->v[last].oid, sizeof(h));
	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		if (!p->slots[i]) {
			p->slots[i] = (uint32_t)last + 1;
			return false;
		}
		if (memcmp(p->v[p->slots[i] - 1].oid, p->v[last].oid, 20) == 0)
			return true;
	}
}

/* Take the last object back out of the pack: its bytes are cut, and the
 * checksum is made again at the end (pack_sum). */
static int drop_last(struct packw *p, struct jail_err *e)
{
	p->resum = true;
	uint64_t start = p->v[--p->n].off;
	p->off = start;
	if (start >= p->flushed) {
		p->blen = (size_t)(start - p->flushed);
		return 0;
	}
	p->blen = 0;
	p->flushed = start;
	if (ftruncate(p->fd, (off_t)start) < 0 || lseek(p->fd, (off_t)start, SEEK_SET) < 0)
		return jail_err_sys(e, "cut the export's pack '%s'", p->tmp);
	return 0;
}

int packw_blob_end(struct packw *p, char hex[41], struct jail_err *e)
{
	if (p->left)
		return jail_err_set(e, 0, "the export's pack: less data than announced");
	unsigned char t[4];
	be32(t, p->adler_b << 16 | p->adler_a);
	if (out(p, t, sizeof(t), e) < 0)
		return -1;
	unsigned char *oid = p->v[p->n - 1].oid;
	sha1_final(&p->obj, oid);
	packw_hex(oid, hex);
	return seen(p) ? drop_last(p, e) : 0;
}

int packw_object(struct packw *p, int type, const void *data, size_t n, unsigned char oid[20],
                 struct jail_err *e)
{
	char hex[41];
	if (packw_start(p, type, n, e) < 0 || packw_blob_data(p, data, n, e) < 0 ||
	    packw_blob_end(p, hex, e) < 0)
		return -1;
	packw_oid_from_hex(hex, oid);
	return 0;
}

/* By hand: snprintf's "%02x" twenty times an object was 3% of an export's
 * CPU. */
void packw_hex(const unsigned char oid[20], char hex[41])
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < 20; i++)
		hex[2 * i] = digits[oid[i] >> 4], hex[2 * i + 1] = digits[oid[i] & 15];
	hex[40] = '\0';
}

void packw_oid_from_hex(const char *hex, unsigned char oid[20])
{
	for (int i = 0; i < 20; i++) {
		unsigned v = 0;
		for (int k = 0; k < 2; k++) {
			char c = hex[2 * i + k];
			v = v << 4 | (unsigned)(c >= 'a' ? c - 'a' + 10 : c >= 'A' ? c - 'A' + 10 : c - '0');
		}
		oid[i] = (unsigned char)v;
	}
}

static int cmp_ent(const void *a, const void *b)
{
	return memcmp(((const struct packw_ent *)a)->oid, ((const struct packw_ent *)b)->oid, 20);
}

/* Raw bytes onto the index being built. */
static void idx_put(struct strbuf *idx, const void *d, size_t n)
{
	sb_append(idx, d, n);
}

static void idx_fanout(const struct packw *p, struct strbuf *idx)
{
	unsigned char w[4];
	for (unsigned f = 0, i = 0; f < 256; f++) {
		while (i < p->n && p->v[i].oid[0] <= f)
			i++;
		be32(w, i);
		idx_put(idx, w, 4);
	}
}

/* Index version 1: fan-out, then each object's offset and id.  It has no
 * CRC-32s, which git reads only to copy objects out of a pack into another
 * (repack, fetch), never done with this one: they were a twentieth of an
 * export's CPU, every byte of the pack run through them.  Its offsets are
 * 32 bits: a longer pack gets version 2. */
static void build_index_v1(struct packw *p, struct strbuf *idx)
{
	unsigned char w[4];
	idx_fanout(p, idx);
	for (size_t i = 0; i < p->n; i++) {
		be32(w, (uint32_t)p->v[i].off);
		idx_put(idx, w, 4);
		idx_put(idx, p->v[i].oid, 20);
	}
}

/* Index version 2: fan-out, ids, CRCs, offsets (those past 2 GiB in a table of
 * their own). */
static void build_index_v2(struct packw *p, struct strbuf *idx)
{
	unsigned char w[8];
	idx_put(idx, "\377tOc", 4);
	be32(w, 2);
	idx_put(idx, w, 4);
	idx_fanout(p, idx);
	for (size_t i = 0; i < p->n; i++)
		idx_put(idx, p->v[i].oid, 20);
	for (size_t i = 0; i < p->n; i++)
		be32(w, p->v[i].crc), idx_put(idx, w, 4);
	uint32_t large = 0;
	for (size_t i = 0; i < p->n; i++) {
		bool big = p->v[i].off >= 0x80000000u;
		be32(w, big ? 0x80000000u | large++ : (uint32_t)p->v[i].off);
		idx_put(idx, w, 4);
	}
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].off >= 0x80000000u) {
			be32(w, (uint32_t)(p->v[i].off >> 32));
			be32(w + 4, (uint32_t)p->v[i].off);
			idx_put(idx, w, 8);
		}
}

/* The index, then the pack's checksum and its own. */
static void build_index(struct packw *p, const unsigned char sum[20], struct strbuf *idx)
{
	if (p->n)
		qsort(p->v, p->n, sizeof(*p->v), cmp_ent);
	if (p->off <= p->v1_max)
		build_index_v1(p, idx);
	else
		build_index_v2(p, idx);
	idx_put(idx, sum, 20);
	unsigned char own[20];
	sha1_update(&p->obj, idx->s, idx->len);
	sha1_final(&p->obj, own);
	idx_put(idx, own, 20);
}

/* A pack too long for index version 1: each object's CRC-32 (version 2 keeps
 * them), read back from the file, the objects still in the order written. */
static int crcs_from_file(struct packw *p, struct jail_err *e)
{
	for (size_t i = 0; i < p->n; i++) {
		uint64_t end = i + 1 < p->n ? p->v[i + 1].off : p->off;
		uint32_t crc = 0;
		for (uint64_t at = p->v[i].off; at < end;) {
			size_t want = end - at < OUT_BUF ? (size_t)(end - at) : OUT_BUF;
			ssize_t got = pread(p->fd, p->buf, want, (off_t)at);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				return jail_err_sys(e, "read back the export's pack '%s'", p->tmp);
			crc = packw_crc32(crc, p->buf, (size_t)got);
			at += (uint64_t)got;
		}
		p->v[i].crc = crc;
	}
	return 0;
}

/* The pack's checksum, of the file as written: the header's count is known
 * only now (repeats were dropped), and one more pass of SHA-1 over what
 * the page cache holds costs less than keeping a hash that a dropped object
 * would have to unwind. */
static int pack_sum(struct packw *p, unsigned char sum[20], struct jail_err *e)
{
	unsigned char n[4];
	be32(n, (uint32_t)p->n);
	if (pwrite(p->fd, n, 4, 8) != 4)
		return jail_err_sys(e, "write the export's pack '%s'", p->tmp);
	struct sha1 c;
	sha1_init(&c);
	int r = 0;
	for (uint64_t at = 0; r == 0 && at < p->off;) {
		size_t want = p->off - at < OUT_BUF ? (size_t)(p->off - at) : OUT_BUF;
		ssize_t got = pread(p->fd, p->buf, want, (off_t)at);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			r = jail_err_sys(e, "read back the export's pack '%s'", p->tmp);
		else
			sha1_update(&c, p->buf, (size_t)got), at += (uint64_t)got;
	}
	if (r == 0)
		sha1_final(&c, sum);
	return r;
}

int packw_finish(struct packw *p, struct jail_err *e)
{
	if (p->n > p->count || p->left)
		return jail_err_set(e, 0, "the export's pack: an object was left unfinished");
	unsigned char sum[20];
	if (flush_out(p, e) < 0)
		return -1;
	/* the checksum kept while writing holds when the header's count does */
	if (!p->resum && p->n == p->count)
		sha1_final(&p->sum, sum);
	else if (pack_sum(p, sum, e) < 0)
		return -1;
	if (pwrite(p->fd, sum, sizeof(sum), (off_t)p->off) != (ssize_t)sizeof(sum))
		return jail_err_sys(e, "write the export's pack '%s'", p->tmp);
	if (p->off > p->v1_max && crcs_from_file(p, e) < 0)
		return -1;
	if (close(p->fd) < 0) {
		p->fd = -1;
		return jail_err_sys(e, "write the export's pack '%s'", p->tmp);
	}
	p->fd = -1;
	char hex[41];
	packw_hex(sum, hex);
	struct strbuf idx = {0};
	build_index(p, sum, &idx);
	_cleanup_free_ char *pack = xasprintf("%s/pack-%s.pack", p->dir, hex);
	_cleanup_free_ char *name = xasprintf("%s/pack-%s.idx", p->dir, hex);
	_cleanup_free_ char *tmp_idx = xasprintf("%s/tmp_jail_idx_%s", p->dir, hex);
	/* the pack first: git takes an index as the sign that its pack is there */
	int r = write_file_at(AT_FDCWD, tmp_idx, idx.s, idx.len, 0444, e);
	sb_free(&idx);
	if (r == 0 && rename(p->tmp, pack) < 0)
		r = jail_err_sys(e, "move the export's pack to '%s'", pack);
	if (r == 0) {
		free(p->tmp);
		p->tmp = NULL;
	}
	if (r == 0 && rename(tmp_idx, name) < 0)
		r = jail_err_sys(e, "move the export's pack index to '%s'", name);
	if (r < 0)
		unlink(tmp_idx);
	return r;
}

void packw_free(struct packw *p)
{
	closep(&p->fd);
	if (p->tmp)
		unlink(p->tmp);
	free(p->tmp);
	free(p->dir);
	free(p->buf);
	free(p->v);
	free(p->slots);
	memset(p, 0, sizeof(*p));
	p->fd = -1;
}
