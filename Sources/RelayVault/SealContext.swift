/// What a sealed secret belongs to. It is the AES-GCM associated data of the seal and the
/// encryption context of its data key, so a sealed grant copied to another grant, user or purpose,
/// or replayed as another key version, does not open.
package struct SealContext: Sendable, Hashable {
    /// What the secret is for, e.g. `cloudkit-web-auth-token`.
    package var purpose: String
    /// The user ID (an HMAC of the Apple user record name, never the name itself).
    package var userId: String
    /// The grant the secret belongs to.
    package var grantId: String
    /// The generation of the grant's data key (1 for the first; a re-keyed grant counts up).
    package var keyVersion: Int

    /// A context from its parts.
    package init(purpose: String, userId: String, grantId: String, keyVersion: Int = 1) {
        self.purpose = purpose
        self.userId = userId
        self.grantId = grantId
        self.keyVersion = keyVersion
    }

    /// The context as key-service encryption context (KMS `EncryptionContext`).
    package var encryptionContext: EncryptionContext {
        ["purpose": purpose, "userId": userId, "grantId": grantId, "keyVersion": String(keyVersion)]
    }
}

/// A secret sealed under its grant's data key; safe to store in the grant (it opens only with the
/// data key, which the grant does not hold).
package struct SealedGrant: Sendable, Equatable, CustomStringConvertible {
    /// The envelope bytes.
    package let bytes: [UInt8]

    /// A sealed grant from stored bytes.
    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    package var description: String { "SealedGrant(\(bytes.count) bytes)" }
}

/// A grant's wrapped data key, sealed again under a key derived from one token; safe to store in
/// that token's record (it opens only with the token, which only the client holds).
package struct TokenBoundKey: Sendable, Equatable, CustomStringConvertible {
    /// The envelope bytes.
    package let bytes: [UInt8]

    /// A token-bound key from stored bytes.
    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    package var description: String { "TokenBoundKey(\(bytes.count) bytes)" }
}

/// The result of sealing: the grant's blob, and the wrapped data key to bind to the grant's first
/// token (or code) and then forget.
package struct Sealed: Sendable {
    /// Store this in the grant.
    package let grant: SealedGrant
    /// Bind this to a token with `Vault.bindToToken`; never store it as is.
    package let wrappedKey: WrappedKey
}

extension SealContext: CanonicalContext {
    /// `encryptionContext.writeCanonicalBytes(to:)`, byte for byte, without building the dictionary
    /// and sorting it: the names in UTF-8 order are grantId, keyVersion, purpose, userId. Every
    /// tool call opens and seals an envelope with this context.
    func writeCanonicalBytes(to output: inout [UInt8]) {
        output.reserveCapacity(output.count + 64 + grantId.utf8.count + purpose.utf8.count + userId.utf8.count)
        EncryptionContext.append("grantId", to: &output)
        EncryptionContext.append(grantId, to: &output)
        EncryptionContext.append("keyVersion", to: &output)
        EncryptionContext.append(String(keyVersion), to: &output)
        EncryptionContext.append("purpose", to: &output)
        EncryptionContext.append(purpose, to: &output)
        EncryptionContext.append("userId", to: &output)
        EncryptionContext.append(userId, to: &output)
    }
}
