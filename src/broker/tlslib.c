/* tlslib.c — opening OpenSSL and nghttp2 on first use (why: tlslib.h,
 * h2lib.h): one loader for both. */
#define TLSLIB_IMPL
#define H2LIB_IMPL
#include "tlslib.h"
#include "h2lib.h"

#include <dlfcn.h>

#define STR_(x) #x
#define STR(x) STR_(x)
/* the sonames of the OpenSSL the headers describe (3: libssl.so.3) */
#define LIBSSL "libssl.so." STR(OPENSSL_SHLIB_VERSION)
#define LIBCRYPTO "libcrypto.so." STR(OPENSSL_SHLIB_VERSION)

struct tlslib tlslib;
struct h2lib h2lib;
static bool loaded, h2_loaded;

bool tlslib_loaded(void)
{
	return loaded;
}

/* dlopen and dlsym report failure through dlerror(), not errno. */
static void *open_lib(const char *name, const char *install, struct jail_err *e)
{
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		jail_err_set(e, 0, "cannot load %s for brokered secrets (%s); install %s", name,
		             dlerror(), install);
	return h;
}

/* Every name of a library's list into its struct (a handle's lookup covers
 * its dependencies: libssl's finds libcrypto's). */
#define DYNLIB_RESOLVE(h, lib, f)                                                   \
	t.f = (__typeof__(t.f))dlsym(h, #f);                                       \
	if (!t.f)                                                                  \
		return jail_err_set(e, 0, "%s has no %s: install the version jail was " \
		                    "built for", lib, #f);

int tlslib_load(struct jail_err *e)
{
	if (loaded)
		return 0;
	/* libcrypto first, so a missing one is named as such; neither is ever
	 * closed: the broker's contexts live until the process ends */
	const char *install = "OpenSSL " STR(OPENSSL_SHLIB_VERSION)
	                      "'s library (Debian: libssl3, Fedora: openssl-libs)";
	void *crypto = open_lib(LIBCRYPTO, install, e);
	void *ssl = crypto ? open_lib(LIBSSL, install, e) : NULL;
	if (!ssl)
		return -1;
	struct tlslib t;
#define TLSLIB_RESOLVE(f) DYNLIB_RESOLVE(ssl, LIBSSL, f)
	TLSLIB_FUNCS(TLSLIB_RESOLVE)
#undef TLSLIB_RESOLVE
	tlslib = t;
	loaded = true;
	return 0;
}

bool h2lib_loaded(void)
{
	return h2_loaded;
}

int h2lib_load(struct jail_err *e)
{
	if (h2_loaded)
		return 0;
	void *h = open_lib(LIBNGHTTP2, "nghttp2's library (Debian: libnghttp2-14, Fedora: "
	                   "libnghttp2)", e);
	if (!h)
		return -1;
	struct h2lib t;
#define H2LIB_RESOLVE(f) DYNLIB_RESOLVE(h, LIBNGHTTP2, f)
	H2LIB_FUNCS(H2LIB_RESOLVE)
#undef H2LIB_RESOLVE
	h2lib = t;
	h2_loaded = true;
	return 0;
}
