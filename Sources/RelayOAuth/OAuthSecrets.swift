import RelayCrypto

/// The server-side keys of the authorization server. None of them is ever stored in the store.
package struct OAuthSecrets: Sendable {
    /// A key that tokens, codes and secrets are hashed under, with its version number.
    package struct Pepper: Sendable {
        /// Stored beside every hash, so a lookup knows which pepper made it.
        package var version: Int
        /// The HMAC key (32 bytes or more).
        package var key: SymmetricKey

        /// A pepper.
        package init(version: Int, key: SymmetricKey) {
            self.version = version
            self.key = key
        }
    }

    /// The pepper new hashes are made with.
    package var currentPepper: Pepper
    /// The pepper before it, still tried on lookups during a rotation.
    package var previousPepper: Pepper?
    /// The key of `userID = HMAC-SHA256(userIDKey, userRecordName)`.
    package var userIDKey: SymmetricKey

    /// The secrets.
    package init(currentPepper: Pepper, previousPepper: Pepper? = nil, userIDKey: SymmetricKey) {
        self.currentPepper = currentPepper
        self.previousPepper = previousPepper
        self.userIDKey = userIDKey
    }

    /// Fresh random secrets (tests, and the throwaway demo).
    package static func random() -> OAuthSecrets {
        OAuthSecrets(currentPepper: Pepper(version: 1, key: .random()), userIDKey: .random())
    }
}

/// Keyed hashes of tokens and the derived user ID.
struct TokenHasher: Sendable {
    let secrets: OAuthSecrets

    /// The hash under the current pepper, and that pepper's version.
    func hash(_ token: String) -> (hash: String, version: Int) {
        (digest(token, secrets.currentPepper.key), secrets.currentPepper.version)
    }

    /// Hashes to look a presented token up under: current pepper first, then the previous one.
    func candidates(_ token: String) -> [String] {
        var hashes = [digest(token, secrets.currentPepper.key)]
        if let previous = secrets.previousPepper { hashes.append(digest(token, previous.key)) }
        return hashes
    }

    /// The hash under a given pepper version, or nil when that pepper is not configured anymore.
    func hash(_ value: String, version: Int) -> [UInt8]? {
        if version == secrets.currentPepper.version {
            return HMACSHA256.authenticationCode(for: value, key: secrets.currentPepper.key)
        }
        if let previous = secrets.previousPepper, previous.version == version {
            return HMACSHA256.authenticationCode(for: value, key: previous.key)
        }
        return nil
    }

    /// `HMAC-SHA256(userIDKey, userRecordName)`, base64url.
    func userID(recordName: String) -> String {
        Base64URL.encode(HMACSHA256.authenticationCode(for: recordName, key: secrets.userIDKey))
    }

    /// The secret of a confidential client whose registration shares a stored record
    /// (`<recordID>.<nonce>`): `mdr_cs_` + HMAC(pepper, "client-secret" ‖ 0 ‖ clientID), under the
    /// current pepper when issued. Each registration's ID is unique, so each secret is too
    /// (RFC 7591 §3.2.1), and nothing per registration needs storing.
    func clientSecret(clientID: String) -> String {
        derivedSecret(clientID, key: secrets.currentPepper.key)
    }

    /// Whether `presented` is the derived secret of `clientID` under the current or the previous
    /// pepper (so secrets survive one pepper rotation, as stored hashes do). Constant time per pepper.
    func isClientSecret(_ presented: String, clientID: String) -> Bool {
        var keys = [secrets.currentPepper.key]
        if let previous = secrets.previousPepper { keys.append(previous.key) }
        var matched = false
        for key in keys where ConstantTime.equals(Array(derivedSecret(clientID, key: key).utf8), Array(presented.utf8))
        {
            matched = true
        }
        return matched
    }

    private func derivedSecret(_ clientID: String, key: SymmetricKey) -> String {
        let mac = HMACSHA256.authenticationCode(for: "client-secret\u{0}" + clientID, key: key)
        return PrefixedToken.encode(prefix: TokenKind.clientSecret.rawValue, body: mac)
    }

    /// The stored hash of a pre-registered client's secret (`mustdo-relayctl clients add`):
    /// HMAC-SHA256 under a key derived from the user-ID key (HKDF, info `mdr client-secret`), not
    /// under the pepper. The user-ID key is never rotated (that would change every person's ID), so
    /// a pasted secret survives any number of pepper rotations, where a pepper hash died at the
    /// second (issue 41). The secret is 256 random bits, so the key is defence in depth (a copy of
    /// the store alone cannot even check a guess), not what keeps it from being guessed.
    static func preRegisteredSecretHash(_ secret: String, userIDKey: SymmetricKey) -> [UInt8] {
        // Cannot throw: 32 bytes is well inside HKDF's output range.
        let key = try! HKDF.deriveKey(
            inputKeyMaterial: userIDKey.withUnsafeBytes { Array($0) }, salt: [],
            info: Array("mdr client-secret".utf8))
        return HMACSHA256.authenticationCode(for: secret, key: key)
    }

    func preRegisteredSecretHash(_ secret: String) -> [UInt8] {
        Self.preRegisteredSecretHash(secret, userIDKey: secrets.userIDKey)
    }

    /// The key a rate-limit subject (a client address) is counted under in the store:
    /// `HMAC(pepper, limit ‖ 0 ‖ subject)`, 16 bytes in base64url, so no address is stored and one
    /// subject's counters for different limits are unrelated.
    func limitSubject(_ subject: String, limit: String) -> String {
        let mac = HMACSHA256.authenticationCode(
            for: "limit\u{0}" + limit + "\u{0}" + subject, key: secrets.currentPepper.key)
        return Base64URL.encode(Array(mac.prefix(16)))
    }

    /// A key for sealing values that only a holder of `token` may open, bound to this server's
    /// pepper (so a store copy plus the token is not enough without the server) and to `purpose`.
    func sealingKey(token: String, purpose: String) -> SymmetricKey {
        // Cannot throw: 32 bytes is well inside HKDF's output range.
        try! HKDF.deriveKey(
            inputKeyMaterial: Array(token.utf8), salt: pepperBytes, info: Array(("mdr " + purpose).utf8))
    }

    private var pepperBytes: [UInt8] {
        secrets.currentPepper.key.withUnsafeBytes { Array($0) }
    }

    private func digest(_ token: String, _ key: SymmetricKey) -> String {
        Base64URL.encode(HMACSHA256.authenticationCode(for: token, key: key))
    }
}

/// The kinds of secrets the server hands out; the prefix tells them apart at a glance (and to
/// secret scanners), the checksum lets garbage be refused before any store read.
enum TokenKind: String, Sendable, CaseIterable {
    case accessToken = "mdr_at_"
    case refreshToken = "mdr_rt_"
    case code = "mdr_ac_"
    case clientSecret = "mdr_cs_"

    /// A new random token of this kind (256 random bits).
    func generate() -> String { PrefixedToken.generate(prefix: rawValue) }

    /// Whether `token` is well formed for this kind; does no I/O.
    func accepts(_ token: String) -> Bool { PrefixedToken.isWellFormed(token, prefix: rawValue) }
}
