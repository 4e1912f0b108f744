import RelayCrypto
import RelayHTTP
import RelayJSON
import RelayStore

/// Clients: DCR registration, lookup (DCR records and metadata documents), and client
/// authentication at `/token` and `/revoke` by the registered method, in constant time.
///
/// Registration is built for platforms that register from their own servers, where one address
/// stands for thousands of people: every registration of the same metadata shares one stored
/// record (`RegistrationRequest.contentID`), so it costs one read and no storage, is never
/// counted against a limit, and always succeeds. RFC 7591 §3.2.1 allows exactly that: the server
/// "MAY issue the same client identifier to multiple instances of a registered client". A public
/// client gets the record's ID; a confidential one gets an ID of its own (`<recordID>.<nonce>`)
/// with a secret derived from that ID, because a client secret "MUST be unique for each
/// client_id" and "SHOULD be unique for multiple instances of a client using the same client_id".
/// Only metadata never seen before creates a record, and that is what the cap on unused clients
/// (`ClientCapacity`) counts. The per-address budget (`registrationRateLimit`) counts only
/// self-registered ones: a registration whose every redirect is a known platform's callback or an
/// operator's entry (`RedirectAllowlist.Entry`) is never refused, because platforms register
/// one client per connector from a few egress addresses (Copilot Studio, ChatGPT, claude.ai), and
/// what such a client can do is send a code to that platform. Each new client remembers who
/// registered it (`owner`, a keyed hash of the address block) until its first use, so past the
/// day's share of unused clients a flood pays with its own (`ClientCapacity+Eviction`).
struct ClientRegistry: Sendable {
    let context: OAuthContext
    let documents: ClientMetadataResolver?
    /// New records per client address.
    let newClients: SharedLimiter
    let capacity: ClientCapacity
    /// Addresses refused often enough to be refused from the head alone.
    let shedding: RegistrationShedding

    var redirectPolicy: RedirectURIPolicy {
        RedirectURIPolicy(
            allowlist: context.configuration.redirectAllowlist, maximumCount: context.configuration.maximumRedirectURIs,
            mode: context.configuration.registrationMode)
    }

    /// What a registration answers.
    struct Registration {
        var client: RegisteredClient
        /// For secret-based methods: the secret, shown once.
        var secret: String?
        /// Whether an existing record was reused.
        var reused: Bool
    }

    /// Registers `request` from `address` (already folded by `RateLimiter.key`; `block` is the same
    /// client as `RegistrationShedding` keys it, nil when unknown): the shared record of this
    /// metadata, created when it is new and the budgets allow.
    ///
    /// The record is written first (`put(.absent)`) and only then counted, so a burst of identical
    /// registrations (a platform's first minute) counts once: the others find the record, or lose
    /// the create and read it, and are answered from it. A record past a budget is deleted again
    /// before the refusal; a registration that read it in that moment got an ID that is gone, and
    /// re-registers when `/authorize` or `/token` says the client is unknown.
    func register(
        _ request: RegistrationRequest, address: String, block: AddressBlock?
    ) async throws(OAuthError) -> Registration {
        let recordID = request.contentID
        let key = OAuthKeys.client(recordID)
        let owner = owner(of: request, address: address)
        if let existing = try await reusable(key, request) { return await issue(existing, reused: true, by: owner) }
        // An address this instance knows to be over its budget costs no write.
        if !owner.platform, let wait = newClients.knownWait(address) { throw refuse(block, wait) }
        let now = context.now
        let window = now - now % ClientCapacity.window
        let expiry = now + context.configuration.lifetimes.unusedClient.wholeSeconds
        let client = RegisteredClient(
            id: recordID, source: .registration, name: request.name, redirectURIs: request.redirectURIs,
            authMethod: request.authMethod, grantTypes: request.grantTypes, scope: request.scope, secretHash: nil,
            secretPepperVersion: nil, issuedAt: now,
            stored: StoredClient(
                recordID: recordID, derivedSecret: request.authMethod.usesSecret, createdWindow: window, used: false,
                version: 1, expiresAt: expiry, owner: owner.key))
        // Unused clients disappear: the expiry is cleared by the first successful token exchange.
        guard try await context.put(key, client.attributes, expiresAt: expiry, condition: .absent) != nil else {
            // The same metadata was registered at the same moment: use that record.
            if let existing = try await reusable(key, request) { return await issue(existing, reused: true, by: owner) }
            throw OAuthError(.serverError, "A client identifier collided.")
        }
        if !owner.platform, let wait = try await newClients.count(address) {
            _ = try? await context.delete(key, condition: .versionEquals(1))
            throw refuse(block, wait)
        }
        switch try await capacity.admit(owner: owner) {
        case .success:
            try await capacity.indexCreated(recordID: recordID, issuedAt: now, expiresAt: expiry, owner: owner.key)
        case .failure(let wait):
            _ = try? await context.delete(key, condition: .versionEquals(1))
            context.events(.limitReached(limit: .unusedClients))
            throw OAuthError(
                .temporarilyUnavailable, "This server holds as many new clients as it can; try again later.",
                headers: ["Retry-After": String(wait.seconds)])
        }
        context.events(.clientRegistered(clientID: recordID))
        return await issue(client, reused: false, by: owner)
    }

    /// Who registers `request`: the address block's keyed hash (never the address), and whether
    /// every redirect URI is a known platform's callback or an operator's entry (not loopback,
    /// which any program may claim).
    func owner(of request: RegistrationRequest, address: String) -> ClientCapacity.Owner {
        let allowlist = context.configuration.redirectAllowlist
        let platform = request.redirectURIs.allSatisfy { uri in
            guard case .success(let parsed) = ParsedURI.parse(uri) else { return false }
            switch allowlist.entry(for: parsed) {
            case .platform?, .platformConnector?, .operatorEntry?: return true
            case .loopback?, nil: return false
            }
        }
        return ClientCapacity.Owner(key: context.hasher.limitSubject(address, limit: "owner"), platform: platform)
    }

    /// The 429 for new metadata from `block`, noted for `shedding`.
    private func refuse(_ block: AddressBlock?, _ wait: Int) -> OAuthError {
        if let block { shedding.refused(block, wait: wait, now: context.now) }
        return tooManyNewClients(wait)
    }

    /// The 429 for an address over its budget of new clients (counted in the limit's metric).
    func tooManyNewClients(_ wait: Int) -> OAuthError {
        context.events(.limitReached(limit: .registrationsPerAddress))
        return OAuthError(
            .tooManyRequests, "Too many new clients from this address; try again later.",
            headers: ["Retry-After": String(wait)])
    }

    /// The stored record of exactly this metadata, if there is one.
    private func reusable(_ key: ItemKey, _ request: RegistrationRequest) async throws(OAuthError) -> RegisteredClient?
    {
        guard let item = try await context.get(key), let client = RegisteredClient(item: item),
            let stored = client.stored, stored.derivedSecret == request.authMethod.usesSecret,
            client.redirectURIs == request.redirectURIs, client.authMethod == request.authMethod,
            client.grantTypes == request.grantTypes, client.name == request.name, client.scope == request.scope
        else { return nil }
        return client
    }

    /// The answer for one registration of `record`. An unused record that is reused after half
    /// its life is given a full life again (and counted in today's unused clients), so a client
    /// that registers and connects later does not find it gone.
    private func issue(_ record: RegisteredClient, reused: Bool, by owner: ClientCapacity.Owner) async -> Registration {
        var client = record
        if reused {
            context.events(.clientRegistrationReused(clientID: record.id))
            if let stored = record.stored { await renewIfAging(stored, issuedAt: record.issuedAt, by: owner) }
        }
        guard client.authMethod.usesSecret else { return Registration(client: client, secret: nil, reused: reused) }
        client.id = record.id + "." + context.randomID()
        client.issuedAt = context.now
        return Registration(client: client, secret: context.hasher.clientSecret(clientID: client.id), reused: reused)
    }

    private func renewIfAging(_ stored: StoredClient, issuedAt: Int, by owner: ClientCapacity.Owner) async {
        let lifetime = context.configuration.lifetimes.unusedClient.wholeSeconds
        guard !stored.used, let expiresAt = stored.expiresAt, expiresAt - context.now < lifetime / 2,
            case .success(let today)? = try? await capacity.admit(owner: owner)
        else { return }
        let update = ItemUpdate(set: ["cw": .int(today)], expiresAt: .set(context.now + lifetime))
        if (try? await context.update(
            OAuthKeys.client(stored.recordID), update, condition: .versionEquals(stored.version))) != nil,
            let created = stored.createdWindow
        {
            // Its eviction-index entry lives as long as it does.
            try? await capacity.indexCreated(
                recordID: stored.recordID, issuedAt: issuedAt, expiresAt: context.now + lifetime, owner: stored.owner)
            await capacity.clientUsed(createdIn: created)  // it left that day's unused clients
        } else {
            await capacity.clientUsed(createdIn: today)  // not renewed: take back today's count
        }
    }

    /// The client with this ID: a DCR record, or a metadata document (fetched or cached). nil when
    /// there is no such client; a document that cannot be fetched or is refused throws.
    func lookup(_ clientID: String, purpose: ClientMetadataResolver.Purpose = .authorize) async throws(OAuthError)
        -> RegisteredClient?
    {
        if let documents,
            ClientMetadataPolicy.isDocumentURL(
                clientID, allowLoopback: context.configuration.allowsLoopbackMetadataDocuments)
        {
            return try await documents.client(for: clientID, purpose: purpose)
        }
        guard clientID.utf8.count <= 64 else { return nil }
        let parts = clientID.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let recordID = String(parts[0])
        guard !recordID.isEmpty,
            var client = try await context.get(OAuthKeys.client(recordID)).flatMap(RegisteredClient.init(item:))
        else { return nil }
        let derived = client.stored?.derivedSecret == true
        if parts.count == 2 {
            // A per-registration ID names a record whose secrets are derived, with a nonce of ours.
            guard derived, parts[1].utf8.count == 22, Base64URL.decode(parts[1])?.count == 16 else { return nil }
            client.id = clientID
        } else if derived {
            return nil  // such a record is only ever used through per-registration IDs
        }
        return client
    }

    /// The client a `/token` or `/revoke` request authenticated as. Unknown clients, a method other
    /// than the registered one, and a wrong secret are all `invalid_client` (401).
    func authenticate(_ credentials: PresentedCredentials) async throws(OAuthError) -> RegisteredClient {
        let client: RegisteredClient?
        do {
            client = try await lookup(credentials.clientID, purpose: .token)
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
        if client.authMethod.usesSecret && !isSecretValid(credentials.secret, for: client) {
            throw PresentedCredentials.invalidClient("The client credentials are wrong.")
        }
        if client.preRegistered, client.secretPepperVersion != nil, let secret = credentials.secret {
            await reseal(client, secret: secret)
        }
        return client
    }

    private func isSecretValid(_ secret: String?, for client: RegisteredClient) -> Bool {
        guard let secret else { return false }
        if client.stored?.derivedSecret == true { return context.hasher.isClientSecret(secret, clientID: client.id) }
        guard let stored = client.secretHash else { return false }
        // No pepper version: a pre-registered client's secret, hashed under the user-ID key.
        guard let version = client.secretPepperVersion else {
            return client.preRegistered && ConstantTime.equals(context.hasher.preRegisteredSecretHash(secret), stored)
        }
        guard let presented = context.hasher.hash(secret, version: version) else { return false }
        return ConstantTime.equals(presented, stored)
    }

    /// A pre-registered client added before its secret was hashed under the user-ID key (a pepper
    /// hash, which the rotation after next would end) is hashed again the first time it proves its
    /// secret. Best effort: it is tried again next time.
    private func reseal(_ client: RegisteredClient, secret: String) async {
        guard let version = client.stored?.version else { return }
        _ = try? await context.update(
            OAuthKeys.client(client.id),
            ItemUpdate(set: ["secret": .bytes(context.hasher.preRegisteredSecretHash(secret))], remove: ["pv"]),
            condition: .versionEquals(version))
    }

    /// Keeps a DCR client for good once it has completed a token exchange, and records when it
    /// last did. The first one also counts the client as used for `ClientCapacity`.
    func markUsed(_ client: RegisteredClient) async {
        guard client.source == .registration, let stored = client.stored else { return }
        let key = OAuthKeys.client(stored.recordID)
        let now = context.now
        if !stored.used,
            (try? await context.update(
                key, ItemUpdate(set: ["used": .int(now)], remove: ["cw", "ow"], expiresAt: .clear),
                condition: .versionEquals(stored.version))) != nil
        {
            if let created = stored.createdWindow { await capacity.clientUsed(createdIn: created) }
            await capacity.indexUsed(recordID: stored.recordID, issuedAt: client.issuedAt, owner: stored.owner)
            return
        }
        _ = try? await context.update(key, ItemUpdate(set: ["used": .int(now)], expiresAt: .clear), condition: .exists)
    }
}
