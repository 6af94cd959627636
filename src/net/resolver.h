/* resolver.h — the transport of the jail's DNS resolver: the UDP and TCP
 * listeners init made at 127.0.0.1:53 in the jail's netns, and the queries
 * jail sends upstream.  Event-driven, for the supervisor's network thread:
 * every client and every upstream query is a non-blocking state in one poll
 * loop, so a client that stalls or trickles holds up no one.  Limits: at most
 * RES_MAX_TCP TCP clients (the oldest idle one makes room for a new one),
 * RES_MAX_JOBS questions upstream at once, RES_MAX_QUERY bytes per query,
 * RES_CLIENT_MS for each question of a TCP client.
 *
 * What to answer is the caller's: ops->decide sees each well-formed query
 * (dns_parse_query) and answers it at once or sends it upstream — always as
 * the question jail rebuilt (dns_build_upstream), never the client's bytes —
 * and ops->finish turns the upstream response (NULL: none in time) into the
 * reply, which goes back with the client's id. */
#ifndef JAIL_RESOLVER_H
#define JAIL_RESOLVER_H
#include <poll.h>
#include <sys/socket.h>

#include "dns.h"

#define RES_MAX_TCP 16
#define RES_MAX_JOBS 64
#define RES_MAX_QUERY 1024
#define RES_CLIENT_MS 3000
#define RES_UPSTREAM_MS 2500
#define RES_MAX_POLL (RES_MAX_TCP + RES_MAX_JOBS + 2)

struct resolver_ops {
	/* Returns the length of an immediate reply written to out, or 0 to ask
	 * upstream. */
	size_t (*decide)(void *arg, const struct dns_question *q, const unsigned char *qpkt,
	                 unsigned char *out, size_t cap);
	/* The reply to q from the upstream response resp (NULL: none). */
	size_t (*finish)(void *arg, const struct dns_question *q, const unsigned char *qpkt,
	                 unsigned char *resp, size_t rlen, unsigned char *out, size_t cap);
	void *arg;
};

struct resolver;

/* udp and tcp stay the caller's; they are made non-blocking. */
struct resolver *resolver_new(int udp, int tcp, const struct sockaddr_storage *upstream,
                              socklen_t upstream_len, const struct resolver_ops *ops);
void resolver_free(struct resolver *r);
/* Fill p (room for RES_MAX_POLL) with what to wait for; returns how many. */
size_t resolver_pollfds(struct resolver *r, struct pollfd *p);
/* Act on the revents of the n entries resolver_pollfds filled, then on the
 * deadlines that passed. */
void resolver_handle(struct resolver *r, const struct pollfd *p, size_t n);
/* How long poll may sleep before a deadline (-1: none). */
int resolver_timeout_ms(const struct resolver *r);
#endif
