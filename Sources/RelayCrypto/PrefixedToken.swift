/// Bearer-style secrets: `prefix ‖ base64url(32 random bytes) ‖ checksum`, where the checksum is
/// base64url of the first 4 bytes of SHA-256(prefix ‖ body), 6 characters.
///
/// The prefix makes a leaked token recognisable to secret scanners and tells token kinds apart;
/// the checksum lets a server reject typos and garbage without touching its store. The checksum is
/// not a secret and adds no security: the 256 random bits do that.
package enum PrefixedToken {
    /// Random bytes per token.
    package static let randomByteCount = 32
    /// Characters of the encoded random part.
    package static let bodyLength = 43
    /// Characters of the checksum.
    package static let checksumLength = 6

    /// A new token with `prefix` (lowercase ASCII letters, digits and `_`, e.g. `mdr_at_`).
    package static func generate(prefix: String) -> String {
        precondition(isValidPrefix(prefix), "token prefixes are lowercase ASCII letters, digits and _")
        let body = Base64URL.encode(SecureRandom.bytes(count: randomByteCount))
        return prefix + body + checksum(prefix: prefix, body: body)
    }

    /// The token with `prefix` whose body is `bytes` (exactly `randomByteCount` of them): for a
    /// secret derived from a key rather than drawn at random, in the same shape.
    package static func encode(prefix: String, body bytes: [UInt8]) -> String {
        precondition(isValidPrefix(prefix), "token prefixes are lowercase ASCII letters, digits and _")
        precondition(bytes.count == randomByteCount, "a token body is \(randomByteCount) bytes")
        let body = Base64URL.encode(bytes)
        return prefix + body + checksum(prefix: prefix, body: body)
    }

    /// Whether `token` has this prefix, the exact length, only base64url characters and a matching
    /// checksum. Costs one SHA-256 of about 50 bytes; does no I/O.
    package static func isWellFormed(_ token: String, prefix: String) -> Bool {
        let bytes = Array(token.utf8)
        let prefixBytes = Array(prefix.utf8)
        guard bytes.count == prefixBytes.count + bodyLength + checksumLength,
            bytes.starts(with: prefixBytes)
        else { return false }
        let body = bytes[prefixBytes.count..<(prefixBytes.count + bodyLength)]
        let sum = bytes[(prefixBytes.count + bodyLength)...]
        guard let decoded = Base64URL.decode(String(decoding: body, as: UTF8.self)),
            decoded.count == randomByteCount
        else { return false }
        let expected = checksum(prefix: prefix, body: String(decoding: body, as: UTF8.self))
        return ConstantTime.equals(Array(sum), Array(expected.utf8))
    }

    private static func checksum(prefix: String, body: String) -> String {
        Base64URL.encode(Array(SHA256.hash(prefix + body).prefix(4)))
    }

    private static func isValidPrefix(_ prefix: String) -> Bool {
        !prefix.isEmpty
            && prefix.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
    }
}
