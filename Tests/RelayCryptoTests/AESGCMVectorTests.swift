import Testing

@testable import RelayCrypto

/// AES-256-GCM pinned to published vectors: the GCM specification's test cases 13–16
/// (McGrew & Viega, used by NIST SP 800-38D validation) and Wycheproof `aes_gcm_test.json`.
struct AESGCMVectorTests {
    struct Vector: Sendable, CustomStringConvertible {
        let name: String
        let key: String
        let nonce: String
        let aad: String
        let plaintext: String
        let ciphertext: String
        let tag: String
        var description: String { name }
    }

    static let gcmSpecPlaintext =
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
        + "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
    static let gcmSpecCiphertext =
        "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
        + "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad"
    static let gcmSpecKey = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"

    static let vectors: [Vector] = [
        Vector(
            name: "GCM spec case 13 (empty)", key: String(repeating: "00", count: 32),
            nonce: String(repeating: "00", count: 12), aad: "", plaintext: "", ciphertext: "",
            tag: "530f8afbc74536b9a963b4f1c4cb738b"),
        Vector(
            name: "GCM spec case 14 (one zero block)", key: String(repeating: "00", count: 32),
            nonce: String(repeating: "00", count: 12), aad: "", plaintext: String(repeating: "00", count: 16),
            ciphertext: "cea7403d4d606b6e074ec5d3baf39d18", tag: "d0d1c8a799996bf0265b98b5d48ab919"),
        Vector(
            name: "GCM spec case 15 (four blocks)", key: gcmSpecKey, nonce: "cafebabefacedbaddecaf888", aad: "",
            plaintext: gcmSpecPlaintext, ciphertext: gcmSpecCiphertext, tag: "b094dac5d93471bdec1a502270e3cc6c"),
        Vector(
            name: "GCM spec case 16 (AAD, partial block)", key: gcmSpecKey, nonce: "cafebabefacedbaddecaf888",
            aad: "feedfacedeadbeeffeedfacedeadbeefabaddad2", plaintext: String(gcmSpecPlaintext.dropLast(8)),
            ciphertext: String(gcmSpecCiphertext.dropLast(8)), tag: "76fc6ece0f4e1768cddf8853bb2d551b"),
        Vector(
            name: "Wycheproof tcId 91 (AAD)", key: "92ace3e348cd821092cd921aa3546374299ab46209691bc28b8752d17f123c20",
            nonce: "00112233445566778899aabb", aad: "00000000ffffffff", plaintext: "00010203040506070809",
            ciphertext: "e27abdd2d2a53d2f136b", tag: "9a4a2579529301bcfb71c78d4060f52c"),
        Vector(
            name: "Wycheproof tcId 92 (AAD only)",
            key: "29d3a44f8723dc640239100c365423a312934ac80239212ac3df3421a2098123",
            nonce: "00112233445566778899aabb", aad: "aabbccddeeff", plaintext: "", ciphertext: "",
            tag: "2a7d77fa526b8250cb296078926b5020"),
        Vector(
            name: "Wycheproof tcId 94 (one byte)",
            key: "cc56b680552eb75008f5484b4cb803fa5063ebd6eab91f6ab6aef4916a766273",
            nonce: "99e23ec48985bccdeeab60f1", aad: "", plaintext: "2a", ciphertext: "06",
            tag: "633c1e9703ef744ffffb40edf9d14355"),
    ]

    @Test(arguments: vectors)
    func sealMatchesVector(_ vector: Vector) throws {
        let key = SymmetricKey(bytes: hex(vector.key))
        let sealed = try AES256GCM.seal(
            hex(vector.plaintext), key: key, nonce: hex(vector.nonce), authenticatedData: hex(vector.aad))
        #expect(hexString(sealed.ciphertext) == vector.ciphertext)
        #expect(hexString(sealed.tag) == vector.tag)
    }

    @Test(arguments: vectors)
    func openMatchesVector(_ vector: Vector) throws {
        let key = SymmetricKey(bytes: hex(vector.key))
        let box = hex(vector.nonce) + hex(vector.ciphertext) + hex(vector.tag)
        let opened = try AES256GCM.open(box, key: key, authenticatedData: hex(vector.aad))
        #expect(hexString(opened) == vector.plaintext)
    }

    /// Wycheproof's "modified tag" and "modified AAD" invalid cases, applied to each valid vector:
    /// every single-bit change must fail authentication.
    @Test(arguments: vectors)
    func alteredBoxesFailAuthentication(_ vector: Vector) throws {
        let key = SymmetricKey(bytes: hex(vector.key))
        let box = hex(vector.nonce) + hex(vector.ciphertext) + hex(vector.tag)
        let aad = hex(vector.aad)
        for index in box.indices {
            for bit in [0, 7] {
                #expect(throws: CryptoError.authenticationFailed) {
                    try AES256GCM.open(box.flipping(bit: bit, ofByte: index), key: key, authenticatedData: aad)
                }
            }
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try AES256GCM.open(box, key: key, authenticatedData: aad + [0])
        }
        if !aad.isEmpty {
            #expect(throws: CryptoError.authenticationFailed) {
                try AES256GCM.open(box, key: key, authenticatedData: aad.flipping(bit: 0, ofByte: 0))
            }
            #expect(throws: CryptoError.authenticationFailed) { try AES256GCM.open(box, key: key) }
        }
        let otherKey = SymmetricKey(bytes: hex(vector.key).flipping(bit: 3, ofByte: 31))
        #expect(throws: CryptoError.authenticationFailed) {
            try AES256GCM.open(box, key: otherKey, authenticatedData: aad)
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try AES256GCM.open(Array(box.dropLast()), key: key, authenticatedData: aad)
        }
    }
}

struct AESGCMBehaviourTests {
    @Test(arguments: [0, 1, 15, 16, 17, 1000])
    func roundTripsWithRandomNonces(length: Int) throws {
        let key = SymmetricKey.random()
        let plaintext = SecureRandom.bytes(count: length)
        let aad = Array("purpose|user|grant|1".utf8)
        let first = try AES256GCM.seal(plaintext, key: key, authenticatedData: aad)
        let second = try AES256GCM.seal(plaintext, key: key, authenticatedData: aad)
        #expect(first.count == length + AES256GCM.overhead)
        #expect(first.prefix(12) != second.prefix(12), "each seal draws a fresh nonce")
        #expect(try AES256GCM.open(first, key: key, authenticatedData: aad) == plaintext)
        #expect(try AES256GCM.open(second, key: key, authenticatedData: aad) == plaintext)
    }

    /// Each thread reuses one cipher context: an operation must carry nothing into the next, whatever
    /// the key, the direction, or how the previous one ended (a failed tag check, a wrong key).
    @Test func operationsOnOneThreadAreIndependent() throws {
        for _ in 0..<3 {
            for vector in AESGCMVectorTests.vectors {
                let key = SymmetricKey(bytes: hex(vector.key))
                let box = hex(vector.nonce) + hex(vector.ciphertext) + hex(vector.tag)
                #expect(throws: CryptoError.authenticationFailed) {
                    try AES256GCM.open(
                        box.flipping(bit: 0, ofByte: box.count - 1), key: key,
                        authenticatedData: hex(vector.aad))
                }
                let sealed = try AES256GCM.seal(
                    hex(vector.plaintext), key: key, nonce: hex(vector.nonce), authenticatedData: hex(vector.aad))
                #expect(hexString(sealed.ciphertext) == vector.ciphertext)
                #expect(hexString(sealed.tag) == vector.tag)
                #expect(throws: CryptoError.authenticationFailed) {
                    try AES256GCM.open(box, key: SymmetricKey.random(), authenticatedData: hex(vector.aad))
                }
                #expect(
                    hexString(try AES256GCM.open(box, key: key, authenticatedData: hex(vector.aad))) == vector.plaintext
                )
            }
        }
    }

    /// A prefix is written before the box, and a box read in place from a slice opens.
    @Test func sealsAfterAPrefixAndOpensASlice() throws {
        let key = SymmetricKey.random()
        let sealed = try AES256GCM.seal(Array("secret".utf8), key: key, authenticatedData: [9], prefix: [1, 2, 3])
        #expect(sealed.count == 3 + 6 + AES256GCM.overhead)
        #expect(Array(sealed.prefix(3)) == [1, 2, 3])
        #expect(try AES256GCM.open(sealed[3...], key: key, authenticatedData: [9]) == Array("secret".utf8))
        #expect(throws: CryptoError.authenticationFailed) {
            try AES256GCM.open(sealed[2...], key: key, authenticatedData: [9])
        }
    }

    @Test func rejectsWrongKeySizesAndShortBoxes() throws {
        #expect(throws: CryptoError.invalidKeySize(expected: 32, actual: 16)) {
            try AES256GCM.seal([1, 2, 3], key: SymmetricKey(bytes: [UInt8](repeating: 1, count: 16)))
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try AES256GCM.open([UInt8](repeating: 0, count: 27), key: SymmetricKey.random())
        }
        #expect(throws: CryptoError.authenticationFailed) { try AES256GCM.open([], key: SymmetricKey.random()) }
    }
}
