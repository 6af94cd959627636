/* test_sync.c — the supervisor/init channel: an error the other side sent
 * just before it exited is read, even when it left messages of ours unread
 * (the socket then reports ECONNRESET first). */
#include <sys/socket.h>
#include <unistd.h>

#include "sync.h"
#include "t.h"
#include "util.h"

T(sync_reads_the_peers_last_error_after_a_reset)
{
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
	struct jail_err e = {0}, why = {0};
	/* the supervisor's GO, never read: init fails before it takes it */
	CHECK(sync_send(sv[0], SYNC_MAPS_DONE, NULL, 0, -1, &e) == 0);
	jail_err_set(&why, 0, "'/x' is a symlink or a file");
	sync_send_error(sv[1], &why);
	close(sv[1]);
	memset(&e, 0, sizeof(e));
	CHECK(sync_recv(sv[0], SYNC_READY, NULL, NULL, NULL, &e) == -1);
	CHECK(strstr(e.msg, "is a symlink or a file") != NULL);
	/* and then the end, said as such */
	memset(&e, 0, sizeof(e));
	CHECK(sync_recv(sv[0], SYNC_READY, NULL, NULL, NULL, &e) == -1);
	CHECK(strstr(e.msg, "exited during setup") != NULL);
	close(sv[0]);
}
