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
    /// fresh random nonce. Returns `nonce ‖ ciphertext ‖ tag`.
    package static func seal(
        _ plaintext: [UInt8], key: SymmetricKey, authenticatedData: [UInt8] = []
    ) throws(CryptoError) -> [UInt8] {
        let nonce = SecureRandom.bytes(count: nonceByteCount)
        let (ciphertext, tag) = try seal(plaintext, key: key, nonce: nonce, authenticatedData: authenticatedData)
        return nonce + ciphertext + tag
    }

    /// Decrypts a box made by `seal`. Any wrong key, wrong AAD, truncation or altered byte throws
    /// `CryptoError.authenticationFailed`; no plaintext is returned unless the tag verifies.
    package static func open(
        _ box: [UInt8], key: SymmetricKey, authenticatedData: [UInt8] = []
    ) throws(CryptoError) -> [UInt8] {
        guard box.count >= overhead else { throw .authenticationFailed }
        let nonce = Array(box[0..<nonceByteCount])
        let ciphertext = Array(box[nonceByteCount..<(box.count - tagByteCount)])
        let tag = Array(box[(box.count - tagByteCount)...])
        return try open(ciphertext, tag: tag, key: key, nonce: nonce, authenticatedData: authenticatedData)
    }

    /// Seals with a caller-chosen nonce. Internal: only published test vectors need it, and a
    /// repeated nonce under one key destroys GCM's security.
    static func seal(
        _ plaintext: [UInt8], key: SymmetricKey, nonce: [UInt8], authenticatedData: [UInt8]
    ) throws(CryptoError) -> (ciphertext: [UInt8], tag: [UInt8]) {
        try checkKey(key)
        guard nonce.count == nonceByteCount else { throw .invalidInput("nonce must be 12 bytes") }
        return try GCMCipher().seal(plaintext, key: key.bytes, nonce: nonce, aad: authenticatedData)
    }

    /// Opens separate parts (test vectors give them apart).
    static func open(
        _ ciphertext: [UInt8], tag: [UInt8], key: SymmetricKey, nonce: [UInt8], authenticatedData: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        try checkKey(key)
        guard nonce.count == nonceByteCount, tag.count == tagByteCount else { throw .authenticationFailed }
        return try GCMCipher().open(ciphertext, tag: tag, key: key.bytes, nonce: nonce, aad: authenticatedData)
    }

    private static func checkKey(_ key: SymmetricKey) throws(CryptoError) {
        guard key.byteCount == keyByteCount else {
            throw .invalidKeySize(expected: keyByteCount, actual: key.byteCount)
        }
    }
}
