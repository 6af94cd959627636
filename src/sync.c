/* sync.c — the supervisor/init message channel. */
#include "sync.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>

struct msg_head {
	int type;
	unsigned len;
};

int sync_send(int sock, enum sync_type type, const void *data, size_t len, int fd,
              struct jail_err *e)
{
	char buf[sizeof(struct msg_head) + SYNC_PAYLOAD_MAX];
	if (len > SYNC_PAYLOAD_MAX)
		return jail_err_set(e, EMSGSIZE, "sync message %d", type);
	struct msg_head h = {type, (unsigned)len};
	memcpy(buf, &h, sizeof(h));
	if (len)
		memcpy(buf + sizeof(h), data, len);
	struct iovec iov = {buf, sizeof(h) + len};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	char cbuf[CMSG_SPACE(sizeof(int))];
	if (fd >= 0) {
		memset(cbuf, 0, sizeof(cbuf));
		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	ssize_t r;
	do
		r = sendmsg(sock, &m, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return jail_err_sys(e, "send to %s", "the jail's init");
	return 0;
}

/* recvmsg, past EINTR and past one ECONNRESET.  The peer may exit with a
 * message of ours unread (the supervisor sends GO before init's READY, so an
 * error of init's crosses it): the kernel then reports the reset once, ahead
 * of what the peer sent before it went, which is still queued.  Read that
 * (init's error), then the end of the stream. */
static ssize_t recv_queued(int sock, struct msghdr *m)
{
	bool reset_seen = false;
	for (;;) {
		ssize_t r = recvmsg(sock, m, MSG_CMSG_CLOEXEC);
		if (r >= 0 || (errno != EINTR && (errno != ECONNRESET || reset_seen)))
			return r;
		reset_seen |= errno == ECONNRESET;
	}
}

int sync_recv(int sock, enum sync_type expect, void *data, size_t *len, int *fd,
              struct jail_err *e)
{
	char buf[sizeof(struct msg_head) + SYNC_PAYLOAD_MAX];
	struct iovec iov = {buf, sizeof(buf)};
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
	                   .msg_controllen = sizeof(cbuf)};
	if (fd)
		*fd = -1;
	ssize_t r = recv_queued(sock, &m);
	if (r < 0)
		return jail_err_sys(e, "receive from the other side of the jail");
	if (r == 0)
		return jail_err_set(e, 0, "the other side of the jail exited during setup");
	int got = -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(&got, CMSG_DATA(c), sizeof(int));
	struct msg_head h;
	if ((size_t)r < sizeof(h)) {
		if (got >= 0)
			close(got);
		return jail_err_set(e, EPROTO, "short sync message");
	}
	memcpy(&h, buf, sizeof(h));
	if (h.type == SYNC_ERROR && h.len == sizeof(struct jail_err)) {
		memcpy(e, buf + sizeof(h), sizeof(*e));
		e->msg[sizeof(e->msg) - 1] = '\0';
		if (got >= 0)
			close(got);
		return -1;
	}
	if (h.type != (int)expect || h.len > (size_t)r - sizeof(h) ||
	    (data && len && h.len > *len)) {
		if (got >= 0)
			close(got);
		return jail_err_set(e, EPROTO, "sync: expected message %d, got %d", expect, h.type);
	}
	if (data && len) {
		memcpy(data, buf + sizeof(h), h.len);
		*len = h.len;
	}
	if (fd)
		*fd = got;
	else if (got >= 0)
		close(got);
	return 0;
}

void sync_send_error(int sock, const struct jail_err *err)
{
	struct jail_err ignored;
	if (sync_send(sock, SYNC_ERROR, err, sizeof(*err), -1, &ignored) < 0) {
		/* the supervisor is gone; nobody left to tell */
	}
}
