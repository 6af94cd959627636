/* snigate.h — the SNI gate: TLS to names allowed on port 443 only, through
 * the supervisor, without terminating TLS.
 *
 * Opening the addresses an allowed name resolves to would open them for every
 * site a shared front end (a CDN) serves there: a client could connect to an
 * allowed address and name another site in its ClientHello.  Instead the
 * jail's DNS answers such a name with GATE_ADDR, where a socket init made in
 * the jail's netns listens; the gate reads the ClientHello (tlshello.h),
 * refuses a connection whose server name (SNI) the policy does not allow,
 * resolves that name itself, connects to it on port 443, and copies the bytes
 * both ways as they are.  The name's addresses never enter the ruleset. */
#ifndef JAIL_SNIGATE_H
#define JAIL_SNIGATE_H
#include "dns.h"
#include "util.h"

#define GATE_ADDR "127.0.0.3"       /* in the jail's netns, on lo (the broker has .2) */
#define GATE_PORT 443
#define GATE_MAX_CONNS 64
#define GATE_HELLO_MS 10000         /* for the whole ClientHello */
#define GATE_CONNECT_MS 10000       /* for each upstream address */
#define GATE_MAX_ADDRS 8

struct snigate_ops {
	/* May a connection naming this (normalized) name go on? */
	bool (*allowed)(void *arg, const char *name);
	/* Where to connect for name: up to max addresses; 0 and why filled when
	 * none.  Called from the connections' threads. */
	size_t (*resolve)(void *arg, const char *name, struct dns_addr *out, size_t max,
	                  char *why, size_t cap);
	void *arg;
};

struct snigate;
/* Serve the listening socket (taken over) on a thread of its own, each
 * connection on one more; quiet: refusals are counted, not told. */
int snigate_start(int listen_fd, const struct snigate_ops *ops, bool quiet,
                  struct snigate **out, struct jail_err *e) WUR;
/* End every connection and free; returns how many were refused. */
unsigned long snigate_stop(struct snigate *g);
#endif
