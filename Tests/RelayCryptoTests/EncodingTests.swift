import Testing

@testable import RelayCrypto

/// Base64url (RFC 4648 §10 vectors, URL alphabet, strict decoding) and PKCE S256 (RFC 7636 App. B).
struct EncodingTests {
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ])
    func rfc4648Vectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test func usesTheURLAlphabet() {
        #expect(Base64URL.encode([0xfb, 0xff, 0xbf]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xfb, 0xff, 0xbf])
    }

    @Test(arguments: ["Zg==", "Zm9v+", "Zm9v/", "Z", "Zh", "Zm9=", "Zm 9v", "Zm9v\n", "é"])
    func rejectsNonCanonicalInput(_ input: String) {
        #expect(Base64URL.decode(input) == nil)
    }

    @Test func roundTripsRandomBytes() {
        for length in 0..<70 {
            let bytes = SecureRandom.bytes(count: length)
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }

    /// RFC 7636 Appendix B: code_challenge = BASE64URL(SHA256(ASCII(code_verifier))).
    @Test func pkceS256AppendixB() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        #expect(Base64URL.encode(SHA256.hash(verifier)) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(
            Base64URL.decode(verifier)
                == [
                    116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77,
                    105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121,
                ])
    }
}
