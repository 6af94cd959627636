/* Unit tests: net.c — parsing --publish PORT[:HOSTPORT]. */
#include "t.h"
#include "net.h"

T(publish_values)
{
	struct jail_err e = {0};
	struct net_publish p;
	CHECK_INT(net_publish_parse("8000", &p, &e), 0);
	CHECK_INT(p.port, 8000);
	CHECK_INT(p.host_port, 8000);
	CHECK_INT(net_publish_parse("3000:13000", &p, &e), 0);
	CHECK_INT(p.port, 3000);
	CHECK_INT(p.host_port, 13000);
	CHECK_INT(net_publish_parse("65535:1", &p, &e), 0);
	const char *bad[] = {"", "0", "65536", "80:", ":80", "80:0", "8a", "-1", "1:2:3",
	                     "123456", " 80"};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		CHECK_INT(net_publish_parse(bad[i], &p, &e), -1);
}
