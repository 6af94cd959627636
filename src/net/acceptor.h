/* acceptor.h — the supervisor's servers for the jail's connections (the
 * secrets broker, the TLS gate): a thread that accepts until told to stop,
 * and a detached thread for each connection. */
#ifndef JAIL_ACCEPTOR_H
#define JAIL_ACCEPTOR_H

/* Start fn(arg) in a detached thread: 0, or pthread's error number. */
int thread_detached(void *(*fn)(void *), void *arg);

/* Accept connections on listen_fd (close-on-exec) and hand each to take(ctx,
 * fd) until stop_fd becomes readable or poll fails (said with `who`).
 * SIGPIPE is blocked in the calling thread first, and so in the connection
 * threads it starts: a peer that hung up gives EPIPE, never a signal that
 * would end the supervisor. */
void accept_until_stopped(int stop_fd, int listen_fd, const char *who,
                          void (*take)(void *ctx, int fd), void *ctx);
#endif
