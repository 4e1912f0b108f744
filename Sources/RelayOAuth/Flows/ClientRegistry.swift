import RelayCrypto
import RelayJSON
import RelayStore

/// Clients: DCR registration, lookup (DCR records and metadata documents), and client
/// authentication at `/token` and `/revoke` by the registered method, in constant time.
struct ClientRegistry: Sendable {
    let context: OAuthContext
    let documents: ClientMetadataResolver?

    var redirectPolicy: RedirectURIPolicy {
        RedirectURIPolicy(
            allowlist: context.configuration.redirectAllowlist, maximumCount: context.configuration.maximumRedirectURIs)
    }

    /// Stores a new client; returns it and, for secret-based methods, its secret (shown once).
    func register(_ request: RegistrationRequest) async throws(OAuthError) -> (RegisteredClient, String?) {
        let now = context.now
        var secret: String?
        var client = RegisteredClient(
            id: context.randomID(), source: .registration, name: request.name, redirectURIs: request.redirectURIs,
            authMethod: request.authMethod, grantTypes: request.grantTypes, scope: request.scope, secretHash: nil,
            secretPepperVersion: nil, issuedAt: now)
        if request.authMethod.usesSecret {
            let value = TokenKind.clientSecret.generate()
            let version = context.hasher.secrets.currentPepper.version
            client.secretHash = context.hasher.hash(value, version: version)
            client.secretPepperVersion = version
            secret = value
        }
        // Unused clients disappear: the expiry is cleared by the first successful token exchange.
        guard
            try await context.put(
                OAuthKeys.client(client.id), client.attributes,
                expiresAt: now + context.configuration.lifetimes.unusedClient, condition: .absent) != nil
        else { throw OAuthError(.serverError, "A client identifier collided.") }
        context.events(.clientRegistered(clientID: client.id))
        return (client, secret)
    }

    /// The client with this ID: a DCR record, or a metadata document (fetched or cached). nil when
    /// there is no such client; a document that cannot be fetched or is refused throws.
    func lookup(_ clientID: String, refetch: Bool = false) async throws(OAuthError) -> RegisteredClient? {
        if let documents,
            ClientMetadataPolicy.isDocumentURL(
                clientID, allowLoopback: context.configuration.allowsLoopbackMetadataDocuments)
        {
            return try await documents.client(for: clientID, refetch: refetch)
        }
        guard clientID.utf8.count <= 64 else { return nil }
        return try await context.get(OAuthKeys.client(clientID)).flatMap(RegisteredClient.init(item:))
    }

    /// The client a `/token` or `/revoke` request authenticated as. Unknown clients, a method other
    /// than the registered one, and a wrong secret are all `invalid_client` (401).
    func authenticate(_ credentials: PresentedCredentials) async throws(OAuthError) -> RegisteredClient {
        let client: RegisteredClient?
        do {
            client = try await lookup(credentials.clientID)
        } catch  where error.code == .invalidClient {
            throw PresentedCredentials.invalidClient(error.detail ?? "Unknown client.")
        }
        guard let client else {
            // The same work as a real check, so timing does not tell unknown clients apart.
            _ = context.hasher.hash(credentials.secret ?? "", version: context.hasher.secrets.currentPepper.version)
            throw PresentedCredentials.invalidClient("Unknown client; register again.")
        }
        let expected: PresentedCredentials.Method =
            switch client.authMethod {
            case .none: .none
            case .clientSecretPost: .post
            case .clientSecretBasic: .basic
            }
        guard credentials.method == expected else {
            throw PresentedCredentials.invalidClient("Authenticate with the method this client registered.")
        }
        if client.authMethod.usesSecret {
            guard let secret = credentials.secret, let stored = client.secretHash,
                let version = client.secretPepperVersion,
                let presented = context.hasher.hash(secret, version: version), ConstantTime.equals(presented, stored)
            else { throw PresentedCredentials.invalidClient("The client credentials are wrong.") }
        }
        return client
    }

    /// Keeps a DCR client for good once it has completed a token exchange.
    func markUsed(_ client: RegisteredClient) async {
        guard client.source == .registration else { return }
        _ = try? await context.update(
            OAuthKeys.client(client.id), ItemUpdate(set: ["used": .int(context.now)], expiresAt: .clear),
            condition: .exists)
    }
}

/// Resolves metadata-document client IDs through the fetcher, with a store-backed cache
/// (`CIMD#<sha256(url)>`) bounded by the document's cache headers and `metadataDocumentCache`.
struct ClientMetadataResolver: Sendable {
    let context: OAuthContext
    let fetcher: any ClientMetadataFetcher

    func client(for url: String, refetch: Bool) async throws(OAuthError) -> RegisteredClient {
        let key = OAuthKeys.metadataDocument(Base64URL.encode(SHA256.hash(url)))
        if !refetch, let item = try await context.get(key), let cached = RegisteredClient(cachedDocument: item),
            cached.id == url
        {
            return cached
        }
        let configuration = context.configuration
        let document: FetchedDocument
        do {
            document = try await fetcher.fetch(
                url, maximumBytes: ClientMetadataPolicy.maximumBytes, timeout: ClientMetadataPolicy.timeout)
        } catch {
            context.events(.metadataDocumentRefused(reason: "fetch failed"))
            throw OAuthError(.invalidClient, "The client metadata document could not be fetched.")
        }
        let policy = RedirectURIPolicy(
            allowlist: configuration.redirectAllowlist, maximumCount: configuration.maximumRedirectURIs)
        switch ClientMetadataPolicy.client(
            from: document, url: url, redirects: policy, supportedScopes: configuration.scopes, now: context.now)
        {
        case .failure(let error):
            _ = try await context.delete(key)
            context.events(.metadataDocumentRefused(reason: error.detail ?? ""))
            throw error
        case .success(let client):
            let seconds = ClientMetadataPolicy.cacheSeconds(
                document.headers, maximum: configuration.lifetimes.metadataDocumentCache)
            if seconds > 0 {
                var attributes = client.attributes
                attributes["url"] = .string(url)
                _ = try await context.put(key, attributes, expiresAt: context.now + seconds)
            }
            return client
        }
    }
}

extension RegisteredClient {
    /// A client from a cached metadata document item.
    init?(cachedDocument item: Item) {
        let a = item.attributes
        guard let url = a.string("url"), let uris = a.strings("redirect_uris"),
            let grantTypes = a.strings("grant_types"),
            let issued = a.int("issued")
        else { return nil }
        self.init(
            id: url, source: .metadataDocument, name: a.string("name"), redirectURIs: uris, authMethod: .none,
            grantTypes: grantTypes, scope: a.string("scope").map(ScopeSet.init(text:)), secretHash: nil,
            secretPepperVersion: nil, issuedAt: issued)
    }
}
