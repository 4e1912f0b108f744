/// SHA-256 (FIPS 180-4).
package enum SHA256 {
    /// The digest length in bytes.
    package static let byteCount = 32

    /// The 32-byte digest of `bytes`.
    package static func hash(_ bytes: [UInt8]) -> [UInt8] {
        LibCrypto.sha256(bytes)
    }

    /// The 32-byte digest of the UTF-8 bytes of `string`.
    package static func hash(_ string: String) -> [UInt8] {
        hash(Array(string.utf8))
    }

    /// The digest of the UTF-8 bytes of `string`, held inline: a key for an in-memory table.
    package static func digest(of string: String) -> SHA256Digest {
        var string = string
        return string.withUTF8 { bytes in SHA256Digest { LibCrypto.sha256(bytes, into: $0) } }
    }
}

/// A SHA-256 digest as four words (`SHA256.digest(of:)`); equal digests, equal values.
package struct SHA256Digest: Hashable, Sendable {
    let first: UInt64
    let second: UInt64
    let third: UInt64
    let fourth: UInt64

    /// The digest `write` puts into 32 bytes.
    init(writing write: (UnsafeMutableRawBufferPointer) -> Void) {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { write($0) }
        (first, second, third, fourth) = words
    }

    /// The 32 bytes, in digest order.
    package var bytes: [UInt8] {
        var words = (first, second, third, fourth)
        return withUnsafeBytes(of: &words) { Array($0) }
    }
}

/// HMAC-SHA256 (RFC 2104, FIPS 198-1).
package enum HMACSHA256 {
    /// The tag length in bytes.
    package static let byteCount = 32

    /// The 32-byte authentication code of `message` under `key` (any key length).
    package static func authenticationCode(for message: [UInt8], key: SymmetricKey) -> [UInt8] {
        LibCrypto.hmacSHA256(key: key.bytes, message: message)
    }

    /// The authentication code of the UTF-8 bytes of `message`.
    package static func authenticationCode(for message: String, key: SymmetricKey) -> [UInt8] {
        authenticationCode(for: Array(message.utf8), key: key)
    }

    /// The authentication code of the UTF-8 bytes of `message`, held inline: a key for an in-memory
    /// table.
    package static func digest(of message: String, key: SymmetricKey) -> SHA256Digest {
        var message = message
        return message.withUTF8 { bytes in
            SHA256Digest { LibCrypto.hmacSHA256(key: key.bytes, message: bytes, into: $0) }
        }
    }
}

/// HKDF with HMAC-SHA256 (RFC 5869): extract-then-expand key derivation.
package enum HKDF {
    /// The longest output RFC 5869 allows with SHA-256 (255 blocks).
    package static let maximumOutputByteCount = 255 * HMACSHA256.byteCount

    /// Derives `outputByteCount` bytes from `inputKeyMaterial`. An empty `salt` means a string of
    /// 32 zero bytes, as the RFC specifies.
    package static func deriveKey(
        inputKeyMaterial: [UInt8], salt: [UInt8], info: [UInt8], outputByteCount: Int = 32
    ) throws(CryptoError) -> SymmetricKey {
        guard outputByteCount > 0, outputByteCount <= maximumOutputByteCount else {
            throw .invalidInput("HKDF output length must be 1...\(maximumOutputByteCount) bytes")
        }
        let saltKey = SymmetricKey(bytes: salt.isEmpty ? [UInt8](repeating: 0, count: HMACSHA256.byteCount) : salt)
        let pseudorandomKey = SymmetricKey(
            bytes: HMACSHA256.authenticationCode(for: inputKeyMaterial, key: saltKey))
        var output: [UInt8] = []
        output.reserveCapacity(outputByteCount + HMACSHA256.byteCount)
        var block: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < outputByteCount {
            block = HMACSHA256.authenticationCode(for: block + info + [counter], key: pseudorandomKey)
            output += block
            counter &+= 1
        }
        return SymmetricKey(bytes: Array(output.prefix(outputByteCount)))
    }
}
