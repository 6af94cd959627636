/* nftlib.c — opening libmnl and libnftnl when the network is filtered (why:
 * nftlib.h). */
#define NFTLIB_IMPL
#include "nftlib.h"

#include <dlfcn.h>

/* the sonames of the libraries the headers describe (the Makefile reads them
 * from the development libraries) */
#ifndef MNL_SONAME
#define MNL_SONAME "libmnl.so.0"
#endif
#ifndef NFTNL_SONAME
#define NFTNL_SONAME "libnftnl.so.11"
#endif

struct nftlib nftlib;
static bool loaded;

bool nftlib_loaded(void)
{
	return loaded;
}

/* dlopen and dlsym report failure through dlerror(), not errno. */
static void *open_lib(const char *name, struct jail_err *e)
{
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		jail_err_set(e, 0, "cannot load %s for --net allow (%s); install libmnl and "
		             "libnftnl (Debian: libmnl0 libnftnl11, Fedora: libmnl libnftnl)",
		             name, dlerror());
	return h;
}

#define NFTLIB_RESOLVE(h, lib, f)                                                   \
	t.f = (__typeof__(t.f))dlsym(h, #f);                                        \
	if (!t.f)                                                                   \
		return jail_err_set(e, 0, "%s has no %s: install the version jail was "  \
		                    "built for", lib, #f);

int nftlib_load(struct jail_err *e)
{
	if (loaded)
		return 0;
	/* never closed: the pointers are used until the process ends */
	void *mnl = open_lib(MNL_SONAME, e);
	void *nftnl = mnl ? open_lib(NFTNL_SONAME, e) : NULL;
	if (!nftnl)
		return -1;
	struct nftlib t;
#define MNL_RESOLVE(f) NFTLIB_RESOLVE(mnl, MNL_SONAME, f)
#define NFTNL_RESOLVE(f) NFTLIB_RESOLVE(nftnl, NFTNL_SONAME, f)
	NFTLIB_MNL_FUNCS(MNL_RESOLVE)
	NFTLIB_NFTNL_FUNCS(NFTNL_RESOLVE)
#undef MNL_RESOLVE
#undef NFTNL_RESOLVE
	nftlib = t;
	loaded = true;
	return 0;
}
