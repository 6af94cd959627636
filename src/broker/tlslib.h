/* tlslib.h — OpenSSL, loaded on first use instead of at every start.
 *
 * Linking libssl and libcrypto made the dynamic loader relocate them on every
 * `jail` run, about 1 ms of CPU (a third of a plain bwrap's whole start-up),
 * though only brokered secrets use TLS.  brokertls.c and brokerconn.c include
 * this header after OpenSSL's: every OpenSSL function they call (after
 * OpenSSL's own macros expand) is a pointer in `tlslib`, filled by dlsym once
 * tlslib_load() has opened the libraries.  The pointers carry the headers'
 * own types, so calls are checked as before. */
#ifndef JAIL_TLSLIB_H
#define JAIL_TLSLIB_H
#include "util.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdbool.h>

#define TLSLIB_FUNCS(X) \
	X(BIO_ctrl) X(BIO_free) X(BIO_new) X(BIO_s_mem) X(BN_free) X(BN_new) X(BN_rand) \
	X(BN_to_ASN1_INTEGER) X(ERR_clear_error) X(ERR_error_string_n) X(ERR_get_error) \
	X(ERR_reason_error_string) X(EVP_PKEY_Q_keygen) X(EVP_PKEY_free) X(EVP_sha256) \
	X(PEM_write_bio_X509) X(SSL_CTX_callback_ctrl) X(SSL_CTX_ctrl) X(SSL_CTX_free) \
	X(SSL_CTX_new) X(SSL_CTX_set_alpn_protos) X(SSL_CTX_set_alpn_select_cb) \
	X(SSL_CTX_set_default_verify_paths) X(SSL_CTX_set_options) X(SSL_CTX_set_verify) \
	X(SSL_accept) X(SSL_connect) X(SSL_ctrl) X(SSL_free) X(SSL_get_error) \
	X(SSL_get0_alpn_selected) X(SSL_get_ex_data) \
	X(SSL_get_servername) X(SSL_get_verify_result) X(SSL_has_pending) X(SSL_new) \
	X(SSL_read_ex) X(SSL_select_next_proto) X(SSL_set1_host) X(SSL_set_alpn_protos) \
	X(SSL_set_ex_data) X(SSL_set_fd) X(SSL_shutdown) \
	X(SSL_use_PrivateKey) X(SSL_use_certificate) X(SSL_write_ex) X(TLS_client_method) \
	X(TLS_server_method) X(X509V3_EXT_conf_nid) X(X509V3_set_ctx) X(X509_EXTENSION_free) \
	X(X509_NAME_add_entry_by_txt) X(X509_add_ext) X(X509_free) X(X509_get_default_cert_file) \
	X(X509_get_default_cert_file_env) X(X509_get_serialNumber) X(X509_get_subject_name) \
	X(X509_getm_notAfter) X(X509_getm_notBefore) X(X509_gmtime_adj) X(X509_new) \
	X(X509_set_issuer_name) X(X509_set_pubkey) X(X509_set_version) X(X509_sign) \
	X(X509_verify_cert_error_string)

#define TLSLIB_FIELD(f) __typeof__(&f) f;
struct tlslib {
	TLSLIB_FUNCS(TLSLIB_FIELD)
};
#undef TLSLIB_FIELD

extern struct tlslib tlslib;

/* Open libssl and libcrypto and resolve every function above; once, before
 * the broker's threads (later calls return at once). */
int tlslib_load(struct jail_err *e) WUR;
/* Whether tlslib_load succeeded: before it, nothing of OpenSSL was made. */
bool tlslib_loaded(void);

#ifndef TLSLIB_IMPL
#define BIO_ctrl (*tlslib.BIO_ctrl)
#define BIO_free (*tlslib.BIO_free)
#define BIO_new (*tlslib.BIO_new)
#define BIO_s_mem (*tlslib.BIO_s_mem)
#define BN_free (*tlslib.BN_free)
#define BN_new (*tlslib.BN_new)
#define BN_rand (*tlslib.BN_rand)
#define BN_to_ASN1_INTEGER (*tlslib.BN_to_ASN1_INTEGER)
#define ERR_clear_error (*tlslib.ERR_clear_error)
#define ERR_error_string_n (*tlslib.ERR_error_string_n)
#define ERR_get_error (*tlslib.ERR_get_error)
#define ERR_reason_error_string (*tlslib.ERR_reason_error_string)
#define EVP_PKEY_Q_keygen (*tlslib.EVP_PKEY_Q_keygen)
#define EVP_PKEY_free (*tlslib.EVP_PKEY_free)
#define EVP_sha256 (*tlslib.EVP_sha256)
#define PEM_write_bio_X509 (*tlslib.PEM_write_bio_X509)
#define SSL_CTX_callback_ctrl (*tlslib.SSL_CTX_callback_ctrl)
#define SSL_CTX_ctrl (*tlslib.SSL_CTX_ctrl)
#define SSL_CTX_free (*tlslib.SSL_CTX_free)
#define SSL_CTX_new (*tlslib.SSL_CTX_new)
#define SSL_CTX_set_alpn_protos (*tlslib.SSL_CTX_set_alpn_protos)
#define SSL_CTX_set_alpn_select_cb (*tlslib.SSL_CTX_set_alpn_select_cb)
#define SSL_CTX_set_default_verify_paths (*tlslib.SSL_CTX_set_default_verify_paths)
#define SSL_CTX_set_options (*tlslib.SSL_CTX_set_options)
#define SSL_CTX_set_verify (*tlslib.SSL_CTX_set_verify)
#define SSL_accept (*tlslib.SSL_accept)
#define SSL_connect (*tlslib.SSL_connect)
#define SSL_ctrl (*tlslib.SSL_ctrl)
#define SSL_free (*tlslib.SSL_free)
#define SSL_get_error (*tlslib.SSL_get_error)
#define SSL_get0_alpn_selected (*tlslib.SSL_get0_alpn_selected)
#define SSL_get_ex_data (*tlslib.SSL_get_ex_data)
#define SSL_get_servername (*tlslib.SSL_get_servername)
#define SSL_get_verify_result (*tlslib.SSL_get_verify_result)
#define SSL_has_pending (*tlslib.SSL_has_pending)
#define SSL_new (*tlslib.SSL_new)
#define SSL_read_ex (*tlslib.SSL_read_ex)
#define SSL_select_next_proto (*tlslib.SSL_select_next_proto)
#define SSL_set1_host (*tlslib.SSL_set1_host)
#define SSL_set_alpn_protos (*tlslib.SSL_set_alpn_protos)
#define SSL_set_ex_data (*tlslib.SSL_set_ex_data)
#define SSL_set_fd (*tlslib.SSL_set_fd)
#define SSL_shutdown (*tlslib.SSL_shutdown)
#define SSL_use_PrivateKey (*tlslib.SSL_use_PrivateKey)
#define SSL_use_certificate (*tlslib.SSL_use_certificate)
#define SSL_write_ex (*tlslib.SSL_write_ex)
#define TLS_client_method (*tlslib.TLS_client_method)
#define TLS_server_method (*tlslib.TLS_server_method)
#define X509V3_EXT_conf_nid (*tlslib.X509V3_EXT_conf_nid)
#define X509V3_set_ctx (*tlslib.X509V3_set_ctx)
#define X509_EXTENSION_free (*tlslib.X509_EXTENSION_free)
#define X509_NAME_add_entry_by_txt (*tlslib.X509_NAME_add_entry_by_txt)
#define X509_add_ext (*tlslib.X509_add_ext)
#define X509_free (*tlslib.X509_free)
#define X509_get_default_cert_file (*tlslib.X509_get_default_cert_file)
#define X509_get_default_cert_file_env (*tlslib.X509_get_default_cert_file_env)
#define X509_get_serialNumber (*tlslib.X509_get_serialNumber)
#define X509_get_subject_name (*tlslib.X509_get_subject_name)
#define X509_getm_notAfter (*tlslib.X509_getm_notAfter)
#define X509_getm_notBefore (*tlslib.X509_getm_notBefore)
#define X509_gmtime_adj (*tlslib.X509_gmtime_adj)
#define X509_new (*tlslib.X509_new)
#define X509_set_issuer_name (*tlslib.X509_set_issuer_name)
#define X509_set_pubkey (*tlslib.X509_set_pubkey)
#define X509_set_version (*tlslib.X509_set_version)
#define X509_sign (*tlslib.X509_sign)
#define X509_verify_cert_error_string (*tlslib.X509_verify_cert_error_string)
#endif

#endif
