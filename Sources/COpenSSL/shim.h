// OpenSSL exposes several settings as macros over SSL_CTX_ctrl; these
// wrappers make them callable from Swift.
#ifndef SWITCHBOARD_COPENSSL_SHIM_H
#define SWITCHBOARD_COPENSSL_SHIM_H
#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

static inline long copenssl_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline long copenssl_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}
static inline long copenssl_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_max_proto_version(ctx, version);
}
static inline unsigned long copenssl_SSL_OP_NO_COMPRESSION(void) { return SSL_OP_NO_COMPRESSION; }
static inline unsigned long copenssl_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline long copenssl_SSL_MODE_RELEASE_BUFFERS(void) { return SSL_MODE_RELEASE_BUFFERS; }
static inline long copenssl_SSL_MODE_ENABLE_PARTIAL_WRITE(void) { return SSL_MODE_ENABLE_PARTIAL_WRITE; }
static inline long copenssl_SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER(void) { return SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER; }
static inline long copenssl_BIO_pending(BIO *bio) { return BIO_pending(bio); }
static inline int copenssl_TLS1_2_VERSION(void) { return TLS1_2_VERSION; }
static inline int copenssl_TLS1_3_VERSION(void) { return TLS1_3_VERSION; }
// TLS: session resumption switches, and memory-BIO controls the TLS module uses to
// signal end of input and to read or measure a BIO's buffer without copying.
static inline unsigned long copenssl_SSL_OP_NO_TICKET(void) { return SSL_OP_NO_TICKET; }
static inline long copenssl_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}
static inline long copenssl_BIO_set_mem_eof_return(BIO *bio, int value) { return BIO_set_mem_eof_return(bio, value); }
static inline long copenssl_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
static inline long copenssl_BIO_get_mem_ptr(BIO *bio, BUF_MEM **buffer) { return BIO_get_mem_ptr(bio, buffer); }
// TLS clients (webhook receivers): the server name sent in the ClientHello (SNI).
static inline long copenssl_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
// HMAC-SHA256 keyed once (EVP_MAC): the context to re-initialize with a NULL key for each
// message, or NULL when OpenSSL cannot make it. An empty key is a valid HMAC key.
static inline EVP_MAC_CTX *copenssl_hmac_sha256_context(const unsigned char *key, size_t length) {
    static const unsigned char empty = 0;
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    if (context == NULL) return NULL;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0),
        OSSL_PARAM_construct_end(),
    };
    if (EVP_MAC_init(context, key != NULL ? key : &empty, length, params) != 1) {
        EVP_MAC_CTX_free(context);
        return NULL;
    }
    return context;
}
#endif
