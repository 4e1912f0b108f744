/* OpenSSL libcrypto, plus wrappers for the function-like macros Swift cannot import. */
#ifndef RELAY_COPENSSL_SHIM_H
#define RELAY_COPENSSL_SHIM_H
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
#endif
