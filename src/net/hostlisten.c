/* hostlisten.c — which loopback family of the host has a server on a port
 * (see hostlisten.h). */
#include "hostlisten.h"

#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>

#include "nftlib.h"

unsigned hostlisten_match(int family, const unsigned char *addr)
{
	static const unsigned char any6[16], lo6[16] = {[15] = 1},
		mapped_lo[16] = {[10] = 0xff, [11] = 0xff, [12] = 127, [15] = 1};
	static const unsigned char any4[4], lo4[4] = {127, 0, 0, 1};
	if (family == AF_INET)
		return memcmp(addr, lo4, 4) == 0 || memcmp(addr, any4, 4) == 0 ? HOSTLISTEN_V4 : 0;
	if (family != AF_INET6)
		return 0;
	if (memcmp(addr, any6, 16) == 0)
		return HOSTLISTEN_V4 | HOSTLISTEN_V6;
	if (memcmp(addr, lo6, 16) == 0)
		return HOSTLISTEN_V6;
	return memcmp(addr, mapped_lo, 16) == 0 ? HOSTLISTEN_V4 : 0;
}

struct scan {
	const uint16_t *ports;
	size_t n;
	uint32_t seq;  /* of this dump: a failed one may leave messages behind */
	unsigned found;
	bool done;
	int error;  /* errno of the first failure, 0 if none */
};

static void scan_msg(struct scan *s, const struct nlmsghdr *nlh)
{
	if (nlh->nlmsg_seq != s->seq)
		return;
	if (nlh->nlmsg_type == NLMSG_DONE) {
		s->done = true;
		return;
	}
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
		s->done = true;
		s->error = err->error ? -err->error : EPROTO;
		return;
	}
	if (nlh->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct inet_diag_msg))
		return;
	const struct inet_diag_msg *m = mnl_nlmsg_get_payload(nlh);
	uint16_t port = ntohs(m->id.idiag_sport);
	for (size_t i = 0; i < s->n; i++)
		if (s->ports[i] == port)
			s->found |= hostlisten_match(m->idiag_family,
			                             (const unsigned char *)m->id.idiag_src);
}

/* One dump: the sockets of one family and protocol in the given states. */
static void scan_table(int fd, struct scan *s, uint8_t family, uint8_t proto, uint32_t states)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 req;
	} msg = {
		.nlh = {.nlmsg_len = sizeof(msg), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		        .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = s->seq},
		.req = {.sdiag_family = family, .sdiag_protocol = proto, .idiag_states = states},
	};
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	if (sendto(fd, &msg, sizeof(msg), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		s->error = errno;
		return;
	}
	char buf[MNL_SOCKET_BUFFER_SIZE];
	s->done = false;
	while (!s->done) {
		struct pollfd pfd = {fd, POLLIN, 0};
		int ready = poll(&pfd, 1, 1000);
		ssize_t len = ready == 1 ? recv(fd, buf, sizeof(buf), 0) : -1;
		if (len <= 0) {
			s->error = ready == 0 ? ETIMEDOUT : len == 0 ? EPROTO : errno;
			return;
		}
		int left = (int)len;
		for (const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
		     mnl_nlmsg_ok(nlh, left) && !s->done; nlh = mnl_nlmsg_next(nlh, &left))
			scan_msg(s, nlh);
	}
}

/* A table that cannot be read (no IPv6, no udp_diag module) only hides a
 * family: what the others found does listen, which is all the answer needs. */
int hostlisten_families(const uint16_t *ports, size_t n, unsigned *found)
{
	*found = 0;
	struct jail_err e;
	if (nftlib_load(&e) < 0) /* loaded before the clone when the network is filtered */
		return -1;
	_cleanup_close_ int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -1;
	/* an unconnected UDP socket is in TCP_CLOSE, a connected one is
	 * ESTABLISHED and would not take pasta's datagrams */
	static const struct { uint8_t family, proto; uint32_t states; } tables[] = {
		{AF_INET, IPPROTO_TCP, 1U << TCP_LISTEN}, {AF_INET6, IPPROTO_TCP, 1U << TCP_LISTEN},
		{AF_INET, IPPROTO_UDP, 1U << TCP_CLOSE}, {AF_INET6, IPPROTO_UDP, 1U << TCP_CLOSE},
	};
	int error = 0;
	size_t read = 0;
	for (size_t i = 0; i < ARRAY_SIZE(tables); i++) {
		struct scan s = {.ports = ports, .n = n, .seq = (uint32_t)i + 1};
		scan_table(fd, &s, tables[i].family, tables[i].proto, tables[i].states);
		if (s.error) {
			error = s.error;
			continue;
		}
		read++;
		*found |= s.found;
	}
	if (!read) {
		errno = error;
		return -1;
	}
	return 0;
}
