import COpenSSL

/// The one-shot libcrypto calls (digests, MACs, randomness, comparison). Every C call of
/// RelayCrypto lives in this folder; failures become `CryptoError`s or preconditions here.
enum LibCrypto {
    /// Asks OpenSSL not to free its state in an `atexit` handler: a server that exits while another
    /// thread still hashes or draws random bytes must not crash on freed locks. Every entry point
    /// touches this first (a Swift static is initialised once, thread-safely).
    static let initialized: Bool = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1

    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        _ = initialized
        var digest = [UInt8](repeating: 0, count: SHA256.byteCount)
        var length: UInt32 = 0
        let status = nonEmpty(bytes).withUnsafeBufferPointer { input in
            EVP_Digest(input.baseAddress, bytes.count, &digest, &length, FetchedAlgorithms.shared.sha256, nil)
        }
        // EVP_Digest fails only on allocation failure or a broken provider: nothing to recover.
        precondition(status == 1 && length == SHA256.byteCount, "EVP_Digest(SHA-256) failed")
        return digest
    }

    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let algorithms = FetchedAlgorithms.shared
        var mac = [UInt8](repeating: 0, count: HMACSHA256.byteCount)
        var length = 0
        let capacity = mac.count
        // A context per call (they are not thread-safe); the fetched MAC saves the name lookup.
        guard let context = EVP_MAC_CTX_new(algorithms.hmac) else { preconditionFailure("EVP_MAC_CTX_new failed") }
        defer { EVP_MAC_CTX_free(context) }
        // OpenSSL rejects a NULL key pointer even with length 0, so empty inputs point at a spare byte.
        let status = nonEmpty(key).withUnsafeBufferPointer { keyBuffer in
            nonEmpty(message).withUnsafeBufferPointer { messageBuffer in
                EVP_MAC_init(context, keyBuffer.baseAddress, key.count, algorithms.hmacSHA256Parameters) == 1
                    && EVP_MAC_update(context, messageBuffer.baseAddress, message.count) == 1
                    && EVP_MAC_final(context, &mac, &length, capacity) == 1
            }
        }
        precondition(status && length == HMACSHA256.byteCount, "HMAC(SHA-256) failed")
        return mac
    }

    static func randomBytes(count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        _ = initialized
        var bytes = [UInt8](repeating: 0, count: count)
        let status = RAND_bytes(&bytes, Int32(count))
        precondition(status == 1, "RAND_bytes failed: the CSPRNG is unusable")
        return bytes
    }

    /// Constant-time comparison of two equally long buffers.
    static func memoryEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        precondition(a.count == b.count)
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, a.count) == 0 }
        }
    }

    private static func nonEmpty(_ bytes: [UInt8]) -> [UInt8] {
        bytes.isEmpty ? [0] : bytes
    }
}
