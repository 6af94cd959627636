/* packw.h — the agent's new files written straight into a pack of the export's
 * throwaway repository, for fast-import to name by id.
 *
 * Why: `git fast-import` given the content inline hashes it three times with
 * git's collision-detecting SHA-1 (the object ids, the pack as written, and the
 * pack read back to fix its header): about two thirds of a 2,000-file export's
 * git time.  Here each byte is hashed once for its object and once for the
 * pack as it is written, with the CPU's SHA instructions (sha1.h), and
 * stored uncompressed (zlib "stored" blocks): the repository is deleted a
 * second later.
 *
 * Without git's collision detection: for two contents with one id (a SHA-1
 * collision the agent crafted) git reads one of them wherever either is, so
 * the patch may show one content for two paths or leave a change out.  What
 * lands is still what the patch shows and the reviewer reads, and the host's
 * objects are only read, never written.
 *
 * The pack and its index (version 1, without the CRC-32s git never reads here;
 * version 2 past 2 GiB) are what git itself writes (`index-pack
 * --index-version=1`), so every git command reads them; the unit test checks
 * both with `git verify-pack`. */
#ifndef JAIL_PACKW_H
#define JAIL_PACKW_H
#include "sha1.h"
#include "util.h"

#include <stdbool.h>
#include <stdint.h>

struct packw_ent {
	unsigned char oid[20];
	uint32_t crc;      /* of the object's bytes in the pack (index version 2 only) */
	uint64_t off;
};

struct packw {
	int fd;
	char *dir;         /* GIT_DIR/objects/pack */
	char *tmp;         /* the pack being written, renamed by packw_finish() */
	struct sha1 obj;   /* of the current object */
	struct sha1 sum;   /* of the pack so far, unless resum */
	bool resum;        /* a repeat was cut out: hash the file again at the end */
	unsigned char *buf;
	size_t blen;
	uint64_t off;      /* bytes of the pack so far */
	uint64_t flushed;  /* of them in the file (the rest in buf) */
	uint32_t count;    /* the most objects there can be */
	uint64_t v1_max;   /* the longest pack given a version 1 index (a test lowers it) */
	struct packw_ent *v;
	size_t n;
	uint32_t *slots;   /* the ids seen: a set (packw.c: seen()) */
	size_t nslots;
	/* the object being written */
	uint64_t left, blk_left;
	uint32_t adler_a, adler_b;
};

/* Start a pack of at most count blobs in GIT_DIR's objects/pack; a blob
 * written twice is kept once. */
int packw_open(struct packw *p, const char *git_dir, uint32_t count, struct jail_err *e) WUR;
/* One blob of size bytes: start, its data in pieces (size bytes in all), end
 * (hex gets its id, 40 hex digits and a NUL). */
int packw_blob_start(struct packw *p, uint64_t size, struct jail_err *e) WUR;
/* The same for an object of another type (its data then goes in as a blob's). */
enum { PACKW_COMMIT = 1, PACKW_TREE = 2, PACKW_BLOB = 3 };
int packw_start(struct packw *p, int type, uint64_t size, struct jail_err *e) WUR;
/* A whole object held in memory (a tree, a commit); oid gets its id. */
int packw_object(struct packw *p, int type, const void *data, size_t n, unsigned char oid[20],
                 struct jail_err *e) WUR;
int packw_blob_data(struct packw *p, const void *data, size_t n, struct jail_err *e) WUR;
int packw_blob_end(struct packw *p, char hex[41], struct jail_err *e) WUR;
/* An id's 40 hex digits (lower case, as git prints it) and a NUL. */
void packw_hex(const unsigned char oid[20], char hex[41]);
/* The 20 bytes of a 40-digit object id (as git prints it, either case). */
void packw_oid_from_hex(const char *hex, unsigned char oid[20]);
/* The trailer, the index, and both renamed into place, where git finds them. */
int packw_finish(struct packw *p, struct jail_err *e) WUR;
/* Free everything; an unfinished pack's file is removed. */
void packw_free(struct packw *p);

/* The checksums the pack format uses (exposed for the unit test). */
uint32_t packw_crc32(uint32_t crc, const void *data, size_t n);
void packw_adler32(uint32_t *a, uint32_t *b, const void *data, size_t n);

#endif
