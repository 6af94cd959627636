/* allow.h — the egress allowlist: --allow HOST:PORT entries parsed once, used
 * by the nftables plan (literal addresses), the DNS filter (names) and the
 * network helper (the host's loopback).  Pure code, no syscalls. */
#ifndef JAIL_ALLOW_H
#define JAIL_ALLOW_H
#include <stdint.h>
#include <sys/socket.h>

#include "util.h"

enum allow_kind {
	ALLOW_V4,      /* 203.0.113.7:443 */
	ALLOW_V6,      /* [2001:db8::1]:443 */
	ALLOW_NAME,    /* api.example.com:443 — exactly this name */
	ALLOW_SUFFIX,  /* *.example.com:443 — any name below example.com */
	ALLOW_HOST,    /* host:11434 — the host's own loopback */
};

struct allow_entry {
	enum allow_kind kind;
	unsigned char addr[16];  /* ALLOW_V4: first 4 bytes; ALLOW_V6: all 16 */
	char *name;              /* ALLOW_NAME/ALLOW_SUFFIX: lower case, no trailing dot
	                          * (for *.example.com: "example.com") */
	uint16_t port;           /* host order, 1..65535 */
};

struct allow_list {
	struct allow_entry *v;
	size_t n;
};

/* The name under which the jail reaches the host's loopback. */
#define ALLOW_HOST_NAME "host.jail.internal"

int allow_parse(const struct strv *specs, struct allow_list *out, struct jail_err *e) WUR;
void allow_free(struct allow_list *l);
/* Lower-cases name in place and drops one trailing dot; false if it is not a
 * valid DNS name (letters, digits, '-', '_', labels of 1..63, at most 253). */
bool allow_normalize_name(char *name);
/* Does this (normalized) name match the entry?  Exact, or strictly below a
 * suffix entry. */
bool allow_entry_matches(const struct allow_entry *a, const char *name);
/* The distinct ports the name may reach; returns how many (0: name refused). */
size_t allow_name_ports(const struct allow_list *l, const char *name, uint16_t *ports,
                        size_t max);
/* The SNI gate (snigate.h) serves a name whose only allowed port is 443:
 * its connections go through the supervisor, which checks the name the client
 * asks for in TLS, never opening its addresses.  (Pure.) */
#define ALLOW_GATE_PORT 443
bool allow_name_gated(const struct allow_list *l, const char *name);
/* Could any name be gated (a name or *.suffix entry on port 443)?  The gate's
 * listener is made then. */
bool allow_gate_wanted(const struct allow_list *l);
/* The distinct ports allowed on the host's loopback (host:PORT). */
size_t allow_host_ports(const struct allow_list *l, uint16_t *ports, size_t max);

/* "ADDR", "ADDR:PORT", "[V6]:PORT" or a bare IPv6 address into a sockaddr
 * (v4 or v6) with default_port when none is given. */
int addr_port_parse(const char *s, uint16_t default_port, struct sockaddr_storage *ss,
                    socklen_t *len, struct jail_err *e) WUR;
#endif
