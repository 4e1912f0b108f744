import RelayCrypto
import RelayHTTP

/// Proof Key for Code Exchange (RFC 7636), S256 only: `plain` lets anyone who sees the
/// authorization request redeem the code, so it is refused like any unknown method.
enum PKCE {
    /// Whether `challenge` is a well-formed S256 challenge: base64url of 32 bytes, 43 characters.
    static func isValidChallenge(_ challenge: String) -> Bool {
        challenge.utf8.count == 43 && Base64URL.decode(challenge)?.count == 32
    }

    /// Whether `verifier` is 43–128 characters of `[A-Z a-z 0-9 - . _ ~]` (RFC 7636 §4.1).
    static func isValidVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.utf8.count) && verifier.utf8.allSatisfy(PercentEncoding.isUnreserved)
    }

    /// Whether `verifier` is well formed and hashes to `challenge`, compared in constant time.
    static func verify(verifier: String, challenge: String) -> Bool {
        guard isValidVerifier(verifier) else { return false }
        return ConstantTime.equals(Base64URL.encode(SHA256.hash(verifier)), challenge)
    }

    /// The S256 challenge of a verifier (clients and tests).
    static func challenge(for verifier: String) -> String {
        Base64URL.encode(SHA256.hash(verifier))
    }
}
