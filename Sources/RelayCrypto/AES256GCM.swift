/// AES-256-GCM with a random 96-bit nonce per seal and a 128-bit tag.
///
/// A sealed box is `nonce (12) ‖ ciphertext ‖ tag (16)`. Random nonces are safe for up to about
/// 2^32 seals under one key (NIST SP 800-38D §8.3); the relay seals a handful of values per key.
package enum AES256GCM {
    /// The key length in bytes.
    package static let keyByteCount = 32
    /// The nonce length in bytes.
    package static let nonceByteCount = 12
    /// The tag length in bytes.
    package static let tagByteCount = 16
    /// The bytes a sealed box adds to its plaintext.
    package static let overhead = nonceByteCount + tagByteCount

    /// Encrypts `plaintext` under `key`, authenticating `authenticatedData` (AAD) as well, with a
    /// fresh random nonce. Returns `prefix ‖ nonce ‖ ciphertext ‖ tag`, written into one buffer
    /// (`prefix`: a header the caller's format puts before the box, e.g. a version byte).
    package static func seal(
        _ plaintext: [UInt8], key: SymmetricKey, authenticatedData: [UInt8] = [], prefix: [UInt8] = []
    ) throws(CryptoError) -> [UInt8] {
        try checkKey(key)
        let nonceAt = prefix.count
        let ciphertextAt = nonceAt + nonceByteCount
        let tagAt = ciphertextAt + plaintext.count
        var failure: CryptoError?
        let box = [UInt8](unsafeUninitializedCapacity: tagAt + tagByteCount) { output, count in
            let base = output.baseAddress!
            if !prefix.isEmpty {
                prefix.withUnsafeBufferPointer { base.initialize(from: $0.baseAddress!, count: $0.count) }
            }
            // A fresh nonce from OpenSSL's CSPRNG for every seal: uniqueness stays OpenSSL's job.
            LibCrypto.fillRandom(UnsafeMutableBufferPointer(start: base + nonceAt, count: nonceByteCount))
            do throws(CryptoError) {
                try plaintext.withUnsafeBufferPointer { plain throws(CryptoError) in
                    try key.bytes.withUnsafeBufferPointer { keyBytes throws(CryptoError) in
                        try authenticatedData.withUnsafeBufferPointer { aad throws(CryptoError) in
                            try GCMCipher.seal(
                                plain, key: keyBytes,
                                nonce: UnsafeBufferPointer(start: base + nonceAt, count: nonceByteCount), aad: aad,
                                ciphertext: base + ciphertextAt, tag: base + tagAt)
                        }
                    }
                }
                count = tagAt + tagByteCount
            } catch {
                failure = error
                count = 0
            }
        }
        if let failure { throw failure }
        return box
    }

    /// Decrypts a box made by `seal`. Any wrong key, wrong AAD, truncation or altered byte throws
    /// `CryptoError.authenticationFailed`; no plaintext is returned unless the tag verifies.
    package static func open(
        _ box: [UInt8], key: SymmetricKey, authenticatedData: [UInt8] = []
    ) throws(CryptoError) -> [UInt8] {
        try open(box[...], key: key, authenticatedData: authenticatedData)
    }

    /// Decrypts the box in `box` (a slice of a larger format, read in place).
    package static func open(
        _ box: ArraySlice<UInt8>, key: SymmetricKey, authenticatedData: [UInt8] = []
    ) throws(CryptoError) -> [UInt8] {
        guard box.count >= overhead else { throw .authenticationFailed }
        return try box.withUnsafeBufferPointer { bytes throws(CryptoError) in
            let base = bytes.baseAddress!
            return try open(
                UnsafeBufferPointer(start: base + nonceByteCount, count: bytes.count - overhead),
                tag: UnsafeBufferPointer(start: base + bytes.count - tagByteCount, count: tagByteCount), key: key,
                nonce: UnsafeBufferPointer(start: base, count: nonceByteCount), authenticatedData: authenticatedData)
        }
    }

    /// Seals with a caller-chosen nonce. Internal: only published test vectors need it, and a
    /// repeated nonce under one key destroys GCM's security.
    static func seal(
        _ plaintext: [UInt8], key: SymmetricKey, nonce: [UInt8], authenticatedData: [UInt8]
    ) throws(CryptoError) -> (ciphertext: [UInt8], tag: [UInt8]) {
        try checkKey(key)
        guard nonce.count == nonceByteCount else { throw .invalidInput("nonce must be 12 bytes") }
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: tagByteCount)
        try plaintext.withUnsafeBufferPointer { plain throws(CryptoError) in
            try key.bytes.withUnsafeBufferPointer { keyBytes throws(CryptoError) in
                try nonce.withUnsafeBufferPointer { nonceBytes throws(CryptoError) in
                    try authenticatedData.withUnsafeBufferPointer { aad throws(CryptoError) in
                        try ciphertext.withUnsafeMutableBufferPointer { output throws(CryptoError) in
                            try tag.withUnsafeMutableBufferPointer { tagOutput throws(CryptoError) in
                                try GCMCipher.seal(
                                    plain, key: keyBytes, nonce: nonceBytes, aad: aad,
                                    ciphertext: output.baseAddress ?? tagOutput.baseAddress!,
                                    tag: tagOutput.baseAddress!)
                            }
                        }
                    }
                }
            }
        }
        return (ciphertext, tag)
    }

    private static func open(
        _ ciphertext: UnsafeBufferPointer<UInt8>, tag: UnsafeBufferPointer<UInt8>, key: SymmetricKey,
        nonce: UnsafeBufferPointer<UInt8>, authenticatedData: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        try checkKey(key)
        guard nonce.count == nonceByteCount, tag.count == tagByteCount else { throw .authenticationFailed }
        var failure: CryptoError?
        // At least one byte of capacity: an empty plaintext still needs a valid output pointer.
        let plaintext = [UInt8](unsafeUninitializedCapacity: max(ciphertext.count, 1)) { output, count in
            do throws(CryptoError) {
                try key.bytes.withUnsafeBufferPointer { keyBytes throws(CryptoError) in
                    try authenticatedData.withUnsafeBufferPointer { aad throws(CryptoError) in
                        try GCMCipher.open(
                            ciphertext, tag: tag, key: keyBytes, nonce: nonce, aad: aad, plaintext: output.baseAddress!)
                    }
                }
                count = ciphertext.count
            } catch {
                failure = error
                count = 0
            }
        }
        if let failure { throw failure }
        return plaintext
    }

    private static func checkKey(_ key: SymmetricKey) throws(CryptoError) {
        guard key.byteCount == keyByteCount else {
            throw .invalidKeySize(expected: keyByteCount, actual: key.byteCount)
        }
    }
}
