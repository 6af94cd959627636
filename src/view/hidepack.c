/* hidepack.c — the bytes of git's packs that hold withheld objects
 * (hidepack.h).  The index format is git's pack-format.txt, version 2:
 *
 *   "\377tOc" 2 | fan-out: 256 counts (4 bytes) | N ids (H bytes each,
 *   sorted) | N CRCs (4) | N offsets (4; the top bit set: an index into)
 *   | large offsets (8) | the pack's checksum (H) | the index's own (H)
 *
 * H is 20 (SHA-1) or 32 (SHA-256); the file's size tells which.  Read with
 * pread, never mapped: a file the host truncates meanwhile is a short read
 * (the pack is then not served), not a SIGBUS in the view's server. */
#include "hidepack.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define IDX_HEAD (8 + 256 * 4)

enum hidepack_kind hidepack_kind(const char *name)
{
	static const char *const plain[] = {".idx", ".rev", ".bitmap", ".keep", ".promisor", ".mtimes"};
	if (!strncmp(name, "multi-pack-index", 16))
		return HIDEPACK_PLAIN;
	if (strncmp(name, "pack-", 5) != 0)
		return HIDEPACK_OTHER;
	size_t len = strlen(name);
	if (len > 5 && !strcmp(name + len - 5, ".pack"))
		return HIDEPACK_PACK;
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		size_t n = strlen(plain[i]);
		if (len > n && !strcmp(name + len - n, plain[i]))
			return HIDEPACK_PLAIN;
	}
	return HIDEPACK_OTHER;
}

char *hidepack_idx_name(const char *pack_name)
{
	size_t len = strlen(pack_name);
	return xasprintf("%.*s.idx", (int)(len - 5), pack_name);
}

static bool read_at(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

struct idx {
	int fd;
	uint32_t fan[256];
	uint64_t n, hlen, names, offs, large, n_large;
};

/* The hash length whose layout the file's size fits (the two never both
 * fit: see the sizes in the comment at the top). */
static bool idx_layout(struct idx *x, uint64_t size)
{
	for (uint64_t h = 20; h <= 32; h += 12) {
		uint64_t fixed = IDX_HEAD + x->n * (h + 8) + 2 * h;
		if (size < fixed || (size - fixed) % 8 || (size - fixed) / 8 > x->n)
			continue;
		x->hlen = h;
		x->names = IDX_HEAD;
		x->offs = IDX_HEAD + x->n * (h + 4);
		x->large = x->offs + x->n * 4;
		x->n_large = (size - fixed) / 8;
		return true;
	}
	return false;
}

static bool idx_open(struct idx *x, int fd, int pack)
{
	unsigned char head[IDX_HEAD];
	struct stat st, ps;
	if (fstat(fd, &st) < 0 || fstat(pack, &ps) < 0 || !read_at(fd, head, sizeof(head), 0) ||
	    memcmp(head, "\377tOc\0\0\0\2", 8) != 0)
		return false;
	x->fd = fd;
	for (int i = 0; i < 256; i++) {
		x->fan[i] = be32(head + 8 + 4 * i);
		if (i && x->fan[i] < x->fan[i - 1])
			return false;
	}
	x->n = x->fan[255];
	if (!idx_layout(x, (uint64_t)st.st_size))
		return false;
	/* the pack's own checksum, which the .idx records: the two belong together */
	unsigned char a[32], b[32];
	return (uint64_t)ps.st_size >= 12 + x->hlen &&
	       read_at(fd, a, x->hlen, (uint64_t)st.st_size - 2 * x->hlen) &&
	       read_at(pack, b, x->hlen, (uint64_t)ps.st_size - x->hlen) && !memcmp(a, b, x->hlen);
}

/* The offset of entry i (0 when it cannot be read: never a withheld one's) */
static uint64_t idx_offset(const struct idx *x, uint64_t i)
{
	unsigned char o[8];
	if (!read_at(x->fd, o, 4, x->offs + 4 * i))
		return 0;
	uint32_t v = be32(o);
	if (!(v & 0x80000000u))
		return v;
	v &= 0x7fffffffu;
	return v < x->n_large && read_at(x->fd, o, 8, x->large + 8 * (uint64_t)v) ? be64(o) : 0;
}

static int unhex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "ab/cdef…" to bytes; false unless it is an id of this length */
static bool id_bytes(const char *obj, unsigned char *out, uint64_t hlen)
{
	if (strlen(obj) != 2 * hlen + 1 || obj[2] != '/')
		return false;
	char hex[65];
	memcpy(hex, obj, 2);
	memcpy(hex + 2, obj + 3, 2 * hlen - 2);
	for (uint64_t i = 0; i < hlen; i++) {
		int hi = unhex(hex[2 * i]), lo = unhex(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return true;
}

/* The entry that holds `id`, by the fan-out and a binary search; -1 if none. */
static int64_t idx_find(const struct idx *x, const unsigned char *id)
{
	uint64_t lo = id[0] ? x->fan[id[0] - 1] : 0, hi = x->fan[id[0]];
	unsigned char name[32];
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (!read_at(x->fd, name, x->hlen, x->names + mid * x->hlen))
			return -1;
		int c = memcmp(name, id, x->hlen);
		if (!c)
			return (int64_t)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Every object's offset, sorted (the .idx lists them by id); one pass over
 * the offsets (4 bytes an object), in blocks.  NULL when they cannot be read. */
static uint64_t *all_offsets(const struct idx *x)
{
	uint64_t *o = malloc((x->n ? x->n : 1) * sizeof(*o));
	/* the large offsets (a pack over 2 GiB) read once, not one by one */
	_cleanup_free_ unsigned char *large = x->n_large ? malloc(x->n_large * 8) : NULL;
	if (!o || (x->n_large && (!large || !read_at(x->fd, large, x->n_large * 8, x->large)))) {
		free(o);
		return NULL;
	}
	unsigned char buf[16384];
	for (uint64_t i = 0; i < x->n;) {
		uint64_t m = x->n - i < sizeof(buf) / 4 ? x->n - i : sizeof(buf) / 4;
		if (!read_at(x->fd, buf, m * 4, x->offs + 4 * i)) {
			free(o);
			return NULL;
		}
		for (uint64_t j = 0; j < m; j++) {
			uint32_t v = be32(buf + 4 * j);
			o[i + j] = v;
			if (v & 0x80000000u) {
				v &= 0x7fffffffu;
				o[i + j] = v < x->n_large ? be64(large + 8 * (uint64_t)v) : 0;
			}
		}
		i += m;
	}
	qsort(o, x->n, sizeof(*o), cmp_u64);
	return o;
}

/* The index in `o` of the object at `off`, or -1. */
static int64_t offset_at(const uint64_t *o, uint64_t n, uint64_t off)
{
	const uint64_t *p = bsearch(&off, o, n, sizeof(*o), cmp_u64);
	return p ? p - o : -1;
}

/* The offset of the object that the one at `off` is a delta against (git's
 * OFS_DELTA: a distance back; REF_DELTA: an id, looked up in the .idx), 0
 * when it is no delta or its header cannot be read.  The header: type and
 * size (7 bits a byte while the top bit is set), then the base. */
struct pack_buf {
	int fd;
	uint64_t size, at, len; /* the pack's size; the bytes held: [at, at + len) */
	unsigned char b[8192];
};

/* The up to 64 bytes at `off` (fewer at the end), from the block held or a
 * new one read there: the headers of small objects share a read. */
static const unsigned char *pack_bytes(struct pack_buf *p, uint64_t off, uint64_t *len)
{
	*len = p->size - off < 64 ? p->size - off : 64;
	if (off < p->at || off + *len > p->at + p->len) {
		p->len = p->size - off < sizeof(p->b) ? p->size - off : sizeof(p->b);
		p->at = off;
		if (!read_at(p->fd, p->b, (size_t)p->len, off)) {
			p->len = 0;
			return NULL;
		}
	}
	return p->b + (off - p->at);
}

static uint64_t delta_base(const struct idx *x, struct pack_buf *p, uint64_t off)
{
	uint64_t len;
	const unsigned char *h = pack_bytes(p, off, &len);
	if (!h || !len)
		return 0;
	unsigned type = (h[0] >> 4) & 7;
	uint64_t i = 1;
	for (unsigned char c = h[0]; c & 0x80; c = h[i++])
		if (i >= len || i > 10)
			return 0;
	if (type == 7) { /* REF_DELTA */
		int64_t at = i + x->hlen <= len ? idx_find(x, h + i) : -1;
		return at < 0 ? 0 : idx_offset(x, (uint64_t)at);
	}
	if (type != 6 || i >= len) /* OFS_DELTA (git's encoding: +1 a byte) */
		return 0;
	unsigned char c = h[i++];
	uint64_t back = c & 127;
	while (c & 0x80) {
		if (i >= len || back >= (UINT64_C(1) << 56))
			return 0;
		c = h[i++];
		back = ((back + 1) << 7) | (c & 127);
	}
	return back && back < off ? off - back : 0;
}

/* git stores an object as a delta against a similar one (a tracked
 * .env.example as "the first 1380 bytes of this .env blob"): such a delta,
 * against a withheld object or one that leads to it, tells where the two
 * agree and the withheld one's size, and git cannot rebuild it from a
 * blanked base anyway.  So each object whose delta chain reaches a marked
 * one is marked too: passes in offset order until none is added (an
 * OFS_DELTA's base lies before it, so one pass is usually all). */
static void mark_deltas(const struct idx *x, int pack, uint64_t pack_size, const uint64_t *o,
                        bool *mark)
{
	_cleanup_free_ uint32_t *base = malloc((x->n ? x->n : 1) * sizeof(*base));
	_cleanup_free_ struct pack_buf *p = malloc(sizeof(*p));
	if (!base || !p) {
		memset(mark, 1, x->n); /* (no memory: more is blanked, never less) */
		return;
	}
	*p = (struct pack_buf){.fd = pack, .size = pack_size};
	for (uint64_t k = 0; k < x->n; k++) {
		uint64_t b = o[k] < pack_size ? delta_base(x, p, o[k]) : 0;
		int64_t at = b ? offset_at(o, x->n, b) : -1;
		base[k] = at < 0 ? UINT32_MAX : (uint32_t)at;
	}
	for (bool more = true; more;) {
		more = false;
		for (uint64_t k = 0; k < x->n; k++)
			if (!mark[k] && base[k] != UINT32_MAX && mark[base[k]])
				mark[k] = more = true;
	}
}

int hidepack_ranges(int idx, int pack, const struct strv *ids, struct hidepack_range **out,
                    size_t *n)
{
	*out = NULL;
	*n = 0;
	struct idx x = {0};
	struct stat ps;
	if (!idx_open(&x, idx, pack) || fstat(pack, &ps) < 0) {
		errno = EINVAL;
		return -1;
	}
	uint64_t size = (uint64_t)ps.st_size, end = size - x.hlen;
	_cleanup_free_ uint64_t *o = NULL;
	_cleanup_free_ bool *mark = NULL;
	bool any = false;
	for (size_t i = 0; i < ids->n; i++) {
		unsigned char id[32];
		int64_t at = id_bytes(ids->v[i], id, x.hlen) ? idx_find(&x, id) : -1;
		uint64_t off = at < 0 ? 0 : idx_offset(&x, (uint64_t)at);
		if (off < 12 || off >= end)
			continue; /* not in this pack (an offset past the data: none) */
		if (!o && (!(o = all_offsets(&x)) || !(mark = calloc(x.n ? x.n : 1, 1)))) {
			errno = ENOMEM; /* (or unreadable: then not served) */
			return -1;
		}
		int64_t k = offset_at(o, x.n, off);
		if (k >= 0)
			mark[k] = any = true;
	}
	if (!any)
		return 0;
	mark_deltas(&x, pack, size, o, mark);
	struct hidepack_range *r = NULL;
	size_t cap = 0;
	/* each marked object ends where the next object starts, or at the trailer */
	for (uint64_t k = 0; k < x.n; k++) {
		if (!mark[k] || o[k] < 12 || o[k] >= end)
			continue;
		uint64_t to = end;
		for (uint64_t j = k + 1; j < x.n; j++)
			if (o[j] > o[k]) {
				to = o[j] < end ? o[j] : end;
				break;
			}
		if (*n == cap) {
			cap = cap ? 2 * cap : 4;
			r = xrealloc(r, cap * sizeof(*r));
		}
		r[(*n)++] = (struct hidepack_range){.from = o[k], .to = to};
	}
	*out = r;
	return 0;
}

void hidepack_blank(const struct hidepack_range *r, size_t n, char *buf, size_t len, uint64_t off)
{
	for (size_t k = 0; k < n; k++) {
		uint64_t from = r[k].from > off ? r[k].from : off;
		uint64_t to = r[k].to < off + len ? r[k].to : off + len;
		if (from < to)
			memset(buf + (from - off), 0, (size_t)(to - from));
	}
}
