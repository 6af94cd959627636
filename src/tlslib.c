/* tlslib.c — opening OpenSSL on first use (why: tlslib.h). */
#define TLSLIB_IMPL
#include "tlslib.h"

#include <dlfcn.h>

#define STR_(x) #x
#define STR(x) STR_(x)
/* the sonames of the OpenSSL the headers describe (3: libssl.so.3) */
#define LIBSSL "libssl.so." STR(OPENSSL_SHLIB_VERSION)
#define LIBCRYPTO "libcrypto.so." STR(OPENSSL_SHLIB_VERSION)

struct tlslib tlslib;
static bool loaded;

bool tlslib_loaded(void)
{
	return loaded;
}

/* dlopen and dlsym report failure through dlerror(), not errno. */
static void *open_lib(const char *name, struct jail_err *e)
{
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		jail_err_set(e, 0, "cannot load %s for brokered secrets (%s); install OpenSSL %s's "
		             "library (Debian: libssl3, Fedora: openssl-libs)", name, dlerror(),
		             STR(OPENSSL_SHLIB_VERSION));
	return h;
}

int tlslib_load(struct jail_err *e)
{
	if (loaded)
		return 0;
	/* libcrypto first, so a missing one is named as such; neither is ever
	 * closed: the broker's contexts live until the process ends */
	void *crypto = open_lib(LIBCRYPTO, e);
	void *ssl = crypto ? open_lib(LIBSSL, e) : NULL;
	if (!ssl)
		return -1;
	struct tlslib t;
	/* a handle's lookup covers its dependencies: libssl's finds libcrypto's */
#define TLSLIB_RESOLVE(f)                                                            \
	t.f = (__typeof__(t.f))dlsym(ssl, #f);                                       \
	if (!t.f)                                                                    \
		return jail_err_set(e, 0, "%s has no %s: install the OpenSSL jail was " \
		                    "built for", LIBSSL, #f);
	TLSLIB_FUNCS(TLSLIB_RESOLVE)
#undef TLSLIB_RESOLVE
	tlslib = t;
	loaded = true;
	return 0;
}
