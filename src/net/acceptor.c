/* acceptor.c — accept loops and connection threads (acceptor.h). */
#include "acceptor.h"

#include "log.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>

int thread_detached(void *(*fn)(void *), void *arg)
{
	pthread_attr_t at;
	pthread_t t;
	int r = pthread_attr_init(&at);
	if (r != 0)
		return r;
	r = pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (r == 0)
		r = pthread_create(&t, &at, fn, arg);
	pthread_attr_destroy(&at);
	return r;
}

void accept_until_stopped(int stop_fd, int listen_fd, const char *who,
                          void (*take)(void *ctx, int fd), void *ctx)
{
	sigset_t pipe;
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, NULL);
	for (;;) {
		struct pollfd p[2] = {{stop_fd, POLLIN, 0}, {listen_fd, POLLIN, 0}};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			log_warn("%s: poll: %s", who, strerror(errno));
			return;
		}
		if (p[0].revents)
			return;
		int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			take(ctx, fd);
		else if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			log_warn("%s: accept: %s", who, strerror(errno));
	}
}
