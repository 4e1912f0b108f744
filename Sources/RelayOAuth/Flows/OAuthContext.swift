import RelayCrypto
import RelayJSON
import RelayStore
import RelaySync

/// What every flow shares: settings, the store (with store failures already turned into OAuth
/// errors), hashing, token binding, the clock and the audit hook.
struct OAuthContext: Sendable {
    let configuration: OAuthConfiguration
    let store: any Store
    let hasher: TokenHasher
    let binder: any TokenBinder
    let clock: any WallClock
    let events: @Sendable (OAuthEvent) -> Void

    /// Now, in whole seconds since the epoch.
    var now: Int { clock.epochSeconds() }

    /// A fresh random identifier (128 bits, base64url).
    func randomID() -> String { Base64URL.encode(SecureRandom.bytes(count: 16)) }

    // MARK: store access: a failed condition is an answer (nil), anything else a retryable error.

    func get(_ key: ItemKey) async throws(OAuthError) -> Item? {
        do { return try await store.get(key) } catch { throw mapped(error) }
    }

    /// nil when the condition failed.
    func put(
        _ key: ItemKey, _ attributes: JSONObject, expiresAt: Int?, condition: WriteCondition = .none
    ) async throws(OAuthError) -> Item? {
        do {
            return try await store.put(key, attributes: attributes, expiresAt: expiresAt, condition: condition)
        } catch .conditionFailed {
            return nil
        } catch {
            throw mapped(error)
        }
    }

    /// nil when the condition failed or the item is gone.
    func update(_ key: ItemKey, _ update: ItemUpdate, condition: WriteCondition = .none) async throws(OAuthError)
        -> Item?
    {
        do {
            return try await store.update(key, update, condition: condition)
        } catch .conditionFailed {
            return nil
        } catch {
            throw mapped(error)
        }
    }

    /// Every write or none (`Store.transact`); false when a condition failed and nothing was written.
    func transact(_ writes: [StoreWrite]) async throws(OAuthError) -> Bool {
        do {
            try await store.transact(writes)
            return true
        } catch .conditionFailed {
            return false
        } catch {
            throw mapped(error)
        }
    }

    /// The deleted item; nil when nothing live was there or the condition failed.
    func delete(_ key: ItemKey, condition: WriteCondition = .none) async throws(OAuthError) -> Item? {
        do {
            return try await store.delete(key, condition: condition)
        } catch .conditionFailed {
            return nil
        } catch {
            throw mapped(error)
        }
    }

    /// Adds one to the counter item at `key` and returns the new count (its version): one
    /// conditional write, two for a counter that does not exist yet (`SharedLimiter`).
    func increment(_ key: ItemKey, expiresAt: Int) async throws(OAuthError) -> Int {
        do throws(StoreError) {
            for _ in 0..<4 {
                do throws(StoreError) {
                    return try await store.update(key, ItemUpdate(), condition: .exists).version
                } catch .conditionFailed {}
                do throws(StoreError) {
                    return try await store.put(key, attributes: [:], expiresAt: expiresAt, condition: .absent).version
                } catch .conditionFailed {}
            }
            // Created and expired four times over between two calls: only a clock far off does that.
            throw StoreError.unavailable("a counter kept appearing and disappearing")
        } catch {
            throw mapped(error)
        }
    }

    /// The count of the counter item at `key` (0 when there is none).
    func counterValue(_ key: ItemKey) async throws(OAuthError) -> Int {
        try await get(key)?.version ?? 0
    }

    /// One page of `query`.
    func query(_ query: Query) async throws(OAuthError) -> [Item] {
        do { return try await store.query(query).items } catch { throw mapped(error) }
    }

    func queryAll(_ query: Query) async throws(OAuthError) -> [Item] {
        do { return try await store.queryAll(query) } catch { throw mapped(error) }
    }

    /// The first live item among `hashes` (current pepper first), with the hash that found it.
    func find(_ hashes: [String], key: (String) -> ItemKey) async throws(OAuthError) -> (Item, String)? {
        for hash in hashes {
            if let item = try await get(key(hash)) { return (item, hash) }
        }
        return nil
    }

    /// Calls the token binder; a binding that does not open is a server-side failure.
    func bind(_ secret: GrantSecret, to token: String, grant: GrantContext) throws(OAuthError) -> [UInt8] {
        do { return try binder.bind(secret, to: token, grant: grant) } catch {
            events(.failure("token binding failed"))
            throw OAuthError(.serverError, "The grant could not be bound to a token.")
        }
    }

    func unbind(_ bound: [UInt8], token: String, grant: GrantContext) throws(OAuthError) -> GrantSecret {
        do { return try binder.unbind(bound, token: token, grant: grant) } catch {
            events(.failure("token unbinding failed"))
            throw OAuthError(.invalidGrant, "The grant cannot be opened with this token.")
        }
    }

    private func mapped(_ error: StoreError) -> OAuthError {
        events(.failure("store: \(error)"))
        return .storeUnavailable
    }
}

/// Audit events: what happened, never with a token, code, secret or address.
package enum OAuthEvent: Sendable, Equatable {
    /// A registration stored a new client record.
    case clientRegistered(clientID: String)
    /// A registration matched a stored client's metadata and was answered from that record.
    case clientRegistrationReused(clientID: String)
    /// A request was refused by a limit (429, or 503 for the unused-client cap when nothing could
    /// be evicted).
    case limitReached(limit: OAuthLimit)
    /// A new client past the day's share of unused clients was admitted by evicting an unused
    /// client from this tier (`ClientCapacity+Eviction`).
    case unusedClientEvicted(EvictionTier)
    case grantCreated(grantID: String, clientID: String)
    case codeRedeemed(grantID: String)
    /// A redeemed code was presented again; its grant was revoked.
    case codeReplay(grantID: String)
    case refreshRotated(grantID: String)
    /// The just-rotated refresh token was retried inside the grace window; the same pair went back.
    case refreshRetried(grantID: String)
    /// A spent refresh token was presented outside the rules; its grant was revoked.
    case refreshReuse(grantID: String)
    case grantRevoked(grantID: String, reason: String)
    /// One access token was revoked alone (RFC 7009); its grant and other tokens stay. `tokenHash`
    /// is the keyed hash its record was stored under (`BearerGrant.tokenHash`), for evicting it
    /// from in-memory caches; it is not a secret, but it is not for logs either.
    case accessTokenRevoked(grantID: String, tokenHash: String)
    case disconnected(grants: Int)
    case consentDenied(clientID: String)
    case metadataDocumentRefused(reason: String)
    /// A cached client metadata document was used past its freshness, or a document client was
    /// taken as a plain public client at `/token`, because its host failed or was slow.
    case metadataDocumentStale(reason: String)
    /// A store, binder or upstream failure; the reason carries no secret.
    case failure(String)
}

/// The limits the authorization server enforces across instances (through the store).
package enum OAuthLimit: String, Sendable, Equatable, CaseIterable {
    /// New clients `POST /register` may store per client address (`registrationRateLimit`).
    case registrationsPerAddress = "registrations_per_address"
    /// Registered clients nobody has used yet (`maximumUnusedClients`): 503 only when the day's
    /// share is spent and nothing can be evicted (evictions are `unusedClientEvicted`).
    case unusedClients = "unused_clients"
    /// Consent and disconnect pages per client address (`pageRateLimit`).
    case pagesPerAddress = "pages_per_address"
    /// Failed `/token` and `/revoke` requests per client address (`tokenFailureLimit`).
    case tokenFailuresPerAddress = "token_failures_per_address"
}

/// Where an admission past the day's share of unused clients took the client it evicted
/// (`ClientCapacity+Eviction`, in this order for a self-registered client).
package enum EvictionTier: String, Sendable, Equatable, CaseIterable {
    /// The registrant's own oldest unused client.
    case own
    /// Anyone's oldest unused client older than an hour.
    case stale
    /// The oldest unused client of an owner with two or more new clients in the last hour or two.
    case repeatOwner = "repeat_owner"
    /// Anyone's oldest unused client.
    case oldest
}
