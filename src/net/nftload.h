/* nftload.h — opening libnftnl and libmnl (nftlib.h says why and how), for
 * callers that do not use the libraries themselves. */
#ifndef JAIL_NFTLOAD_H
#define JAIL_NFTLOAD_H
#include "util.h"

#include <stdbool.h>

/* Open libmnl and libnftnl and resolve every function nftlib.h lists; once
 * (later calls return at once).  The supervisor calls it before the clone
 * when the network is filtered, so init has them too; each entry point of
 * the modules that use them calls it as well (the unit tests). */
int nftlib_load(struct jail_err *e) WUR;
bool nftlib_loaded(void);
#endif
