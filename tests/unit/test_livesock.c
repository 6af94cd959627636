/* Unit tests: livesock.c (host sockets a bind shows). */
#include "t.h"
#include "livesock.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static const char *const sockets[] = {
	"/run/user/1000/bus", "/home/u/.gnupg/S.gpg-agent", "/home/u/.gnupg/S.gpg-agent.ssh",
	"/home/u/.gnupgx/s", "/data/my dir/a sock",
};

static void check(const char *dir, const char *want, size_t want_n)
{
	struct strv paths = {0};
	for (size_t i = 0; i < ARRAY_SIZE(sockets); i++)
		strv_push(&paths, sockets[i]);
	size_t n = 99;
	const char *got = livesock_below(&paths, dir, &n);
	CHECK_STR(got ? got : "(none)", want ? want : "(none)");
	CHECK(n == want_n);
	strv_free(&paths);
}

T(a_socket_below_the_bind_is_found_with_the_count)
{
	check("/home/u/.gnupg", "/home/u/.gnupg/S.gpg-agent", 2);
	check("/home/u", "/home/u/.gnupg/S.gpg-agent", 3);
	check("/home/u/.gnupg/S.gpg-agent", "/home/u/.gnupg/S.gpg-agent", 1);
	check("/", "/run/user/1000/bus", 5);
	check("/data/my dir", "/data/my dir/a sock", 1);
}

T(a_name_that_only_starts_alike_is_not_below)
{
	check("/home/u/.gnu", NULL, 0);
	check("/home/u/.gnupgx", "/home/u/.gnupgx/s", 1);
	check("/tmp", NULL, 0);
}

/* The kernel's list holds a socket this test listens on, by path and inode,
 * and the datagram sockets it binds, the one another connected to (the
 * kernel has it "established") too; not an accepted stream socket, which
 * carries its listener's name. */
T(the_kernel_lists_listening_and_bound_datagram_sockets)
{
	char dir[] = "/tmp/livesock.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct sockaddr_un a = {.sun_family = AF_UNIX}, b = {.sun_family = AF_UNIX},
	                   c = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/listening", dir);
	snprintf(b.sun_path, sizeof(b.sun_path), "%s/dgram", dir);
	snprintf(c.sun_path, sizeof(c.sun_path), "%s/zconnected", dir);
	int la = socket(AF_UNIX, SOCK_STREAM, 0), lb = socket(AF_UNIX, SOCK_DGRAM, 0),
	    lc = socket(AF_UNIX, SOCK_DGRAM, 0), ca = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(bind(la, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(la, 1) == 0);
	CHECK(connect(ca, (struct sockaddr *)&a, sizeof(a)) == 0);
	int aa = accept(la, NULL, NULL);
	CHECK(aa >= 0);
	CHECK(bind(lb, (struct sockaddr *)&b, sizeof(b)) == 0);
	CHECK(bind(lc, (struct sockaddr *)&c, sizeof(c)) == 0 &&
	      connect(lc, (struct sockaddr *)&b, sizeof(b)) == 0);
	struct stat st;
	CHECK(stat(a.sun_path, &st) == 0);
	struct livesock_set s = {0};
	struct jail_err e;
	int r = livesock_bound(&s, &e);
	size_t n = 0;
	const char *got = r == 0 ? livesock_below(&s.paths, dir, &n) : NULL;
	if (r == 0) {
		CHECK(n == 3);
		bool seen_a = false, seen_b = false;
		for (size_t i = 0; i < s.paths.n; i++) {
			if (strcmp(s.paths.v[i], a.sun_path) == 0) {
				seen_a = true;
				CHECK(s.ino[i] == st.st_ino);
			}
			seen_b |= strcmp(s.paths.v[i], b.sun_path) == 0;
		}
		CHECK(seen_a && seen_b && got);
	}
	livesock_set_free(&s);
	close(la);
	close(lb);
	close(lc);
	close(ca);
	close(aa);
	unlink(a.sun_path);
	unlink(b.sun_path);
	unlink(c.sun_path);
	rmdir(dir);
	if (r < 0)
		T_SKIP("no sock_diag for unix sockets here");
}
