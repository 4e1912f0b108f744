import COpenSSL

/// AES-256-GCM fetched from the default provider once, for the life of the process.
///
/// `EVP_aes_256_gcm()` is a legacy handle: every `EVP_EncryptInit_ex` with it fetched the provider's
/// implementation by name again (a provider-store search under a lock, `OBJ_nid2sn`, hash-table
/// lookups; profile in bench/records/2026-12-02-get_me-path-profile.txt). An explicitly fetched
/// cipher skips it (OpenSSL 3 "Performance" in crypto(7)). SHA-256 and HMAC need no fetch: they
/// run on the stack (`relay_sha256`, `relay_hmac_sha256` in the COpenSSL shim).
///
/// `@unchecked Sendable`: a fetched `EVP_CIPHER` is immutable and reference-counted; OpenSSL
/// documents it as shareable between threads (crypto(7), "Threads").
final class FetchedAlgorithms: @unchecked Sendable {
    static let shared = FetchedAlgorithms()

    /// AES-256-GCM for `EVP_EncryptInit_ex2` / `EVP_DecryptInit_ex2`.
    let aes256GCM: OpaquePointer

    private init() {
        _ = LibCrypto.initialized
        // Without the default provider nothing in RelayCrypto can work: fail at the first use.
        guard let cipher = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil) else {
            preconditionFailure("OpenSSL's default provider has no AES-256-GCM")
        }
        aes256GCM = cipher
    }

    // Never freed: `shared` lives as long as the process (OPENSSL_INIT_NO_ATEXIT keeps the
    // provider alive as well).
}
