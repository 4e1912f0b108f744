import Testing

@testable import RelayCrypto

/// Tokens, keys that hide their bytes, randomness and constant-time comparison.
struct SecretsTests {
    @Test func generatedTokensAreWellFormedAndDistinct() {
        var seen = Set<String>()
        for _ in 0..<500 {
            let token = PrefixedToken.generate(prefix: "mdr_at_")
            #expect(token.hasPrefix("mdr_at_"))
            #expect(token.utf8.count == 7 + 43 + 6)
            #expect(PrefixedToken.isWellFormed(token, prefix: "mdr_at_"))
            #expect(!PrefixedToken.isWellFormed(token, prefix: "mdr_rt_"), "the prefix is part of the check")
            seen.insert(token)
        }
        #expect(seen.count == 500)
    }

    @Test func malformedTokensAreRejected() {
        let token = PrefixedToken.generate(prefix: "mdr_rt_")
        let bytes = Array(token.utf8)
        var rejected: [String] = [
            "", "mdr_rt_", String(token.dropLast()), token + "A", "x" + token.dropFirst(),
            String(token.prefix(7)) + String(repeating: "A", count: 49), token.uppercased(),
            String(token.prefix(20)) + "+" + String(token.dropFirst(21)),
            String(token.prefix(20)) + "é" + String(token.dropFirst(22)),
        ]
        // Changing any single character of the body or checksum breaks the checksum (or the length).
        for index in 7..<bytes.count {
            var altered = bytes
            altered[index] = altered[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            rejected.append(String(decoding: altered, as: UTF8.self))
        }
        for candidate in rejected {
            #expect(!PrefixedToken.isWellFormed(candidate, prefix: "mdr_rt_"), "accepted \(candidate)")
        }
    }

    @Test func keysNeverPrintTheirBytes() {
        let key = SymmetricKey(bytes: Array("super-secret-key-material-000001".utf8))
        var dumped = ""
        dump(key, to: &dumped)
        for text in [key.description, key.debugDescription, "\(key)", String(reflecting: key), dumped] {
            #expect(!text.contains("super-secret"))
            #expect(!text.contains("115"), "no decimal byte values either")
        }
        #expect(key.description == "SymmetricKey(256 bits, redacted)")
    }

    @Test func keyEqualityAndRandomKeys() {
        let key = SymmetricKey.random()
        #expect(key.byteCount == 32)
        #expect(key == SymmetricKey(bytes: key.bytes))
        #expect(key != SymmetricKey.random())
        #expect(key.withUnsafeBytes { Array($0) } == key.bytes)
    }

    @Test func constantTimeEquality() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([], []))
        #expect(ConstantTime.equals("abc", "abc"))
        #expect(!ConstantTime.equals("abc", "abd"))
    }

    @Test func openSSLKeepsItsStateUntilTheProcessIsGone() {
        #expect(LibCrypto.initialized, "OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT) succeeded")
    }

    @Test func randomBytesDiffer() {
        #expect(SecureRandom.bytes(count: 0).isEmpty)
        let a = SecureRandom.bytes(count: 32)
        let b = SecureRandom.bytes(count: 32)
        #expect(a.count == 32 && a != b)
        // 4096 random bytes hit nearly every byte value; a stuck generator would not.
        #expect(Set(SecureRandom.bytes(count: 4096)).count > 240)
    }
}
