/* sync.h — messages between the supervisor and the jail's init over a
 * SOCK_SEQPACKET socketpair: sync points, errors, and fds (SCM_RIGHTS).
 *
 * An error in init travels to the supervisor as SYNC_ERROR and is printed there;
 * sync_recv() turns it (and a vanished peer) into an ordinary -1 with *e set. */
#ifndef JAIL_SYNC_H
#define JAIL_SYNC_H
#include "sysfilter.h"
#include "util.h"

enum sync_type {
	SYNC_ERROR = 1,   /* payload: struct jail_err */
	SYNC_MAPS_DONE,   /* init → supervisor: init wrote its uid/gid maps */
	SYNC_PTY,         /* init → supervisor: the pty master (fd) */
	SYNC_READY,       /* init → supervisor: the root is built, waiting for GO */
	SYNC_GO,          /* supervisor → init: start the command (struct sync_go) */
	SYNC_NET,         /* network setup, both ways (payload and fds: net.c's own) */
	SYNC_EXEC,        /* supervisor → init: a `jail exec` connection (fd; join.h) */
	SYNC_HIDEFS,      /* init → project file server: the mounted /dev/fuse (hidefs.h) */
	SYNC_DONE,        /* init → supervisor: the exit code (int), once all in the jail is reaped */
	SYNC_ETC,         /* supervisor → init: the /etc snapshot to bind, if any (etcsnap.h) */
};

/* GO's payload: the syscall filter compiled in the supervisor, whether
 * cgroup limits hold the jail (else init's child sets the rlimit fallbacks),
 * and the command's process limit without --pids: half of what the host can
 * hold, read on the host while init builds the root (limits_default_nproc,
 * resources.h). */
struct sync_go {
	bool cgroup_limits;
	unsigned long default_nproc;
	struct sysfilter_prog filter;
};
#define SYNC_GO_SIZE(go) (offsetof(struct sync_go, filter.insns) + \
                          (go)->filter.len * sizeof((go)->filter.insns[0]))

/* The largest payload a message carries. */
#define SYNC_PAYLOAD_MAX 4096

int sync_send(int sock, enum sync_type type, const void *data, size_t len, int fd,
              struct jail_err *e) WUR;
/* Receive one message of the expected type.  data/len may be NULL; *len is in:
 * capacity, out: bytes received.  fd may be NULL; else receives a passed fd or -1. */
int sync_recv(int sock, enum sync_type expect, void *data, size_t *len, int *fd,
              struct jail_err *e) WUR;
/* Best effort: tell the peer why we fail. */
void sync_send_error(int sock, const struct jail_err *err);
#endif
