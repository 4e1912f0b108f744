import Testing

@testable import RelayCrypto

/// SHA-256 (FIPS 180-4 examples), HMAC-SHA256 (RFC 4231 §4) and HKDF-SHA256 (RFC 5869 App. A).
struct DigestVectorTests {
    @Test func sha256KnownAnswers() {
        #expect(hexString(SHA256.hash("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hexString(SHA256.hash("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            hexString(SHA256.hash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    /// The inline digest (no arrays) gives the same bytes, for small, empty and long strings, and
    /// equal inputs give equal (hashable) digests.
    @Test func inlineDigestMatchesTheKnownAnswers() {
        #expect(hexString(SHA256.digest(of: "abc").bytes) == hexString(SHA256.hash("abc")))
        #expect(
            hexString(SHA256.digest(of: "").bytes)
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let long = String(repeating: "mdr_at_0123456789", count: 20)
        #expect(SHA256.digest(of: long).bytes == SHA256.hash(long))
        #expect(SHA256.digest(of: long) == SHA256.digest(of: String(long.reversed().reversed())))
        #expect(SHA256.digest(of: long) != SHA256.digest(of: long + "x"))
        #expect(Set([SHA256.digest(of: "a"), SHA256.digest(of: "a"), SHA256.digest(of: "b")]).count == 2)
    }

    struct HMACVector: Sendable, CustomStringConvertible {
        let testCase: Int
        let key: [UInt8]
        let data: [UInt8]
        let mac: String
        var description: String { "RFC 4231 case \(testCase)" }
    }

    static let longKey = [UInt8](repeating: 0xaa, count: 131)
    static let hmacVectors: [HMACVector] = [
        HMACVector(
            testCase: 1, key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8),
            mac: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        HMACVector(
            testCase: 2, key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
            mac: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        HMACVector(
            testCase: 3, key: [UInt8](repeating: 0xaa, count: 20), data: [UInt8](repeating: 0xdd, count: 50),
            mac: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        HMACVector(
            testCase: 4, key: Array(1...25), data: [UInt8](repeating: 0xcd, count: 50),
            mac: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        HMACVector(
            testCase: 6, key: longKey, data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            mac: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        HMACVector(
            testCase: 7, key: longKey,
            data: Array(
                ("This is a test using a larger than block-size key and a larger than block-size data. "
                    + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
            mac: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test(arguments: hmacVectors)
    func hmacMatchesRFC4231(_ vector: HMACVector) {
        let key = SymmetricKey(bytes: vector.key)
        let mac = HMACSHA256.authenticationCode(for: vector.data, key: key)
        #expect(hexString(mac) == vector.mac)
        // The inline form (for text messages) gives the same bytes.
        if let text = String(validating: vector.data, as: UTF8.self) {
            #expect(hexString(HMACSHA256.digest(of: text, key: key).bytes) == vector.mac)
        }
    }

    /// The key-length edges RFC 4231 does not cover (HMAC is computed on the stack, so the block-size
    /// padding and the hash-first rule are the relay's own code): a key of exactly one block, one byte
    /// over, an empty key and an empty message. Expected values from Python's `hmac` module.
    @Test func hmacKeyLengthEdges() {
        let cases: [(key: [UInt8], data: String, mac: String)] = [
            (Array(0..<64), "block-size key", "1dad230598e011a4e4eabc6c8da8f55ef9a66a8881d1e16e23ea116ae28231ec"),
            (Array(0..<65), "one byte over", "7976cbe447626e8a15d29bfb1be8013183eeb7eaf238015fad48df1727a76f2b"),
            ([], "", "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"),
            ([], "empty key", "bf6e6a0f34cd9fdf69c67b8c62969c87cd4f783d4665217df03f062dc4a0406e"),
            (Array("k".utf8), "", "8bb990c40a7d61cb97597a942125025be50ac8beb74436e3735b98893a7f6620"),
        ]
        for (key, data, mac) in cases {
            #expect(hexString(HMACSHA256.authenticationCode(for: data, key: SymmetricKey(bytes: key))) == mac)
        }
    }

    /// RFC 4231 case 5 checks a tag truncated to 128 bits.
    @Test func hmacTruncatedCase5() {
        let mac = HMACSHA256.authenticationCode(
            for: Array("Test With Truncation".utf8), key: SymmetricKey(bytes: [UInt8](repeating: 0x0c, count: 20)))
        #expect(hexString(Array(mac.prefix(16))) == "a3b6167473100ee06e0c796c2955552b")
    }

    struct HKDFVector: Sendable, CustomStringConvertible {
        let testCase: Int
        let ikm: [UInt8]
        let salt: [UInt8]
        let info: [UInt8]
        let okm: String
        var description: String { "RFC 5869 case \(testCase)" }
    }

    static let hkdfVectors: [HKDFVector] = [
        HKDFVector(
            testCase: 1, ikm: [UInt8](repeating: 0x0b, count: 22), salt: Array(0x00...0x0c), info: Array(0xf0...0xf9),
            okm: "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"),
        HKDFVector(
            testCase: 2, ikm: Array(0x00...0x4f), salt: Array(0x60...0xaf), info: Array(0xb0...0xff),
            okm: "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
                + "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
                + "cc30c58179ec3e87c14c01d5c1f3434f1d87"),
        HKDFVector(
            testCase: 3, ikm: [UInt8](repeating: 0x0b, count: 22), salt: [], info: [],
            okm: "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"),
    ]

    @Test(arguments: hkdfVectors)
    func hkdfMatchesRFC5869(_ vector: HKDFVector) throws {
        let okm = try HKDF.deriveKey(
            inputKeyMaterial: vector.ikm, salt: vector.salt, info: vector.info, outputByteCount: vector.okm.count / 2)
        #expect(hexString(okm.bytes) == vector.okm)
    }

    @Test func hkdfRejectsImpossibleLengths() {
        #expect(throws: CryptoError.self) {
            try HKDF.deriveKey(inputKeyMaterial: [1], salt: [], info: [], outputByteCount: 0)
        }
        #expect(throws: CryptoError.self) {
            try HKDF.deriveKey(inputKeyMaterial: [1], salt: [], info: [], outputByteCount: 255 * 32 + 1)
        }
        #expect((try? HKDF.deriveKey(inputKeyMaterial: [1], salt: [], info: [], outputByteCount: 255 * 32)) != nil)
    }
}
