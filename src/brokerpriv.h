/* brokerpriv.h — the broker's state, shared by broker.c (secrets, summary),
 * brokertls.c (the session CA, OpenSSL contexts) and brokerconn.c (the
 * listener and the relay).  Not for other modules. */
#ifndef JAIL_BROKERPRIV_H
#define JAIL_BROKERPRIV_H
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
};

struct broker_host {
	char *name;
	X509 *cert;
	EVP_PKEY *key;
	unsigned long carried;       /* under b->lock */
};

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
	pthread_mutex_t lock;
	pthread_cond_t idle;
	/* the fds of live connections (jail side, upstream side; -1 none), for
	 * broker_stop to end them all: a thread waiting on either wakes */
	int conns[BROKER_MAX_CONNS][2];
	size_t n_conns;
	unsigned long reports;       /* possible exfiltration attempts */
	unsigned long warnings;      /* broker_warn calls, shown or not */
	unsigned long refused;       /* upstream verification failures */
};

/* brokertls.c */
int brokertls_prepare(struct broker *b, struct jail_err *e) WUR;
void brokertls_free(struct broker *b);
/* The host a handshaken client connection named (SNI), or NULL. */
struct broker_host *brokertls_host(struct broker *b, SSL *ssl);
/* Connect to the host with full verification; on failure *why says why. */
int brokertls_connect(struct broker *b, const char *host, int *fd, SSL **ssl, char *why,
                      size_t cap);

/* broker.c */
/* A warning from the broker (a report, a refused request or connection):
 * the first few are shown, the rest only counted. */
void broker_warn(struct broker *b, const char *fmt, ...) PRINTF(2, 3);
void broker_report(struct broker *b, const char *host, const char *name, const char *where);
/* NAME's real value kept from a request its rules do not allow. */
void broker_withheld(struct broker *b, const char *name, const char *request);
void broker_summary(const struct broker *b, bool quiet);
void broker_count(struct broker *b, struct broker_host *h, unsigned long n);
/* The credentials of every secret; real only for those of this host. */
size_t broker_creds(const struct broker *b, const char *host, struct broker_cred *out);
#endif
