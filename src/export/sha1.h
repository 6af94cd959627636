/* sha1.h — SHA-1 for the export's pack (packw.h): git names objects by it.
 *
 * Our own, not OpenSSL's: loading libcrypto for it cost the supervisor 3.7 MB
 * of memory at the end of a session (its relocations and providers), more
 * than the rest of an export.  With the CPU's SHA instructions (x86-64 "SHA
 * extensions", checked at run time) it hashes about as fast as OpenSSL does;
 * elsewhere a plain C version.  No collision detection (git's sha1dc): see
 * packw.h for why the export does not need it. */
#ifndef JAIL_SHA1_H
#define JAIL_SHA1_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sha1 {
	uint32_t h[5];
	uint64_t len;            /* bytes hashed so far */
	unsigned char buf[64];   /* a block not yet full */
	size_t blen;
};

void sha1_init(struct sha1 *c);
void sha1_update(struct sha1 *c, const void *data, size_t n);
/* The digest; c is ready for sha1_init() again. */
void sha1_final(struct sha1 *c, unsigned char out[20]);

/* For the unit test: whether the CPU's instructions are used, and turning
 * them off to check the C version against them. */
bool sha1_uses_cpu(void);
void sha1_use_cpu(bool on);

#endif
