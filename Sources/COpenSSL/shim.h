/* OpenSSL libcrypto, plus wrappers for the function-like macros Swift cannot import. */
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

static inline void relay_OPENSSL_free(void *p) { OPENSSL_free(p); }

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
