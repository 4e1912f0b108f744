import RelayStore

/// Every store key the authorization server uses, built here and nowhere else
/// (docs/storage-schema.md lists them with their attributes and expiry).
///
/// Hashes are base64url HMAC-SHA256 digests under a pepper; IDs are random base64url. No token,
/// code, secret or CloudKit user record name ever appears in a key.
enum OAuthKeys {
    static let meta = "META"

    /// A DCR client: `CLIENT#<clientID>` / `META`.
    static func client(_ id: String) -> ItemKey { ItemKey(pk: "CLIENT#" + id, sk: meta) }

    /// A pending authorization (or disconnect) request: `AUTHREQ#<requestID>` / `META`.
    static func pendingRequest(_ id: String) -> ItemKey { ItemKey(pk: "AUTHREQ#" + id, sk: meta) }

    /// An authorization code by its hash: `CODE#<hash>` / `META`.
    static func code(_ hash: String) -> ItemKey { ItemKey(pk: "CODE#" + hash, sk: meta) }

    /// A grant: `GRANT#<grantID>` / `META`.
    static func grant(_ id: String) -> ItemKey { ItemKey(pk: "GRANT#" + id, sk: meta) }

    /// An access token by its hash: `TOKEN#<hash>` / `META`.
    static func accessToken(_ hash: String) -> ItemKey { ItemKey(pk: "TOKEN#" + hash, sk: meta) }

    /// A refresh token by its hash: `REFRESH#<hash>` / `META`.
    static func refreshToken(_ hash: String) -> ItemKey { ItemKey(pk: "REFRESH#" + hash, sk: meta) }

    /// The grant's index entry for one of its tokens: `GRANT#<grantID>` / `TOKEN#<hash>` or
    /// `REFRESH#<hash>`, so revoking a grant can find every token without a secondary index.
    static func grantIndex(_ grantID: String, token: TokenIndexEntry) -> ItemKey {
        ItemKey(pk: "GRANT#" + grantID, sk: token.sortKey)
    }

    /// The grant's index partition, minus its `META` item.
    static func grantTokens(_ grantID: String) -> [Query] {
        [Query(pk: "GRANT#" + grantID, skPrefix: "TOKEN#"), Query(pk: "GRANT#" + grantID, skPrefix: "REFRESH#")]
    }

    /// What a connection did on one UTC day (issue 44): `GRANT#<grantID>` / `ACT#<day>`, the day
    /// as days since 1970-01-01, zero-padded to 6 digits so the sort key orders by day. In the
    /// grant's own partition, so ending the grant finds its counts without a secondary index.
    static func activity(_ grantID: String, day: Int) -> ItemKey {
        let digits = String(max(0, day))
        return ItemKey(
            pk: "GRANT#" + grantID,
            sk: activityPrefix + String(repeating: "0", count: max(0, 6 - digits.count)) + digits)
    }

    /// The sort-key prefix of a grant's activity counts.
    static let activityPrefix = "ACT#"

    /// Every activity count of a grant.
    static func grantActivity(_ grantID: String) -> Query {
        Query(pk: "GRANT#" + grantID, skPrefix: activityPrefix)
    }

    /// A user's grant, for disconnect: `USER#<userID>` / `GRANT#<grantID>`.
    static func userGrant(_ userID: String, grantID: String) -> ItemKey {
        ItemKey(pk: "USER#" + userID, sk: "GRANT#" + grantID)
    }

    /// A link to sign in to iCloud again for a grant whose CloudKit token died (`Reconnections`), by
    /// the keyed hash of its handle: `RECONNECT#<hash>` / `META`.
    static func reconnectLink(_ hash: String) -> ItemKey { ItemKey(pk: "RECONNECT#" + hash, sk: meta) }

    /// Every grant of a user.
    static func userGrants(_ userID: String) -> Query { Query(pk: "USER#" + userID, skPrefix: "GRANT#") }

    /// A person's connections-page session by the keyed hash of its cookie: `SESSION#<hash>` / `META`.
    static func pageSession(_ hash: String) -> ItemKey { ItemKey(pk: "SESSION#" + hash, sk: meta) }

    /// A cached client metadata document: `CIMD#<sha256(url)>` / `META`.
    static func metadataDocument(_ urlHash: String) -> ItemKey { ItemKey(pk: "CIMD#" + urlHash, sk: meta) }

    /// A counter of a limit shared by every instance (`SharedLimiter`, `ClientCapacity`):
    /// `LIMIT#<limit>#<subject>` / `W<window start>`; its version is the count.
    static func limitCounter(_ limit: String, subject: String, window: Int) -> ItemKey {
        ItemKey(pk: "LIMIT#" + limit + "#" + subject, sk: "W" + String(window))
    }

    // MARK: admin scans (partition-key prefixes; `Store.scan` is for the admin CLI and metrics only)

    /// Every DCR client.
    static let clientPrefix = "CLIENT#"
    /// Every grant's `META` and its token index entries.
    static let grantPrefix = "GRANT#"
    /// Every cached client metadata document.
    static let metadataDocumentPrefix = "CIMD#"

    /// The kinds `OAuthAdmin.statistics()` counts, in display order: the partition-key prefix
    /// before `#`, with a grant's token index entries (`GRANT#…` / `TOKEN#…`, `REFRESH#…`)
    /// apart from the grant itself.
    static let kinds = [
        "CLIENT", "AUTHREQ", "CODE", "GRANT", "GRANT_INDEX", "ACTIVITY", "TOKEN", "REFRESH", "USER", "CIMD", "SESSION",
        "LIMIT", "OTHER",
    ]

    /// The kind of a stored key (`OTHER` for anything this server did not write).
    static func kind(of item: Item) -> String {
        guard let hash = item.pk.firstIndex(of: "#") else { return "OTHER" }
        let prefix = String(item.pk[..<hash])
        if prefix == "GRANT" {
            if item.sk == meta { return "GRANT" }
            return item.sk.hasPrefix(activityPrefix) ? "ACTIVITY" : "GRANT_INDEX"
        }
        return kinds.contains(prefix) ? prefix : "OTHER"
    }
}

/// A token listed in its grant's index partition.
enum TokenIndexEntry: Sendable, Equatable {
    case access(String)
    case refresh(String)

    var sortKey: String {
        switch self {
        case .access(let hash): "TOKEN#" + hash
        case .refresh(let hash): "REFRESH#" + hash
        }
    }

    /// The token's own item.
    var itemKey: ItemKey {
        switch self {
        case .access(let hash): OAuthKeys.accessToken(hash)
        case .refresh(let hash): OAuthKeys.refreshToken(hash)
        }
    }

    /// The entry named by an index item's sort key.
    init?(sortKey: String) {
        if sortKey.hasPrefix("TOKEN#") {
            self = .access(String(sortKey.dropFirst(6)))
        } else if sortKey.hasPrefix("REFRESH#") {
            self = .refresh(String(sortKey.dropFirst(8)))
        } else {
            return nil
        }
    }
}
