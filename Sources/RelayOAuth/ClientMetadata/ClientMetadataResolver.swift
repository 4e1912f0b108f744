import RelayCrypto
import RelayHTTP
import RelayJSON
import RelayStore

/// Resolves metadata-document client IDs through the fetcher, with a store-backed cache
/// (`CIMD#<sha256(url)>`) that follows the document's cache headers within bounds
/// (`ClientMetadataPolicy.cacheLifetime`), so that a vendor's document host that fails never ends
/// a connection and never holds up a new one while a recent copy exists:
///
/// - **fresh copy**: used as is; in the last tenth of its freshness it is refreshed in the
///   background, so a document in use rarely goes stale at all;
/// - **stale copy** (past its freshness, within its `stale-if-error` time): fetched again, and the
///   request waits at most `staleWait` for it; if the host fails or is slower than that, the stale
///   copy is used (RFC 5861 §4) and the fetch goes on in the background, and a failed host is not
///   asked again for a while (`DocumentFetches` back-off);
/// - **no copy**: fetched, waiting for it (up to the fetch timeout) at `/authorize`, where the
///   document's redirect URIs are needed; at `/token` and `/revoke` a host that fails within
///   `staleWait` leaves the client what every document client is here, a public client with the
///   code and refresh grants (`unavailableDocumentClient`): its code or refresh token is the
///   credential and is bound to its client ID, which is all that `/token` checks.
///
/// Fetches are single-flight per URL in each process. A document that is gone (404, 410) or that
/// the rules refuse ends the cached copy at once: only a failing host is papered over.
struct ClientMetadataResolver: Sendable {
    /// Why a client is looked up.
    enum Purpose: Sendable, Equatable {
        /// `/authorize` and the consent page: the document's redirect URIs and name are needed.
        case authorize
        /// `/authorize` again, because the cached copy lacks the redirect URI asked for.
        case refetch
        /// `/token` and `/revoke`: only the client's ID and grants matter.
        case token
    }

    let context: OAuthContext
    let fetcher: any ClientMetadataFetcher
    let fetches: DocumentFetches

    /// How long a request with a stale copy (or at `/token`) waits for a fetch before going on without it.
    static let staleWait = Duration.seconds(1)

    func client(for url: String, purpose: Purpose) async throws(OAuthError) -> RegisteredClient {
        let key = OAuthKeys.metadataDocument(Base64URL.encode(SHA256.hash(url)))
        let now = context.now
        let cached = try await context.get(key).flatMap(CachedDocument.init(item:)).flatMap {
            $0.client.id == url ? $0 : nil
        }
        if let cached, purpose != .refetch, now < cached.freshUntil {
            if now >= cached.refreshFrom, !fetches.isBackingOff(url, now: now) {
                _ = fetches.join(url) { await fetch(url, key: key) }
            }
            return cached.client
        }
        if let cached, fetches.isBackingOff(url, now: now) {
            context.events(.metadataDocumentStale(reason: "host failing, backing off"))
            return cached.client
        }
        let task = fetches.join(url) { await fetch(url, key: key) }
        // A person asking for a redirect URI the copy lacks waits for the whole fetch.
        let wait: Duration? = purpose != .refetch && (cached != nil || purpose == .token) ? Self.staleWait : nil
        switch await DocumentFetches.outcome(of: task, within: wait) {
        case .loaded(let client)?:
            return client
        case .refused(let error)?:
            throw error
        case .unavailable?, nil:
            if let cached {
                context.events(.metadataDocumentStale(reason: "host failed or slow"))
                return cached.client
            }
            if purpose == .token {
                context.events(.metadataDocumentStale(reason: "host failed or slow, no copy: public client"))
                return Self.unavailableDocumentClient(url, now: now)
            }
            throw OAuthError(.invalidClient, "The client metadata document could not be fetched.")
        }
    }

    /// A document client whose document cannot be loaded now, as `/token` treats it.
    static func unavailableDocumentClient(_ url: String, now: Int) -> RegisteredClient {
        RegisteredClient(
            id: url, source: .metadataDocument, name: nil, redirectURIs: [], authMethod: .none,
            grantTypes: ["authorization_code", "refresh_token"], scope: nil, secretHash: nil,
            secretPepperVersion: nil, issuedAt: now)
    }

    /// One fetch: validates the answer and updates the cache. Runs in its own task (`DocumentFetches`).
    private func fetch(_ url: String, key: ItemKey) async -> DocumentFetches.Outcome {
        let outcome = await load(url, key: key)
        fetches.record(outcome, for: url, now: context.now)
        return outcome
    }

    private func load(_ url: String, key: ItemKey) async -> DocumentFetches.Outcome {
        let configuration = context.configuration
        let document: FetchedDocument
        do {
            document = try await fetcher.fetch(
                url, maximumBytes: ClientMetadataPolicy.maximumBytes, timeout: ClientMetadataPolicy.timeout)
        } catch {
            context.events(.metadataDocumentRefused(reason: "fetch failed"))
            return .unavailable
        }
        if ClientMetadataPolicy.isPassingFailure(document) {
            context.events(
                .metadataDocumentRefused(reason: "the host answered HTTP \(document.status) without a document"))
            return .unavailable
        }
        let policy = RedirectURIPolicy(
            allowlist: configuration.redirectAllowlist, maximumCount: configuration.maximumRedirectURIs,
            mode: configuration.registrationMode)
        let now = context.now
        switch ClientMetadataPolicy.client(
            from: document, url: url, redirects: policy, supportedScopes: configuration.scopes, now: now)
        {
        case .failure(let error):
            _ = try? await context.delete(key)
            context.events(.metadataDocumentRefused(reason: error.detail ?? ""))
            return .refused(error)
        case .success(let client):
            let lifetime = ClientMetadataPolicy.cacheLifetime(
                document.headers, maximumFresh: configuration.lifetimes.metadataDocumentCache.wholeSeconds,
                maximumStale: configuration.lifetimes.metadataDocumentStaleIfError.wholeSeconds)
            if lifetime.fresh + lifetime.stale > 0 {
                let cached = CachedDocument(client: client, fetchedAt: now, freshUntil: now + lifetime.fresh)
                // A store failure only costs the cache: the request still gets the document.
                _ = try? await context.put(key, cached.attributes, expiresAt: now + lifetime.fresh + lifetime.stale)
            } else {
                _ = try? await context.delete(key)
            }
            return .loaded(client)
        }
    }
}

/// `CIMD#<sha256(url)>` / `META`: a validated client metadata document (never its raw bytes),
/// fresh until `fresh`, usable while its host fails until the item expires.
struct CachedDocument: Sendable {
    var client: RegisteredClient
    var fetchedAt: Int
    var freshUntil: Int

    /// When a background refresh starts: the last tenth of the freshness.
    var refreshFrom: Int { freshUntil - max(1, (freshUntil - fetchedAt) / 10) }

    init(client: RegisteredClient, fetchedAt: Int, freshUntil: Int) {
        self.client = client
        self.fetchedAt = fetchedAt
        self.freshUntil = freshUntil
    }

    init?(item: Item) {
        let a = item.attributes
        guard let url = a.string("url"), let uris = a.strings("redirect_uris"),
            let grantTypes = a.strings("grant_types"),
            let issued = a.int("issued")
        else { return nil }
        client = RegisteredClient(
            id: url, source: .metadataDocument, name: a.string("name"), redirectURIs: uris, authMethod: .none,
            grantTypes: grantTypes, scope: a.string("scope").map(ScopeSet.init(text:)), secretHash: nil,
            secretPepperVersion: nil, issuedAt: issued)
        fetchedAt = issued
        // Copies cached before stale-if-error have no `fresh`: they were fresh until they expired.
        freshUntil = a.int("fresh") ?? item.expiresAt ?? issued
    }

    var attributes: JSONObject {
        var attributes = client.attributes
        attributes["url"] = .string(client.id)
        attributes["fresh"] = .int(freshUntil)
        return attributes
    }
}
