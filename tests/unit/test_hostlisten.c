/* test_hostlisten.c — which loopback family of the host serves a port. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hostlisten.h"
#include "t.h"

static unsigned match(int family, const char *text)
{
	unsigned char a[16];
	if (inet_pton(family, text, a) != 1)
		return 99;
	return hostlisten_match(family, a);
}

static unsigned families(const uint16_t *ports, size_t n)
{
	unsigned found = 99;
	CHECK_INT(hostlisten_families(ports, n, &found), 0);
	return found;
}

T(hostlisten_match_knows_the_loopback_spellings)
{
	CHECK_INT(match(AF_INET, "127.0.0.1"), HOSTLISTEN_V4);
	CHECK_INT(match(AF_INET, "0.0.0.0"), HOSTLISTEN_V4);
	CHECK_INT(match(AF_INET, "127.0.0.2"), 0);  /* pasta connects to 127.0.0.1 */
	CHECK_INT(match(AF_INET, "192.0.2.1"), 0);
	CHECK_INT(match(AF_INET6, "::1"), HOSTLISTEN_V6);
	CHECK_INT(match(AF_INET6, "::"), HOSTLISTEN_V4 | HOSTLISTEN_V6);
	CHECK_INT(match(AF_INET6, "::ffff:127.0.0.1"), HOSTLISTEN_V4);
	CHECK_INT(match(AF_INET6, "::ffff:10.0.0.1"), 0);
	CHECK_INT(match(AF_INET6, "fe80::1"), 0);
	CHECK_INT(hostlisten_match(AF_UNIX, (const unsigned char *)"\0\0\0\0"), 0);
}

/* A socket of type on addr (port 0: the kernel picks), listening when TCP;
 * its port in *port, or -1 with errno. */
static int bound(int family, int type, const char *addr, uint16_t *port)
{
	struct sockaddr_storage ss = {0};
	socklen_t len;
	if (family == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)&ss;
		s->sin_family = AF_INET;
		inet_pton(AF_INET, addr, &s->sin_addr);
		len = sizeof(*s);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;
		s->sin6_family = AF_INET6;
		inet_pton(AF_INET6, addr, &s->sin6_addr);
		len = sizeof(*s);
	}
	int fd = socket(family, type | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 1) < 0) ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		int saved = errno;
		if (fd >= 0)
			close(fd);
		errno = saved;
		return -1;
	}
	*port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
	                                : ((struct sockaddr_in6 *)&ss)->sin6_port);
	return fd;
}

T(hostlisten_families_sees_a_tcp_listener_on_127_0_0_1)
{
	uint16_t port;
	int fd = bound(AF_INET, SOCK_STREAM, "127.0.0.1", &port);
	if (fd < 0)
		T_SKIP("cannot listen on 127.0.0.1");
	CHECK_INT(families(&port, 1), HOSTLISTEN_V4);
	uint16_t two[2] = {1, port};  /* any of the ports */
	CHECK_INT(families(two, 2), HOSTLISTEN_V4);
	close(fd);
	/* the listener is gone: nothing on the port (the control) */
	CHECK_INT(families(&port, 1), 0);
}

T(hostlisten_families_sees_a_tcp_listener_on_ipv6_loopback)
{
	uint16_t port;
	int fd = bound(AF_INET6, SOCK_STREAM, "::1", &port);
	if (fd < 0)
		T_SKIP("no IPv6 loopback on this host");
	CHECK_INT(families(&port, 1), HOSTLISTEN_V6);
	close(fd);
}

T(hostlisten_families_sees_udp_but_not_a_client_socket)
{
	uint16_t port;
	int fd = bound(AF_INET, SOCK_DGRAM, "127.0.0.1", &port);
	if (fd < 0)
		T_SKIP("cannot bind UDP on 127.0.0.1");
	CHECK_INT(families(&port, 1), HOSTLISTEN_V4);
	/* a TCP connection's local port is not a server */
	uint16_t lport;
	int l = bound(AF_INET, SOCK_STREAM, "127.0.0.1", &lport);
	int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(lport),
	                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_in me;
	socklen_t len = sizeof(me);
	if (l >= 0 && c >= 0 && connect(c, (struct sockaddr *)&to, sizeof(to)) == 0 &&
	    getsockname(c, (struct sockaddr *)&me, &len) == 0) {
		uint16_t cport = ntohs(me.sin_port);
		CHECK_INT(families(&cport, 1), 0);
	} else {
		CHECK(!"connect to our own listener");
	}
	close(fd);
	close(l);
	close(c);
}
