import RelayStore

/// A grant as the operator sees it: identifiers, scope and times, and the fields the person's
/// connections page shows (app name, redirect host, what it may do, connected, last used). Never
/// the sealed CloudKit token, a token binding, or a refresh-token hash.
package struct GrantSummary: Sendable, Equatable {
    /// The grant ID (`mustdo-relayctl grants revoke ID`).
    package var id: String
    /// HMAC of the CloudKit user record name (`mustdo-relayctl users id`).
    package var userID: String
    /// The client it was granted to.
    package var clientID: String
    /// Granted scopes.
    package var scopes: [String]
    /// The audience (the MCP endpoint URL).
    package var resource: String
    /// `pending` until its code is redeemed, then `active`.
    package var state: String
    /// Seconds since the epoch.
    package var createdAt: Int
    /// The hard end of the grant and of every token it issues.
    package var endsAt: Int
    /// Refresh rotations so far.
    package var refreshCount: Int
    /// When the refresh token was last rotated, if ever.
    package var lastRefreshAt: Int?
    /// The name the app gave itself when the person consented (untrusted text); nil when it gave
    /// none, or for a grant made before names were kept.
    package var clientName: String?
    /// `dcr` (self-registered: the name is unverified) or `cimd` (a client ID metadata document).
    package var clientSource: String?
    /// Where the app sent the person back to: `host[:port]`, or `scheme://host` for a custom scheme.
    package var redirectHost: String?
    /// The last day (UTC, days since 1970-01-01) an MCP request used the grant; nil if none yet.
    /// Day precision only: it is written at most once a day.
    package var lastUsedDay: Int?

    init(_ record: GrantRecord) {
        id = record.id
        userID = record.userID
        clientID = record.clientID
        scopes = record.scope.tokens
        resource = record.resource
        state = record.state.rawValue
        createdAt = record.createdAt
        endsAt = record.endsAt
        refreshCount = record.refreshGeneration
        lastRefreshAt = record.rotatedAt
        clientName = record.label?.clientName
        clientSource = record.label?.source.rawValue
        redirectHost = record.label?.redirectHost
        lastUsedDay = record.lastUsedDay
    }
}

/// A client as the operator sees it: what it registered and when it was last used. Never its
/// secret hash.
package struct ClientSummary: Sendable, Equatable {
    /// The client ID: random for DCR clients, the document URL for metadata-document clients.
    package var id: String
    /// `dcr` (registered) or `cimd` (a cached client ID metadata document).
    package var source: String
    /// The name the client gave itself (untrusted text).
    package var name: String?
    /// Registered redirect URIs.
    package var redirectURIs: [String]
    /// `none`, `client_secret_post` or `client_secret_basic`.
    package var authMethod: String
    /// Grant types it registered.
    package var grantTypes: [String]
    /// When it registered (or the document was fetched), seconds since the epoch.
    package var registeredAt: Int
    /// Its last authorization-code exchange; nil for a client that never connected anyone.
    package var lastUsedAt: Int?
    /// When the store forgets it: an unused DCR client, or a cached document; nil for good.
    package var expiresAt: Int?

    init(_ client: RegisteredClient, item: Item) {
        id = client.id
        source = client.source.rawValue
        name = client.name
        redirectURIs = client.redirectURIs
        authMethod = client.authMethod.rawValue
        grantTypes = client.grantTypes
        registeredAt = client.issuedAt
        lastUsedAt = item.attributes.int("used")
        expiresAt = item.expiresAt
    }

    /// A DCR client (`CLIENT#`) or cached metadata document (`CIMD#`) item; nil for anything else.
    init?(item: Item) {
        if let client = RegisteredClient(item: item) {
            self.init(client, item: item)
        } else if item.pk.hasPrefix(OAuthKeys.metadataDocumentPrefix),
            let cached = CachedDocument(item: item)
        {
            self.init(cached.client, item: item)
        } else {
            return nil
        }
    }
}

/// What deleting a client did.
package struct ClientDeletion: Sendable, Equatable {
    /// Whether the client's record (or cached document) was there.
    package var clientDeleted: Bool
    /// Grants of that client revoked with it.
    package var grantsRevoked: Int
}

/// What one connection did in the last 30 UTC days, as the operator sees it: identifiers and
/// counts only (the user ID is the HMAC `users id` prints; no to-do title, content or ID exists to
/// show).
package struct GrantActivity: Sendable, Equatable {
    /// The grant ID.
    package var grantID: String
    /// HMAC of the CloudKit user record name.
    package var userID: String
    /// The client it was granted to.
    package var clientID: String
    /// Days with activity, oldest first.
    package var days: [DayActivity]

    /// The 30-day total of `action`.
    package func total(_ action: ConnectionAction) -> Int { DayActivity.total(action, in: days) }
}
