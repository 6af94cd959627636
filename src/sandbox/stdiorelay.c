/* stdiorelay.c — a pipe instead of a host file for the jail's stdio
 * (stdiorelay.h says why). */
#include "stdiorelay.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define RELAY_BUF 65536

struct stdio_relay;

/* One copier: from -> to; it closes `own` (its end of the pipe) when done. */
struct pump {
	struct stdio_relay *r;  /* NULL for the stdin copier, which nobody waits for */
	int from, to, own;
	bool done;  /* own closed (under the relay's lock) */
	pthread_t thread;
};

struct stdio_relay {
	int jail_end[3];  /* the pipe end the jail gets, or -1 */
	int ours[3];      /* the other end, or -1 */
	struct pump *out[3];
	bool shared_err;  /* fd 2 goes to fd 1's pipe */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int running;      /* output copiers not done yet */
};

/* /dev/null, zero, full, random, urandom: reopened, they give nothing the
 * jail's own /dev does not; scripts run `jail ... < /dev/null` often, and
 * that needs no pipe and no copier. */
static bool is_memory_device(const struct stat *st)
{
	if (!S_ISCHR(st->st_mode) || major(st->st_rdev) != 1)
		return false;
	unsigned m = minor(st->st_rdev);
	return m == 3 || m == 5 || m == 7 || m == 8 || m == 9;
}

/* Only what gives the jail nothing of the host's goes in as it is: a closed
 * fd stays closed, a terminal is replaced by the pty, and the memory devices
 * are the jail's own.  Everything else gets a pipe of the jail's alone:
 * - a file, a device or a named FIFO reopens through /proc/self/fd/N;
 * - an anonymous pipe reopens there too, the other way round: the agent would
 *   write into the host's stdin pipe (what the caller's next read takes:
 *   `producer | while read t; do jail ...; done`) or read the host's stdout
 *   pipe (what other processes of the pipeline write to it);
 * - a socket is a handle on the host's network namespace: an unconnected or
 *   datagram one connects or sends anywhere (the host's loopback, its abstract
 *   unix sockets: X11, D-Bus), a connected TCP one disconnects (connect with
 *   AF_UNSPEC) and connects again, a listening one accepts the host's
 *   connections, and even a connected unix one binds names in the host's
 *   abstract namespace and lists the host's interfaces (SIOCGIFCONF). */
static bool goes_in_as_is(int fd)
{
	struct stat st;
	return fstat(fd, &st) < 0 || isatty(fd) || is_memory_device(&st);
}

static void relay_free(struct stdio_relay *r)
{
	for (int fd = 0; fd < 3; fd++) {
		if (r->jail_end[fd] >= 0)
			close(r->jail_end[fd]);
		if (r->ours[fd] >= 0)
			close(r->ours[fd]);
		free(r->out[fd]);
	}
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
	free(r);
}

/* stderr to the same file as stdout (`> log 2>&1`): one pipe for both, so
 * that their lines stay in the order they were written. */
static bool same_file(int a, int b)
{
	struct stat sa, sb;
	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* A pipe whose ends are above 2: with one of 0-2 closed, pipe2 would hand
 * out that number, taking the place of the closed stdio. */
static int pipe_above_stdio(int p[2])
{
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		if (p[i] > 2)
			continue;
		int moved = fcntl(p[i], F_DUPFD_CLOEXEC, 3);
		int err = errno;
		close(p[i]);
		p[i] = moved;
		if (moved < 0) {
			if (p[1 - i] >= 0)
				close(p[1 - i]);
			errno = err;
			return -1;
		}
	}
	return 0;
}

int stdio_relay_prepare(struct stdio_relay **out, int jail_fds[3], struct jail_err *e)
{
	struct stdio_relay *r = NULL;
	*out = NULL;
	for (int fd = 0; fd < 3; fd++) {
		jail_fds[fd] = fd;
		if (goes_in_as_is(fd))
			continue;
		if (fd == 2 && r && r->jail_end[1] >= 0 && same_file(1, 2)) {
			r->shared_err = true;
			jail_fds[2] = r->jail_end[1];
			continue;
		}
		if (!r) {
			r = xcalloc(1, sizeof(*r));
			r->jail_end[0] = r->jail_end[1] = r->jail_end[2] = -1;
			r->ours[0] = r->ours[1] = r->ours[2] = -1;
			pthread_mutex_init(&r->lock, NULL);
			pthread_condattr_t ca;
			pthread_condattr_init(&ca);
			pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
			pthread_cond_init(&r->cond, &ca);
			pthread_condattr_destroy(&ca);
		}
		int p[2];
		if (pipe_above_stdio(p) < 0) {
			relay_free(r);
			return jail_err_sys(e, "a pipe for the jail's fd %d", fd);
		}
		/* stdin: the jail reads p[0]; stdout, stderr: the jail writes p[1] */
		r->jail_end[fd] = fd == 0 ? p[0] : p[1];
		r->ours[fd] = fd == 0 ? p[1] : p[0];
		jail_fds[fd] = r->jail_end[fd];
	}
	*out = r;
	return 0;
}

void stdio_relay_child(const struct stdio_relay *r)
{
	if (!r)
		return;
	for (int fd = 0; fd < 3; fd++) {
		if (r->ours[fd] >= 0)
			close(r->ours[fd]);  /* else the jail's stdin would never end */
		if (r->jail_end[fd] >= 0)
			dup2(r->jail_end[fd], fd);
	}
	if (r->shared_err)
		dup2(r->jail_end[1], 2);
	for (int fd = 0; fd < 3; fd++)
		if (r->jail_end[fd] > 2)
			close(r->jail_end[fd]);
}

/* util.c's write_all, and waiting out EAGAIN: the caller's fd may be non-blocking */
static bool put_all(int fd, const char *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd pfd = {fd, POLLOUT, 0};
			poll(&pfd, 1, -1);
			continue;
		}
		if (w <= 0)
			return false;
		b += w;
		n -= (size_t)w;
	}
	return true;
}

static void copy(int from, int to)
{
	char *buf = xmalloc(RELAY_BUF);
	for (;;) {
		ssize_t n = read(from, buf, RELAY_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			struct pollfd pfd = {from, POLLIN, 0};
			poll(&pfd, 1, -1);
			continue;
		}
		if (n <= 0 || !put_all(to, buf, (size_t)n))
			break;
	}
	free(buf);
}

/* A write to a pipe whose reader left gives EPIPE here, not a SIGPIPE that
 * would end the caller: the signal is blocked in this thread (a write's
 * SIGPIPE goes to the thread that wrote) and taken off before it ends. */
static void *pump_main(void *arg)
{
	struct pump *p = arg;
	sigset_t pipe_set;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, NULL);
	copy(p->from, p->to);
	while (sigtimedwait(&pipe_set, NULL, &(struct timespec){0}) > 0) {
	}
	struct stdio_relay *r = p->r;
	if (!r) {
		close(p->own);  /* the jail sees the end of its stdin */
		free(p);
		return NULL;
	}
	/* under the lock: stdio_relay_finish polls it (the jail's writes get EPIPE) */
	pthread_mutex_lock(&r->lock);
	close(p->own);
	p->done = true;
	r->running--;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

int stdio_relay_start(struct stdio_relay *r, struct jail_err *e)
{
	if (!r)
		return 0;
	for (int fd = 0; fd < 3; fd++) {
		if (r->jail_end[fd] < 0)
			continue;
		close(r->jail_end[fd]);
		r->jail_end[fd] = -1;
		struct pump *p = xcalloc(1, sizeof(*p));
		*p = (struct pump){.r = fd == 0 ? NULL : r, .from = fd == 0 ? 0 : r->ours[fd],
		                   .to = fd == 0 ? r->ours[fd] : fd, .own = r->ours[fd]};
		r->ours[fd] = -1;  /* the pump's now */
		if (fd != 0) {
			r->out[fd] = p;
			r->running++;
		}
		int err = pthread_create(&p->thread, NULL, pump_main, p);
		if (err == 0 && fd == 0)
			err = pthread_detach(p->thread);
		if (err != 0) {
			/* nothing copies: the jail's end sees EOF or EPIPE at once */
			close(p->own);
			if (fd != 0) {
				r->out[fd] = NULL;
				r->running--;
			}
			free(p);
			return jail_err_set(e, err, "start copying the jail's fd %d", fd);
		}
	}
	return 0;
}

/* Whether no one in the jail holds an output pipe's end any more (under the
 * lock): what is left in the pipes is the caller's reader's to take. */
static bool jail_side_closed(const struct stdio_relay *r)
{
	for (int fd = 1; fd < 3; fd++) {
		const struct pump *p = r->out[fd];
		if (!p || p->done)
			continue;
		struct pollfd pfd = {p->own, POLLIN, 0};
		if (poll(&pfd, 1, 0) < 0 || !(pfd.revents & POLLHUP))
			return false;
	}
	return true;
}

/* A signal the caller blocked to read it later (the supervisor's ^C, TERM,
 * HUP) ends an otherwise unbounded wait: it is left pending for the caller. */
static bool stop_signal_pending(void)
{
	sigset_t pending;
	return sigpending(&pending) == 0 &&
	       (sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1 ||
	        sigismember(&pending, SIGHUP) == 1);
}

static struct timespec ms_from_now(int ms)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

static bool before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Up to wait_ms while the jail may still write; once no one there holds an
 * output pipe, as long as the caller's reader takes (a pager read at the
 * user's pace: the jail's command, writing there itself, would have waited as
 * long), unless a stop signal arrives. */
void stdio_relay_finish(struct stdio_relay *r, int wait_ms)
{
	if (!r)
		return;
	struct timespec until = ms_from_now(wait_ms);
	pthread_mutex_lock(&r->lock);
	while (r->running > 0) {
		struct timespec now = ms_from_now(0), slice = ms_from_now(100);
		bool drain = wait_ms > 0 && jail_side_closed(r);
		if (drain ? stop_signal_pending() : !before(&now, &until))
			break;
		if (!drain && before(&until, &slice))
			slice = until;
		pthread_cond_timedwait(&r->cond, &r->lock, &slice);
	}
	bool done = r->running == 0;
	pthread_mutex_unlock(&r->lock);
	if (!done)
		return;  /* a writer lives on: the copiers keep r until the process ends */
	for (int fd = 1; fd < 3; fd++)
		if (r->out[fd])
			pthread_join(r->out[fd]->thread, NULL);
	relay_free(r);
}
