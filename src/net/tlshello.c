/* tlshello.c — the SNI of a TLS ClientHello (RFC 8446 4.1.2, RFC 6066 3),
 * for the SNI gate.  The client's bytes are read as they come: record
 * headers first, the handshake message gathered from up to
 * TLSHELLO_MAX_RECORDS records, then its fields one by one, each length
 * checked against what holds it.  Called again with more bytes, it starts
 * over: the buffer is small and a strict reading is simpler than a resumed
 * one. */
#include "tlshello.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define REC_HEADER 5
#define REC_CCS 20
#define REC_HANDSHAKE 22
#define REC_MAX 16384           /* a TLSPlaintext fragment (RFC 8446 5.1) */
#define HS_HEADER 4
#define HS_CLIENT_HELLO 1
#define HS_SERVER_HELLO 2
#define RANDOM_LEN 32
#define EXT_SERVER_NAME 0
#define EXT_ECH 0xfe0d          /* encrypted_client_hello */
#define EXT_ESNI 0xffce         /* its draft predecessor, encrypted_server_name */
#define NAME_HOST 0

/* A bounded reader over one field. */
struct rd {
	const unsigned char *p;
	size_t len, off;
};

static bool rd_skip(struct rd *r, size_t n)
{
	if (r->len - r->off < n)
		return false;
	r->off += n;
	return true;
}

static bool rd_uint(struct rd *r, size_t bytes, size_t *v)
{
	if (r->len - r->off < bytes)
		return false;
	*v = 0;
	for (size_t i = 0; i < bytes; i++)
		*v = *v << 8 | r->p[r->off++];
	return true;
}

/* A length-prefixed field: its prefix, then a reader of exactly its bytes. */
static bool rd_vec(struct rd *r, size_t prefix, struct rd *sub)
{
	size_t n;
	if (!rd_uint(r, prefix, &n) || r->len - r->off < n)
		return false;
	*sub = (struct rd){r->p + r->off, n, 0};
	r->off += n;
	return true;
}

static enum tlshello_result bad(const char **why, const char *what)
{
	*why = what;
	return TLSHELLO_BAD;
}

/* server_name's extension_data: a list of exactly one host_name. */
static enum tlshello_result read_server_name(struct rd *ext, char *sni, size_t cap,
                                             const char **why)
{
	struct rd list;
	if (!rd_vec(ext, 2, &list) || ext->off != ext->len || list.len == 0)
		return bad(why, "a malformed server_name extension");
	bool have = false;
	while (list.off < list.len) {
		size_t type;
		struct rd name;
		if (!rd_uint(&list, 1, &type) || !rd_vec(&list, 2, &name))
			return bad(why, "a malformed server_name entry");
		if (type != NAME_HOST)
			return bad(why, "a server_name entry not of type host_name");
		if (have)
			return bad(why, "two host names in server_name");
		if (name.len == 0 || name.len >= cap)
			return bad(why, "a host name of bad length in server_name");
		for (size_t i = 0; i < name.len; i++)
			if (name.p[i] <= ' ' || name.p[i] >= 0x7f)
				return bad(why, "a host name with a character no DNS name has");
		memcpy(sni, name.p, name.len);
		sni[name.len] = '\0';
		have = true;
	}
	return TLSHELLO_OK;
}

/* The ClientHello's body (after its handshake header). */
static enum tlshello_result read_hello(struct rd *r, char *sni, size_t cap, const char **why)
{
	size_t version;
	struct rd skip, exts;
	if (!rd_uint(r, 2, &version) || version >> 8 != 3 || !rd_skip(r, 32))
		return bad(why, "a ClientHello of an unknown version");
	if (!rd_vec(r, 1, &skip) || skip.len > 32)
		return bad(why, "a malformed session id");
	if (!rd_vec(r, 2, &skip) || skip.len < 2 || skip.len % 2)
		return bad(why, "malformed cipher suites");
	if (!rd_vec(r, 1, &skip) || skip.len < 1)
		return bad(why, "malformed compression methods");
	if (r->off == r->len)
		return bad(why, "no extensions, so no server name (SNI)");
	if (!rd_vec(r, 2, &exts) || r->off != r->len)
		return bad(why, "malformed extensions");
	bool found = false;
	while (exts.off < exts.len) {
		size_t type;
		struct rd data;
		if (!rd_uint(&exts, 2, &type) || !rd_vec(&exts, 2, &data))
			return bad(why, "an extension past the end of the ClientHello");
		/* the name that counts would be the encrypted inner one, which a
		 * front end may route by whatever the outer one says */
		if (type == EXT_ECH || type == EXT_ESNI)
			return bad(why, "an encrypted ClientHello (ECH), whose real server name is hidden");
		if (type != EXT_SERVER_NAME)
			continue;
		if (found)
			return bad(why, "two server_name extensions");
		if (read_server_name(&data, sni, cap, why) != TLSHELLO_OK)
			return TLSHELLO_BAD;
		found = true;
	}
	return found ? TLSHELLO_OK : bad(why, "no server name (SNI)");
}

enum tlshello_result tlshello_sni_end(const unsigned char *buf, size_t len, char *sni,
                                      size_t cap, const char **why, size_t *end)
{
	unsigned char hs[TLSHELLO_MAX];
	size_t hlen = 0, off = 0;
	int records = 0;
	*why = "an incomplete ClientHello";
	if (len > TLSHELLO_MAX)
		len = TLSHELLO_MAX;
	while (off < len) {
		if (buf[off] != REC_HANDSHAKE)
			return bad(why, "not a TLS handshake");
		if (len - off < REC_HEADER)
			return TLSHELLO_MORE;
		size_t rlen = (size_t)buf[off + 3] << 8 | buf[off + 4];
		if (buf[off + 1] != 3 || buf[off + 2] > 4)
			return bad(why, "a TLS record of an unknown version");
		if (rlen == 0 || rlen > REC_MAX)
			return bad(why, "a TLS record of bad length");
		if (++records > TLSHELLO_MAX_RECORDS)
			return bad(why, "a ClientHello split over too many records");
		size_t avail = len - off - REC_HEADER < rlen ? len - off - REC_HEADER : rlen;
		if (avail > sizeof(hs) - hlen)
			return bad(why, "a ClientHello too long");
		memcpy(hs + hlen, buf + off + REC_HEADER, avail);
		hlen += avail;
		off += REC_HEADER + avail;
		if (hlen > 0 && hs[0] != HS_CLIENT_HELLO)
			return bad(why, "a TLS handshake that is not a ClientHello");
		if (hlen >= HS_HEADER) {
			size_t mlen = (size_t)hs[1] << 16 | (size_t)hs[2] << 8 | hs[3];
			if (mlen > TLSHELLO_MAX - HS_HEADER - REC_HEADER)
				return bad(why, "a ClientHello too long");
			if (hlen >= HS_HEADER + mlen) {
				/* a server reads on after the hello in its record as the
				 * next message (a second hello, after a retry request) */
				if (hlen > HS_HEADER + mlen)
					return bad(why, "a ClientHello not alone in its TLS record");
				if (avail < rlen)
					return TLSHELLO_MORE;
				struct rd r = {hs + HS_HEADER, mlen, 0};
				*end = off;
				return read_hello(&r, sni, cap, why);
			}
		}
		if (avail < rlen)
			return TLSHELLO_MORE;
	}
	return len >= TLSHELLO_MAX ? bad(why, "a ClientHello too long") : TLSHELLO_MORE;
}

/* SHA-256("HelloRetryRequest"), the random of a HelloRetryRequest */
static const unsigned char hrr_random[RANDOM_LEN] = {
	0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
	0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c,
};

enum tlshello_result tlshello_retry(const unsigned char *buf, size_t len)
{
	/* record header, handshake header, legacy_version, random */
	const size_t rand_at = REC_HEADER + HS_HEADER + 2;
	if (len < REC_HEADER + 1)
		return len && buf[0] != REC_HANDSHAKE ? TLSHELLO_BAD : TLSHELLO_MORE;
	if (buf[0] != REC_HANDSHAKE || buf[REC_HEADER] != HS_SERVER_HELLO)
		return TLSHELLO_BAD;
	size_t rlen = (size_t)buf[3] << 8 | buf[4];
	if (rlen < rand_at - REC_HEADER + RANDOM_LEN)
		return TLSHELLO_OK;
	if (len < rand_at + RANDOM_LEN)
		return TLSHELLO_MORE;
	return memcmp(buf + rand_at, hrr_random, RANDOM_LEN) == 0 ? TLSHELLO_OK : TLSHELLO_BAD;
}

enum tlshello_result tlshello_skip_ccs(const unsigned char *buf, size_t len, size_t *skip)
{
	static const unsigned char ccs[] = {REC_CCS, 3, 3, 0, 1, 1};
	*skip = 0;
	while (len - *skip > 0 && buf[*skip] == REC_CCS) {
		size_t have = len - *skip < sizeof(ccs) ? len - *skip : sizeof(ccs);
		if (memcmp(buf + *skip, ccs, have) != 0)
			return TLSHELLO_OK;  /* not one: the ClientHello parser refuses it */
		if (have < sizeof(ccs))
			return TLSHELLO_MORE;
		*skip += sizeof(ccs);
	}
	return TLSHELLO_OK;
}

enum tlshello_result tlshello_sni(const unsigned char *buf, size_t len, char *sni, size_t cap,
                                  const char **why)
{
	size_t end;
	return tlshello_sni_end(buf, len, sni, cap, why, &end);
}
