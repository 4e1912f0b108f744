import Testing

@testable import RelayOAuth

/// PKCE S256 (RFC 7636): the Appendix B vector, verifier and challenge shapes.
struct PKCETests {
    let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    @Test func appendixBVerifierMatchesItsChallenge() {
        #expect(PKCE.challenge(for: verifier) == challenge)
        #expect(PKCE.verify(verifier: verifier, challenge: challenge))
        #expect(PKCE.isValidChallenge(challenge))
    }

    @Test func wrongVerifierIsRefused() {
        var wrong = Array(verifier)
        wrong[10] = wrong[10] == "A" ? "B" : "A"
        #expect(!PKCE.verify(verifier: String(wrong), challenge: challenge))
    }

    @Test func verifierLengthBoundsAre43And128() {
        let short = String(repeating: "a", count: 42)
        let shortest = String(repeating: "a", count: 43)
        let longest = String(repeating: "a", count: 128)
        let long = String(repeating: "a", count: 129)
        #expect(!PKCE.isValidVerifier(short))
        #expect(PKCE.isValidVerifier(shortest))
        #expect(PKCE.isValidVerifier(longest))
        #expect(!PKCE.isValidVerifier(long))
        // A too-short verifier is refused even when its hash is the challenge.
        #expect(!PKCE.verify(verifier: short, challenge: PKCE.challenge(for: short)))
        #expect(!PKCE.verify(verifier: long, challenge: PKCE.challenge(for: long)))
    }

    @Test(arguments: ["+", "/", "=", " ", "%", "é", "\n"])
    func verifierWithBadCharactersIsRefused(character: String) {
        let bad = String(repeating: "a", count: 30) + character + String(repeating: "b", count: 20)
        #expect(!PKCE.isValidVerifier(bad))
        #expect(!PKCE.verify(verifier: bad, challenge: PKCE.challenge(for: bad)))
    }

    @Test func challengeMustBe43Base64URLCharactersOf32Bytes() {
        #expect(!PKCE.isValidChallenge(""))
        #expect(!PKCE.isValidChallenge(String(challenge.dropLast())))
        #expect(!PKCE.isValidChallenge(challenge + "A"))
        #expect(!PKCE.isValidChallenge(String(challenge.dropLast()) + "="))
        // A plain-method "challenge" (the verifier itself) is not an S256 challenge.
        #expect(!PKCE.isValidChallenge(String(repeating: "a", count: 50)))
    }
}
