/* launcher.c — the thread of init's that the command is started from
 * (launcher.h says why). */
#include "launcher.h"

#include "caps.h"
#include "init.h"
#include "resources.h"
#include "sysfilter.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <unistd.h>

/* ---- both sides: one lock, one condition, a flag per step ---- */

static void post(struct launcher *l, bool *step)
{
	pthread_mutex_lock(&l->lock);
	*step = true;
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
}

/* The thread's error, from its failed step on. */
static void post_failure(struct launcher *l, const struct jail_err *e, bool *step)
{
	pthread_mutex_lock(&l->lock);
	l->e = *e;
	l->failed = 1;
	*step = true;
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
}

/* Main thread: wait for a step of the thread's; its error, if it failed. */
static int wait_thread(struct launcher *l, const bool *step, struct jail_err *e)
{
	pthread_mutex_lock(&l->lock);
	while (!*step && !l->failed)
		pthread_cond_wait(&l->cond, &l->lock);
	int failed = l->failed;
	if (failed)
		*e = l->e;
	pthread_mutex_unlock(&l->lock);
	return failed ? -1 : 0;
}

/* The thread: wait for a step of the main thread's (which, failing, ends
 * init and the thread with it). */
static void wait_main(struct launcher *l, const bool *step)
{
	pthread_mutex_lock(&l->lock);
	while (!*step)
		pthread_cond_wait(&l->cond, &l->lock);
	pthread_mutex_unlock(&l->lock);
}

/* ---- the thread ---- */

static int receive_go(struct launcher *l, struct jail_err *e)
{
	struct sync_go *go = l->go;
	size_t len = sizeof(*go);
	if (sync_recv(l->sock, SYNC_GO, go, &len, NULL, e) < 0)
		return -1;
	if (len < offsetof(struct sync_go, filter.insns) || len != SYNC_GO_SIZE(go))
		return jail_err_set(e, EPROTO, "the syscall filter arrived damaged");
	return 0;
}

/* The namespace counts of the jail's user namespace, set while this thread
 * still holds its capabilities and after GO (a network helper has made its
 * sandbox by then); then everything the command must not hold, dropped from
 * this thread, and the filter loaded on it: what a vfork child of it starts
 * with. */
static int arm(struct launcher *l, struct jail_err *e)
{
	wait_main(l, &l->handed_over);
	if (receive_go(l, e) < 0 || limits_userns_counts(l->p->cfg, l->sysuser, e) < 0 ||
	    caps_drop_all(e) < 0 || sysfilter_load(&l->go->filter, e) < 0)
		return -1;
	return 0;
}

static void *launcher_main(void *arg)
{
	struct launcher *l = arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	if (netns_late(l->p->cfg))
		netns_make(&l->net);
	post(l, &l->netns_done);
	/* one credentials commit per capability (caps.c): early, beside the
	 * root's build, before GO is there to be waited for */
	struct jail_err e = {0};
	int r = l->net.err ? jail_err_set(&e, l->net.err, "%s", l->net.what) : caps_drop_bounding(&e);
	if (r < 0 || arm(l, &e) < 0) {
		post_failure(l, &e, &l->armed);
		return NULL;
	}
	post(l, &l->armed);
	wait_main(l, &l->root_ready);
	/* the child runs on this thread's stack until its exec, and changes
	 * nothing the main thread reads (which waits for the pid meanwhile) */
	pid_t cmd = vfork();
	if (cmd == 0)
		init_command(l->p, l->go, l->argv, l->p->cwd, l->slave, l->p->tty_fds,
		             COMMAND_ARMED);
	if (cmd < 0) {
		jail_err_sys(&e, "start the command");
		post_failure(l, &e, &l->spawned);
		return NULL;
	}
	/* The command's parent is this thread, and a thread's exit is its
	 * children's parent's death: a PR_SET_PDEATHSIG the command set before
	 * it would fire (prctl(2)), killing an agent that asked to die with
	 * init.  So the thread stays, every signal blocked, until init ends
	 * (exit_group); it never wakes (nothing broadcasts after this). */
	pthread_mutex_lock(&l->lock);
	l->cmd = cmd;
	l->spawned = true;
	pthread_cond_broadcast(&l->cond);
	for (;;)
		pthread_cond_wait(&l->cond, &l->lock);
}

/* ---- the main thread ---- */

int launcher_start(struct launcher *l, const struct jail_plan *p, int sock, struct sync_go *go,
                   struct jail_err *e)
{
	*l = (struct launcher){.p = p, .sock = sock, .go = go, .sysuser = -1, .slave = -1,
	                       .cmd = -1};
	l->net.fd = -1;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->cond, NULL);
	int err = pthread_create(&l->thread, NULL, launcher_main, l);
	if (err != 0)
		return jail_err_set(e, err, "start the thread the command starts from");
	pthread_detach(l->thread);
	return 0;
}

int launcher_enter_netns(struct launcher *l, struct jail_err *e)
{
	pthread_mutex_lock(&l->lock);
	while (!l->netns_done)
		pthread_cond_wait(&l->cond, &l->lock);
	pthread_mutex_unlock(&l->lock);
	return netns_join(&l->net, e);
}

void launcher_hand_over(struct launcher *l, int sysuser)
{
	pthread_mutex_lock(&l->lock);
	l->sysuser = sysuser;
	l->handed_over = true;
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
}

int launcher_wait_armed(struct launcher *l, struct jail_err *e)
{
	return wait_thread(l, &l->armed, e);
}

pid_t launcher_spawn(struct launcher *l, char **argv, int slave, struct jail_err *e)
{
	pthread_mutex_lock(&l->lock);
	l->argv = argv;
	l->slave = slave;
	l->root_ready = true;
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
	if (wait_thread(l, &l->spawned, e) < 0)
		return -1;
	return l->cmd;
}
