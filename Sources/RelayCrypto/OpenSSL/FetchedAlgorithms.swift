import COpenSSL

/// SHA-256 and HMAC fetched from the default provider once, for the life of the process.
///
/// `EVP_sha256()` and the one-shot `HMAC()` look their algorithm up by name on every call
/// (a provider-store search under a lock, parameter parsing, name-to-NID tables): on a tool
/// call that hashes a bearer token and HMACs cache keys, that search cost more than the hashing
/// (profile in bench/records/2026-12-02-get_me-path-profile.txt). An explicitly fetched
/// algorithm skips it (OpenSSL 3 "Performance" in crypto(7)).
///
/// `@unchecked Sendable`: fetched `EVP_MD` and `EVP_MAC` objects are immutable and
/// reference-counted; OpenSSL documents them as shareable between threads (crypto(7),
/// "Threads"). Each call still makes its own context, so no mutable state is shared.
final class FetchedAlgorithms: @unchecked Sendable {
    static let shared = FetchedAlgorithms()

    /// SHA-256 for `EVP_Digest`.
    let sha256: OpaquePointer
    /// The HMAC MAC for `EVP_MAC_CTX_new`.
    let hmac: OpaquePointer
    /// `{digest: "SHA256"}, end`: the parameters of `EVP_MAC_init` for HMAC-SHA256. An
    /// `OSSL_PARAM` keeps pointers to its key and value, so both strings live here too (a Swift
    /// string literal's C pointer is only valid during the call it is passed to).
    let hmacSHA256Parameters: UnsafeMutablePointer<OSSL_PARAM>

    private init() {
        _ = LibCrypto.initialized
        // Without the default provider nothing in RelayCrypto can work: fail at the first use.
        guard let sha256 = EVP_MD_fetch(nil, "SHA2-256", nil), let hmac = EVP_MAC_fetch(nil, "HMAC", nil) else {
            preconditionFailure("OpenSSL's default provider has no SHA-256 or HMAC")
        }
        self.sha256 = sha256
        self.hmac = hmac
        let parameters = UnsafeMutablePointer<OSSL_PARAM>.allocate(capacity: 2)
        parameters[0] = OSSL_PARAM_construct_utf8_string(Self.cString("digest"), Self.cString("SHA256"), 0)
        parameters[1] = OSSL_PARAM_construct_end()
        hmacSHA256Parameters = parameters
    }

    private static func cString(_ text: String) -> UnsafeMutablePointer<CChar> {
        let bytes = text.utf8CString
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        bytes.withUnsafeBufferPointer { pointer.initialize(from: $0.baseAddress!, count: bytes.count) }
        return pointer
    }

    // Never freed: `shared` lives as long as the process (OPENSSL_INIT_NO_ATEXIT keeps the
    // provider alive as well).
}
