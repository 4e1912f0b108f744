import RelayCrypto
import RelayStore

/// `mustdo-relayctl clients add`: a pre-registered client, for clients that accept only a pasted
/// client ID (and secret) — the Gemini app, Copilot Studio's manual mode, ChatGPT's user-defined
/// OAuth client.
extension OAuthAdmin {
    /// What `addClient` made: the client ID, and for a confidential client its secret, shown once
    /// (only its HMAC under a key derived from the user-ID key is stored, so it survives pepper
    /// rotations: `TokenHasher.preRegisteredSecretHash`).
    package struct AddedClient: Sendable, Equatable {
        package var id: String
        package var secret: String?
    }

    /// Stores a client with `redirectURIs` (each must be a safe redirect: the open mode's rules,
    /// `RedirectURIPolicy`), public (`none`) or confidential (`client_secret_post` or
    /// `client_secret_basic`, secret hashed under a key derived from `userIDKey`). It never expires and is shown as
    /// verified on the consent page. Throws `invalid_redirect_uri` or `invalid_client_metadata`.
    package func addClient(
        name: String?, redirectURIs: [String], method: String, userIDKey: SymmetricKey, now: Int
    ) async throws(OAuthError) -> AddedClient {
        let policy = RedirectURIPolicy(allowlist: RedirectAllowlist()!, maximumCount: 10, mode: .open)
        let uris: [String]
        switch policy.filter(redirectURIs) {
        case .success(let kept): uris = kept
        case .failure(let error): throw error
        }
        guard let authMethod = RegisteredClient.AuthMethod(rawValue: method) else {
            throw OAuthError(
                .invalidClientMetadata, "the method must be none, client_secret_post or client_secret_basic")
        }
        if let name, name.isEmpty || name.count > RegistrationPolicy.maximumNameLength || !DisplayText.isShowable(name)
        {
            throw OAuthError(.invalidClientMetadata, "the name must be a short single line of visible text")
        }
        // No dot: a dotted ID names a per-registration client of a shared record (`ClientRegistry`).
        let id = "pre-" + Base64URL.encode(SecureRandom.bytes(count: 16))
        var secret: String?
        var hash: [UInt8]?
        if authMethod.usesSecret {
            let value = "mdr_cs_" + Base64URL.encode(SecureRandom.bytes(count: 32))
            secret = value
            hash = TokenHasher.preRegisteredSecretHash(value, userIDKey: userIDKey)
        }
        let client = RegisteredClient(
            id: id, source: .registration, name: name, redirectURIs: uris, authMethod: authMethod,
            grantTypes: ["authorization_code", "refresh_token"], scope: nil, secretHash: hash,
            secretPepperVersion: nil, issuedAt: now, preRegistered: true)
        guard try await context.put(OAuthKeys.client(id), client.attributes, expiresAt: nil, condition: .absent) != nil
        else { throw OAuthError(.serverError, "A client identifier collided; try again.") }
        return AddedClient(id: id, secret: secret)
    }
}
