/* etcsnap.h — the jail's /etc: the pieces of the host's that programs need, and
 * the files jail writes (passwd, group, hostname, hosts, resolv.conf).
 *
 * Small files, symlinks and small flat directories are copied; directories and
 * large files are bound.  Copying them into the root's tmpfs cost init about
 * 1 ms of CPU at every start (some 45 files: opens, stats, directory reads,
 * sendfile), so the copy is also kept on the host: a snapshot in the state
 * directory (<state>/.etc/, owner-only), made after a run and described by a
 * manifest with the stamp (mtime, ctime, inode, size; util.h) of every host
 * entry it was made from, /etc itself included (the patterns' matches).  A
 * start whose stamps all still hold binds the snapshot read-only as /etc and
 * binds the large pieces over it; any other start copies as before.  A stamp
 * within two seconds of the snapshot's making is not trusted (a change in the
 * same timestamp tick would leave it equal).  The jail only ever sees the
 * snapshot read-only, like the rest of /etc; it never sees the state directory
 * (its parent), and nothing the agent writes reaches it. */
#ifndef JAIL_ETCSNAP_H
#define JAIL_ETCSNAP_H
#include "plan.h"

/* Copy the pieces of the host's /etc (`from`) into the directory `to`; the
 * names to bind rather than copy are added to *binds.  With `stamps`, each
 * entry looked at is recorded there (manifest lines), /etc's own first. */
int etc_copy(int from, int to, struct strv *binds, struct strbuf *stamps,
             struct jail_err *e) WUR;

/* The files jail writes into /etc, as name, content pairs (names relative to
 * /etc). */
void etc_generated(const struct jail_plan *p, struct strv *out);

/* Supervisor: the host path of a snapshot whose stamps all hold, with the
 * names to bind over it in *binds and its directory held open in *held (the
 * caller closes it at its end; init's copy lasts until the jail's mounts are
 * gone); NULL and -1 when there is none (then init copies).  Never with
 * brokered secrets (their CA goes into /etc), nor when the plan mounts
 * something of its own below /etc (its mount point would have to be made in
 * the read-only snapshot). */
char *etcsnap_find(const struct jail_plan *p, struct strv *binds, int *held);

/* The check's 80-odd stamps are a quarter of a millisecond: the supervisor
 * makes it after the clone, while init starts, and sends what it found
 * (p->etc_snapshot, etc_binds and etc_snapshot_fd set) as SYNC_ETC, the first
 * message init reads; init takes it when it builds /etc (the same three in
 * *snap, which the caller frees with etcsnap_offer_free). */
int etcsnap_offer(struct jail_plan *p, int sock, struct jail_err *e) WUR;
struct etc_offer {
	char *snapshot;
	struct strv binds;
	int held;
};
int etcsnap_take(int sock, struct etc_offer *snap, struct jail_err *e) WUR;
void etcsnap_offer_free(struct etc_offer *snap);

/* Supervisor, after a run that found none: make one for the next run.  Best
 * effort: a failure or a stamp too recent leaves no snapshot. */
void etcsnap_make(const struct jail_plan *p);
#endif
