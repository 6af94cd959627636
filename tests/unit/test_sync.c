/* Unit tests: sync.c, the supervisor/init channel. */
#include "sync.h"
#include "t.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

/* The supervisor's GO is still unread when init fails and exits (it is sent
 * before init's READY): the error init sent first must still arrive, not a
 * "connection reset" in its place; then the end of the stream. */
T(sync_error_of_a_peer_gone_with_our_message_unread_arrives)
{
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
	struct jail_err e = {0}, why = {0};
	CHECK(sync_send(sv[0], SYNC_GO, "go", 2, -1, &e) == 0);
	jail_err_set(&why, 0, "'/x' is a symlink or a file");
	sync_send_error(sv[1], &why);
	close(sv[1]);
	CHECK(sync_recv(sv[0], SYNC_READY, NULL, NULL, NULL, &e) == -1);
	CHECK_STR(e.msg, "'/x' is a symlink or a file");
	CHECK(sync_recv(sv[0], SYNC_READY, NULL, NULL, NULL, &e) == -1);
	CHECK_STR(e.msg, "the other side of the jail exited during setup");
	close(sv[0]);
}

/* The premise, a positive control: a plain recvmsg there is reset first. */
T(sync_plain_recv_there_sees_the_reset_first)
{
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
	struct jail_err e = {0};
	CHECK(sync_send(sv[0], SYNC_GO, "go", 2, -1, &e) == 0);
	CHECK(sync_send(sv[1], SYNC_READY, NULL, 0, -1, &e) == 0);
	close(sv[1]);
	char b[64];
	ssize_t r = recv(sv[0], b, sizeof(b), 0);
	close(sv[0]);
	if (!(r < 0 && errno == ECONNRESET))
		T_SKIP("this kernel delivers the queued message before the reset");
}
