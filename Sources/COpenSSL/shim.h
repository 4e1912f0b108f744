/* OpenSSL libcrypto and libssl, plus wrappers for the function-like macros Swift cannot import. */
#ifndef RELAY_COPENSSL_SHIM_H
#define RELAY_COPENSSL_SHIM_H
/* SHA256_Init/Update/Final are deprecated in OpenSSL 3 in favour of EVP, but EVP allocates a context
   (and HMAC through EVP_MAC about a dozen objects) on every call; the functions below use them on the
   stack. Only this header sees them without their deprecation attribute. */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

static inline void relay_OPENSSL_free(void *p) { OPENSSL_free(p); }

/* libssl's function-like macros, for the TLS client (RelayHTTP Client/Direct/TLS). */
static inline int relay_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline int relay_SSL_CTX_get_min_proto_version(SSL_CTX *ctx) {
    return (int)SSL_CTX_get_min_proto_version(ctx);
}
static inline long relay_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}
/* SSL_OP_NO_RENEGOTIATION is built with SSL_OP_BIT(), which Swift cannot import. */
static inline void relay_SSL_CTX_refuse_renegotiation(SSL_CTX *ctx) {
    (void)SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
}
static inline long relay_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline int relay_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}
static inline int relay_SSL_set_app_data(SSL *ssl, void *data) { return SSL_set_app_data(ssl, data); }
static inline void *relay_SSL_get_app_data(const SSL *ssl) { return SSL_get_app_data(ssl); }
static inline int relay_SSL_CTX_set_app_data(SSL_CTX *ctx, void *data) { return SSL_CTX_set_app_data(ctx, data); }
static inline void *relay_SSL_CTX_get_app_data(const SSL_CTX *ctx) { return SSL_CTX_get_app_data(ctx); }
/* A memory BIO that is empty reports "retry" (-1), not end of file (0), until told otherwise. */
static inline void relay_BIO_set_mem_eof_return(BIO *bio, int value) { (void)BIO_set_mem_eof_return(bio, value); }
/* How many objects (certificates, CRLs) a store holds now; the system store's file is loaded eagerly. */
static inline int relay_X509_STORE_object_count(X509_STORE *store) {
    return sk_X509_OBJECT_num(X509_STORE_get0_objects(store));
}

/* SHA-256 of `length` bytes into `digest` (32 bytes), with the context on the stack: no allocation.
   Returns 1 on success. */
static inline int relay_sha256(const unsigned char *bytes, size_t length, unsigned char *digest) {
    SHA256_CTX context;
    int status = SHA256_Init(&context) == 1 && SHA256_Update(&context, bytes, length) == 1
        && SHA256_Final(digest, &context) == 1;
    OPENSSL_cleanse(&context, sizeof context);
    return status;
}

/* HMAC-SHA256 (RFC 2104: H((K ^ opad) || H((K ^ ipad) || m)), K hashed first when longer than the
   64-byte block) into `mac` (32 bytes), every intermediate on the stack and cleansed: no allocation,
   no shared state. Returns 1 on success. */
static inline int relay_hmac_sha256(
    const unsigned char *key, size_t keyLength, const unsigned char *message, size_t messageLength,
    unsigned char *mac) {
    unsigned char block[SHA256_CBLOCK];
    unsigned char inner[SHA256_DIGEST_LENGTH];
    SHA256_CTX context;
    int status = 1;
    memset(block, 0, sizeof block);
    if (keyLength > sizeof block) {
        status = relay_sha256(key, keyLength, block);
    } else if (keyLength > 0) {
        memcpy(block, key, keyLength);
    }
    for (size_t i = 0; i < sizeof block; i++) block[i] ^= 0x36;
    status = status && SHA256_Init(&context) == 1 && SHA256_Update(&context, block, sizeof block) == 1
        && SHA256_Update(&context, message, messageLength) == 1 && SHA256_Final(inner, &context) == 1;
    for (size_t i = 0; i < sizeof block; i++) block[i] ^= 0x36 ^ 0x5c;
    status = status && SHA256_Init(&context) == 1 && SHA256_Update(&context, block, sizeof block) == 1
        && SHA256_Update(&context, inner, sizeof inner) == 1 && SHA256_Final(mac, &context) == 1;
    OPENSSL_cleanse(block, sizeof block);
    OPENSSL_cleanse(inner, sizeof inner);
    OPENSSL_cleanse(&context, sizeof context);
    return status;
}
#endif
