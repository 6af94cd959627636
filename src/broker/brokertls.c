/* brokertls.c — the broker's TLS, with OpenSSL: the per-session CA and the
 * brokered hosts' certificates, the jail-facing server context (SNI picks
 * the certificate; ALPN answers with what the upstream chose) and the
 * upstream client context (the host's trust store, the name checked,
 * any failure refuses).
 *
 * The CA signs every host's certificate here, before the clone, and its key
 * is freed at once: nothing can sign anything later, and the CA carries a
 * name constraint for the brokered hosts besides. */
#include "brokerpriv.h"
#include "h2lib.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#define CERT_DAYS 30
#define BUNDLE_MAX (8 << 20)
#define IO_TIMEOUT_S 30

static const unsigned char alpn_h1[] = "\x08http/1.1";
static const unsigned char alpn_both[] = "\x02h2\x08http/1.1";

static int ssl_fail(struct jail_err *e, const char *what)
{
	unsigned long code = ERR_get_error();
	char buf[160] = "unknown error";
	if (code)
		ERR_error_string_n(code, buf, sizeof(buf));
	ERR_clear_error();
	return jail_err_set(e, 0, "broker: %s: %s", what, buf);
}

static int add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
	X509_EXTENSION *ex = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	if (!ex)
		return -1;
	int ok = X509_add_ext(x, ex, -1);
	X509_EXTENSION_free(ex);
	return ok ? 0 : -1;
}

/* A certificate for key, named cn, signed by issuer (NULL: itself). */
static X509 *make_cert(EVP_PKEY *key, const char *cn, X509 *issuer, EVP_PKEY *signer)
{
	X509 *x = X509_new();
	BIGNUM *serial = BN_new();
	bool ok = x && serial && X509_set_version(x, X509_VERSION_3) &&
	          BN_rand(serial, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) &&
	          BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(x)) &&
	          X509_gmtime_adj(X509_getm_notBefore(x), -3600) &&
	          X509_gmtime_adj(X509_getm_notAfter(x), 86400L * CERT_DAYS) &&
	          X509_set_pubkey(x, key) &&
	          X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
	                                     (const unsigned char *)cn, -1, -1, 0) &&
	          X509_set_issuer_name(x, X509_get_subject_name(issuer ? issuer : x));
	BN_free(serial);
	if (!ok) {
		X509_free(x);
		return NULL;
	}
	return x;
}

static X509 *make_ca(struct broker *b, EVP_PKEY *key)
{
	X509 *ca = make_cert(key, "jail session CA (this session only)", NULL, key);
	struct strbuf nc = {0};
	sb_puts(&nc, "critical");
	for (size_t i = 0; i < b->n_host; i++)
		sb_printf(&nc, ",permitted;DNS:%s", b->host[i].name);
	bool ok = ca && add_ext(ca, ca, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") == 0 &&
	          add_ext(ca, ca, NID_key_usage, "critical,keyCertSign,cRLSign") == 0 &&
	          add_ext(ca, ca, NID_subject_key_identifier, "hash") == 0 &&
	          add_ext(ca, ca, NID_name_constraints, nc.s) == 0 &&
	          X509_sign(ca, key, EVP_sha256()) > 0;
	sb_free(&nc);
	if (!ok) {
		X509_free(ca);
		return NULL;
	}
	return ca;
}

static int make_leaf(struct broker_host *h, X509 *ca, EVP_PKEY *ca_key)
{
	h->key = EVP_EC_gen("P-256");
	if (!h->key)
		return -1;
	h->cert = make_cert(h->key, h->name, ca, ca_key);
	_cleanup_free_ char *san = xasprintf("DNS:%s", h->name);
	if (!h->cert || add_ext(h->cert, ca, NID_basic_constraints, "critical,CA:FALSE") < 0 ||
	    add_ext(h->cert, ca, NID_key_usage, "critical,digitalSignature") < 0 ||
	    add_ext(h->cert, ca, NID_ext_key_usage, "serverAuth") < 0 ||
	    add_ext(h->cert, ca, NID_subject_alt_name, san) < 0 ||
	    add_ext(h->cert, ca, NID_subject_key_identifier, "hash") < 0 ||
	    add_ext(h->cert, ca, NID_authority_key_identifier, "keyid:always") < 0 ||
	    X509_sign(h->cert, ca_key, EVP_sha256()) <= 0)
		return -1;
	return 0;
}

static char *cert_pem(X509 *x)
{
	BIO *m = BIO_new(BIO_s_mem());
	char *data = NULL;
	if (!m || !PEM_write_bio_X509(m, x)) {
		BIO_free(m);
		return NULL;
	}
	long n = BIO_get_mem_data(m, &data);
	char *out = strndup(data, (size_t)n);
	BIO_free(m);
	return out;
}

/* The host's CAs (as OpenSSL finds them: SSL_CERT_FILE, else its default
 * file) and the session CA: the jail's trust store. */
static void make_bundle(struct broker *b)
{
	const char *path = getenv(X509_get_default_cert_file_env());
	if (!path)
		path = X509_get_default_cert_file();
	_cleanup_free_ char *host = NULL;
	size_t len = 0;
	struct jail_err ignored;
	if (read_file_at(AT_FDCWD, path, BUNDLE_MAX, &host, &len, &ignored) < 0)
		log_warn("broker: no CA bundle at %s: the jail trusts only the session CA", path);
	b->bundle_pem = xasprintf("%s%s%s", host ? host : "",
	                          len && host[len - 1] != '\n' ? "\n" : "", b->ca_pem);
}

static int session_ca(struct broker *b, struct jail_err *e)
{
	EVP_PKEY *key = EVP_EC_gen("P-256");
	X509 *ca = key ? make_ca(b, key) : NULL;
	int r = ca ? 0 : ssl_fail(e, "make the session CA");
	for (size_t i = 0; i < b->n_host && r == 0; i++)
		if (make_leaf(&b->host[i], ca, key) < 0)
			r = ssl_fail(e, "make a certificate for a brokered host");
	if (r == 0 && !(b->ca_pem = cert_pem(ca)))
		r = ssl_fail(e, "write the session CA");
	X509_free(ca);
	EVP_PKEY_free(key);  /* the CA's key is gone: nothing more is ever signed */
	return r;
}

static struct broker_host *find_host(struct broker *b, const char *name)
{
	for (size_t i = 0; name && i < b->n_host; i++)
		if (strcasecmp(b->host[i].name, name) == 0)
			return &b->host[i];
	return NULL;
}

/* SNI: a brokered host gets its certificate; any other name (or none) ends
 * the handshake.  So does another name than the one the upstream was opened
 * for: TLS 1.3's HelloRetryRequest makes the client send a second
 * ClientHello, and OpenSSL takes its SNI anew (the callbacks run for each),
 * so a client could open host A's upstream with the first and be served as
 * host B, B's credentials, with the second. */
static int servername_cb(SSL *ssl, int *alert, void *arg)
{
	struct broker_host *h = find_host(arg, SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name));
	struct conn *c = SSL_get_ex_data(ssl, 0);
	/* a host whose secret the agent was caught guessing at answers no more
	 * (brokerscrub.h): each answer could confirm another character */
	if (!h || (c && c->host && c->host != h) || broker_host_guessed(arg, h->name) ||
	    SSL_use_certificate(ssl, h->cert) != 1 ||
	    SSL_use_PrivateKey(ssl, h->key) != 1) {
		*alert = SSL_AD_UNRECOGNIZED_NAME;
		return SSL_TLSEXT_ERR_ALERT_FATAL;
	}
	return SSL_TLSEXT_ERR_OK;
}

/* Does the client's ALPN list (RFC 7301 wire format) hold proto? */
static bool alpn_offers(const unsigned char *in, unsigned int inlen, const char *proto)
{
	size_t pl = strlen(proto);
	for (unsigned int i = 0; i < inlen; i += 1u + in[i])
		if (in[i] == pl && i + 1 + pl <= inlen && memcmp(in + i + 1, proto, pl) == 0)
			return true;
	return false;
}

/* The same protocol on both legs, and the client gets what the upstream
 * chose.  An upstream that chose http/1.1 or nothing, or could not be
 * reached, means http/1.1 (the 502 is an HTTP/1.1 answer).  A client
 * offering neither gets no ALPN.
 *
 * When the answer is known beforehand the upstream's handshake runs alongside
 * the jail's instead of inside it (its ClientHello goes now, its answer is
 * read when the jail's handshake is done: brokerconn.c): a
 * client that does not offer h2 gets http/1.1 whatever the upstream says (it
 * is offered http/1.1 alone), and a host that chose before in this session
 * is offered and expected to choose the same (if it does not, that one
 * connection is closed and the next asks afresh: brokerconn.c).  Otherwise
 * the upstream is opened here, during the jail's handshake (SNI is known by
 * now), and the jail waits for its choice. */
static int alpn_cb(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                   const unsigned char *in, unsigned int inlen, void *arg)
{
	struct broker *b = arg;
	struct conn *c = SSL_get_ex_data(ssl, 0);
	struct broker_host *h = brokertls_host(b, ssl);
	if (!h || (c->host && c->host != h))  /* the name changed (servername_cb) */
		return SSL_TLSEXT_ERR_ALERT_FATAL;
	c->host = h;
	if (!c->up_tried) {
		int known = b->h2 && alpn_offers(in, inlen, "h2") ? brokerconn_known(c)
		                                                 : BROKER_PROTO_H1;
		if (known != BROKER_PROTO_UNKNOWN) {
			c->h2 = known == BROKER_PROTO_H2;
			brokerconn_upstream_begin(c, c->h2);
		} else {
			brokerconn_upstream(c, true);
			c->h2 = c->up_h2;
		}
	}
	if (c->h2) {
		*out = alpn_both + 1;
		*outlen = 2;
		return SSL_TLSEXT_ERR_OK;
	}
	if (!alpn_offers(in, inlen, "http/1.1"))
		return SSL_TLSEXT_ERR_NOACK;
	*out = alpn_h1 + 1;
	*outlen = 8;
	return SSL_TLSEXT_ERR_OK;
}

static int make_contexts(struct broker *b, struct jail_err *e)
{
	b->server = SSL_CTX_new(TLS_server_method());
	b->client = SSL_CTX_new(TLS_client_method());
	if (!b->server || !b->client)
		return ssl_fail(e, "TLS context");
	long opts = SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION;
	SSL_CTX_set_options(b->server, opts);
	SSL_CTX_set_options(b->client, opts);
	if (!SSL_CTX_set_min_proto_version(b->server, TLS1_2_VERSION) ||
	    !SSL_CTX_set_min_proto_version(b->client, TLS1_2_VERSION))
		return ssl_fail(e, "TLS versions");
	SSL_CTX_set_tlsext_servername_callback(b->server, servername_cb);
	SSL_CTX_set_tlsext_servername_arg(b->server, b);
	SSL_CTX_set_alpn_select_cb(b->server, alpn_cb, b);
	SSL_CTX_set_verify(b->client, SSL_VERIFY_PEER, NULL);
	if (SSL_CTX_set_default_verify_paths(b->client) != 1)
		return ssl_fail(e, "load the host's trust store");
	if (SSL_CTX_set_alpn_protos(b->client, alpn_h1, sizeof(alpn_h1) - 1) != 0)
		return ssl_fail(e, "ALPN");
	return 0;
}

int brokertls_prepare(struct broker *b, struct jail_err *e)
{
	if (tlslib_load(e) < 0 || session_ca(b, e) < 0 || make_contexts(b, e) < 0)
		return -1;
	struct jail_err h2e = {0};
	b->h2 = h2lib_load(&h2e) == 0;
	if (!b->h2)  /* not fatal: HTTP/1.1 serves every client, more slowly */
		log_warn("broker: %s; brokered hosts speak HTTP/1.1 only", h2e.msg);
	make_bundle(b);
	return 0;
}

void brokertls_free(struct broker *b)
{
	if (!tlslib_loaded()) /* nothing of OpenSSL was made */
		return;
	for (size_t i = 0; i < b->n_host; i++) {
		X509_free(b->host[i].cert);
		EVP_PKEY_free(b->host[i].key);
	}
	SSL_CTX_free(b->server);
	SSL_CTX_free(b->client);
}

struct broker_host *brokertls_host(struct broker *b, SSL *ssl)
{
	return find_host(b, SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name));
}

static void set_timeouts(int fd, int seconds)
{
	struct timeval tv = {.tv_sec = seconds};
	/* best effort: without them a stuck peer holds one thread, nothing more */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* TCP to the host:443, or for the tests to JAIL_TEST_BROKER_UPSTREAM
 * (ADDR:PORT on the host's loopback): the name checked stays the host's.
 * Each socket is c's upstream for broker_stop (brokerconn_track) from before
 * its connect to its close: a connect or handshake that hangs (the jail's
 * handshake waits on it) ends when the session does, not at the timeout. */
static int tcp_connect(struct conn *c, const char *host, char *why, size_t cap)
{
	const char *test = getenv("JAIL_TEST_BROKER_UPSTREAM");
	_cleanup_free_ char *addr = xstrdup(test ? test : host);
	const char *port = "443";
	char *colon = test ? strrchr(addr, ':') : NULL;
	if (colon) {
		*colon = '\0';
		port = colon + 1;
	}
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
	int rc = getaddrinfo(addr, port, &hints, &res);
	if (rc != 0) {
		snprintf(why, cap, "cannot resolve it (%s)", gai_strerror(rc));
		return -1;
	}
	int fd = -1, err = 0;
	for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0) {
			err = errno;
			continue;
		}
		set_timeouts(fd, IO_TIMEOUT_S);
		if (brokerconn_track(c, fd) < 0 || connect(fd, a->ai_addr, a->ai_addrlen) < 0) {
			err = errno;
			brokerconn_track(c, -1);
			close(steal_fd(&fd));
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		snprintf(why, cap, "cannot connect (%s)", strerror(err));
	return fd;
}

/* Why the upstream's handshake failed, in c->why; s is freed. */
static void handshake_failed(struct conn *c, SSL *s)
{
	long v = SSL_get_verify_result(s);
	unsigned long code = ERR_get_error();
	if (v != X509_V_OK)
		snprintf(c->why, sizeof(c->why), "its certificate is not trusted (%s)",
		         X509_verify_cert_error_string(v));
	else
		snprintf(c->why, sizeof(c->why), "TLS handshake failed (%s)",
		         code ? ERR_reason_error_string(code) : "connection closed");
	ERR_clear_error();
	SSL_free(s);
}

int brokertls_start(struct conn *c, bool h2)
{
	struct broker *b = c->b;
	const char *host = c->host->name;
	c->up.ssl = NULL;
	c->up.fd = tcp_connect(c, host, c->why, sizeof(c->why));
	if (c->up.fd < 0)
		return -1;
	SSL *s = SSL_new(b->client);
	const unsigned char *alpn = h2 ? alpn_both : alpn_h1;
	unsigned int alpn_len = h2 ? sizeof(alpn_both) - 1 : sizeof(alpn_h1) - 1;
	if (!s || !SSL_set_fd(s, c->up.fd) || !SSL_set_tlsext_host_name(s, host) ||
	    !SSL_set1_host(s, host) || SSL_set_alpn_protos(s, alpn, alpn_len) != 0 ||
	    brokerconn_blocking(c->up.fd, false) < 0) {
		SSL_free(s);
		snprintf(c->why, sizeof(c->why), "TLS setup failed");
		return -1;
	}
	/* the ClientHello goes now; the answer is read by brokertls_finish */
	if (SSL_connect(s) != 1) {
		int err = SSL_get_error(s, 0);
		if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) {
			handshake_failed(c, s);
			return -1;
		}
		ERR_clear_error();
	}
	c->up.ssl = s;
	return 0;
}

int brokertls_finish(struct conn *c)
{
	SSL *s = c->up.ssl;
	c->up_h2 = false;
	if (brokerconn_blocking(c->up.fd, true) < 0 || SSL_connect(s) != 1) {
		handshake_failed(c, s);
		c->up.ssl = NULL;
		return -1;
	}
	const unsigned char *sel = NULL;
	unsigned int sel_len = 0;
	SSL_get0_alpn_selected(s, &sel, &sel_len);
	c->up_h2 = sel_len == 2 && memcmp(sel, "h2", 2) == 0;
	return 0;
}
