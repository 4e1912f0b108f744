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

    /// Whether `code` is the authentication code of `message`, compared in constant time.
    package static func isValid(_ code: [UInt8], for message: [UInt8], key: SymmetricKey) -> Bool {
        ConstantTime.equals(code, authenticationCode(for: message, key: key))
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
