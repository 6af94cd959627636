/* brokerpriv.h — the broker's state, shared by broker.c (secrets, summary),
 * brokertls.c (the session CA, OpenSSL contexts) and brokerconn.c (the
 * listener and the relay).  Not for other modules. */
#ifndef JAIL_BROKERPRIV_H
#define JAIL_BROKERPRIV_H
#include "acceptor.h"
#include "broker.h"
#include "brokerhttp.h"

#include "tlslib.h"
#include <pthread.h>

struct broker_secret {
	char *name;
	char placeholder[BROKER_PH_MAX];
	char *real;                  /* in b->vault */
	struct strv hosts, headers;
	struct strv rules;           /* none: any request */
	bool guessed;                /* an answer guessed at its value: no more brokered (under b->lock) */
};

struct broker_host {
	char *name;
	X509 *cert;
	EVP_PKEY *key;
	unsigned long carried;       /* under b->lock */
	/* What the upstream chose when last offered h2 (BROKER_PROTO_*), so that
	 * a later connection is answered at once and its upstream handshake runs
	 * alongside the jail's; under b->lock, for the session only. */
	int proto;
	/* A verified idle upstream connection, opened after one of the agent's
	 * (brokerspare.c); under b->lock.  making: one is being opened, on
	 * making_fd once its socket exists (else -1), for broker_stop. */
	SSL *spare;
	int spare_fd;
	bool spare_h2;
	double spare_born;
	bool making;
	int making_fd;
};

enum { BROKER_PROTO_UNKNOWN, BROKER_PROTO_H1, BROKER_PROTO_H2 };

#define BROKER_MAX_CONNS 64

struct broker {
	struct broker_secret sec[BROKER_MAX_SECRETS];
	size_t n_sec;
	struct broker_host host[BROKER_MAX_SECRETS * 4];
	size_t n_host;
	char *vault;                 /* mmap'd, MADV_WIPEONFORK */
	size_t vault_len, vault_used;

	char *ca_pem, *bundle_pem;
	SSL_CTX *server, *client;

	int listen_fd;
	int stop[2];
	pthread_t thread;
	bool running;
	bool stopping;               /* broker_stop began: an upstream socket made now is shut down */
	pthread_mutex_t lock;
	pthread_cond_t idle;
	/* the fds of live connections (jail side, upstream side; -1 none), for
	 * broker_stop to end them all: a thread waiting on either wakes */
	int conns[BROKER_MAX_CONNS][2];
	size_t n_conns;
	unsigned long reports;       /* possible exfiltration attempts */
	unsigned long warnings;      /* broker_warn calls, shown or not */
	unsigned long refused;       /* upstream verification failures */
	bool h2;                     /* nghttp2 loaded: HTTP/2 may be offered */
	unsigned n_making;           /* spares being opened (threads broker_stop waits for) */
};

/* One end of a relayed connection. */
struct tls_end {
	int fd;
	SSL *ssl;
	bool eof;
	/* what a spare's upstream sent before it was taken (its h2 SETTINGS),
	 * read before the socket: brokerconn_read */
	char *stash;
	size_t stash_len, stash_off;
};

/* A connection from the jail and its upstream. */
struct conn {
	struct broker *b;
	int slot;
	struct tls_end jail, up;
	struct broker_host *host;
	bool up_tried;               /* the upstream was tried (at ALPN or after the handshake) */
	bool up_offered_h2;          /* h2 was offered to the upstream */
	bool up_h2;                  /* the upstream chose h2 */
	bool h2;                     /* the jail was answered h2 (so both ends speak it) */
	bool up_pending;             /* its handshake began (ClientHello sent), not yet finished */
	char why[256];               /* why the upstream could not be reached */
};

/* brokertls.c */
int brokertls_prepare(struct broker *b, struct jail_err *e) WUR;
void brokertls_free(struct broker *b);
/* The host a handshaken client connection named (SNI), or NULL. */
struct broker_host *brokertls_host(struct broker *b, SSL *ssl);
/* Open c->up to c's host, offering h2 (if h2) and http/1.1: TCP connected and
 * the ClientHello sent, the socket non-blocking meanwhile.  -1: c->why says
 * why (a c->up.fd not -1 is left to the connection's end). */
int brokertls_start(struct conn *c, bool h2);
/* Finish that handshake, with full verification (blocking, as the socket is
 * again); c->up_h2 when the host chose h2.  -1: c->up.ssl is freed, c->why
 * says why. */
int brokertls_finish(struct conn *c);

/* brokerconn.c */
/* Open c's upstream (once), offering h2 if h2; a failure is counted, told and
 * left in c->why for the answer to the jail. */
void brokerconn_upstream(struct conn *c, bool h2);
/* The same in two halves: begun by the ALPN callback that knows its answer
 * already (TCP and the ClientHello), finished once the jail's handshake is
 * (brokerconn.c): the upstream answers meanwhile. */
void brokerconn_upstream_begin(struct conn *c, bool h2);
/* What c's host chose when last offered h2 (BROKER_PROTO_*). */
int brokerconn_known(struct conn *c);
/* fd (-1: none) is now c's upstream socket, which broker_stop shuts down
 * (a spare being made: c->slot -1, the host's making_fd);
 * -1 (errno ECANCELED) if the broker is stopping (fd is shut down already). */
int brokerconn_track(struct conn *c, int fd);
/* fd's O_NONBLOCK off (block) or on; -1 and errno on failure. */
int brokerconn_blocking(int fd, bool block);
/* Read from a non-blocking end: >0 bytes, 0 nothing now, -1 closed or failed. */
ssize_t brokerconn_read(struct tls_end *t, char *buf, size_t cap);

/* brokerspare.c */
/* c took its upstream: open a spare to c's host in the background, unless
 * one is kept or being made already, or the broker is stopping. */
void brokerspare_make(struct conn *c);
/* c's upstream from the host's spare if a valid one (choosing h2 as asked,
 * young, neither closed nor having sent more than h2's own setup) is kept:
 * true, c->up and c->up_h2 set and the socket tracked.  A spare not valid is
 * closed. */
bool brokerspare_take(struct conn *c, bool h2);
/* Close every kept spare (broker_stop, once no thread is left). */
void brokerspare_close_all(struct broker *b);

/* brokerh2.c */
/* Relay an HTTP/2 connection whose both ends are handshaken. */
void brokerh2_relay(struct conn *c);

/* broker.c */
/* A warning from the broker (a report, a refused request or connection):
 * the first few are shown, the rest only counted. */
void broker_warn(struct broker *b, const char *fmt, ...) PRINTF(2, 3);
void broker_report(struct broker *b, const char *host, const char *name, const char *where);
/* NAME's real value kept from a request its rules do not allow. */
void broker_withheld(struct broker *b, const char *name, const char *request);
void broker_summary(const struct broker *b, bool quiet);
void broker_count(struct broker *b, struct broker_host *h, unsigned long n);
/* An answer from host showed the agent guessing at the value of secret i
 * (brokerscrub.h): that secret's hosts are served no more in this run, so
 * that no further guess is answered.  Told once. */
void broker_guessed(struct broker *b, const char *host, size_t i);
/* Does a secret for host (normalized) stand guessed? */
bool broker_host_guessed(struct broker *b, const char *host);
/* The credentials of every secret; real only for those of this host. */
size_t broker_creds(const struct broker *b, const char *host, struct broker_cred *out);
#endif
