/* Unit tests: livesock.c (host sockets a bind shows). */
#include "t.h"
#include "livesock.h"

#include <stdlib.h>
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

/* The kernel's list holds a socket this test listens on, by its path, and
 * not one that is bound but not listening. */
T(the_kernel_lists_a_listening_socket_by_its_path)
{
	char dir[] = "/tmp/livesock.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct sockaddr_un a = {.sun_family = AF_UNIX}, b = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/listening", dir);
	snprintf(b.sun_path, sizeof(b.sun_path), "%s/bound", dir);
	int la = socket(AF_UNIX, SOCK_STREAM, 0), lb = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(bind(la, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(la, 1) == 0);
	CHECK(bind(lb, (struct sockaddr *)&b, sizeof(b)) == 0);
	struct strv paths = {0};
	struct jail_err e;
	int r = livesock_listening(&paths, &e);
	size_t n = 0;
	const char *got = r == 0 ? livesock_below(&paths, dir, &n) : NULL;
	if (r == 0) {
		CHECK_STR(got ? got : "(none)", a.sun_path);
		CHECK(n == 1);
	}
	strv_free(&paths);
	close(la);
	close(lb);
	unlink(a.sun_path);
	unlink(b.sun_path);
	rmdir(dir);
	if (r < 0)
		T_SKIP("no sock_diag for unix sockets here");
}
