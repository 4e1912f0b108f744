import COpenSSL

/// The one-shot libcrypto calls (digests, MACs, randomness, comparison). Every C call of
/// RelayCrypto lives in this folder; failures become `CryptoError`s or preconditions here.
enum LibCrypto {
    /// Asks OpenSSL not to free its state in an `atexit` handler: a server that exits while another
    /// thread still hashes or draws random bytes must not crash on freed locks. Every entry point
    /// touches this first (a Swift static is initialised once, thread-safely).
    static let initialized: Bool = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1

    /// The digest of `bytes` into `output` (32 bytes), through `relay_sha256`.
    static func sha256(_ bytes: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableRawBufferPointer) {
        _ = initialized
        precondition(output.count >= SHA256.byteCount)
        let status = relay_sha256(
            bytes.baseAddress, bytes.count, output.baseAddress!.assumingMemoryBound(to: UInt8.self))
        // Fails only if the library is broken: nothing to recover.
        precondition(status == 1, "SHA-256 failed")
    }

    /// `sha256(_:into:)` into a new array.
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: SHA256.byteCount) { output, count in
            bytes.withUnsafeBufferPointer { sha256($0, into: UnsafeMutableRawBufferPointer(output)) }
            count = SHA256.byteCount
        }
    }

    /// HMAC-SHA256 of `message` into `output` (32 bytes), through `relay_hmac_sha256`.
    static func hmacSHA256(
        key: [UInt8], message: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableRawBufferPointer
    ) {
        _ = initialized
        precondition(output.count >= HMACSHA256.byteCount)
        let status = key.withUnsafeBufferPointer { keyBuffer in
            relay_hmac_sha256(
                keyBuffer.baseAddress, keyBuffer.count, message.baseAddress, message.count,
                output.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        precondition(status == 1, "HMAC(SHA-256) failed")
    }

    /// `hmacSHA256(key:message:into:)` into a new array.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: HMACSHA256.byteCount) { output, count in
            message.withUnsafeBufferPointer {
                hmacSHA256(key: key, message: $0, into: UnsafeMutableRawBufferPointer(output))
            }
            count = HMACSHA256.byteCount
        }
    }

    static func randomBytes(count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        _ = initialized
        var bytes = [UInt8](repeating: 0, count: count)
        let status = RAND_bytes(&bytes, Int32(count))
        precondition(status == 1, "RAND_bytes failed: the CSPRNG is unusable")
        return bytes
    }

    /// Fills `buffer` from the CSPRNG (`RAND_bytes`): a GCM nonce is written straight into its box.
    static func fillRandom(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        guard !buffer.isEmpty else { return }
        _ = initialized
        let status = RAND_bytes(buffer.baseAddress, Int32(buffer.count))
        precondition(status == 1, "RAND_bytes failed: the CSPRNG is unusable")
    }

    /// Constant-time comparison of two equally long buffers.
    static func memoryEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        precondition(a.count == b.count)
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, a.count) == 0 }
        }
    }
}
