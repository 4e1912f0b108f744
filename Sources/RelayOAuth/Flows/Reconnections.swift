import RelayCrypto
import RelayJSON
import RelayStore

/// A connection whose newest CloudKit token is dead (issue 39): Apple documents that a rotated web
/// auth token dies at once, so a process killed between CloudKit's answer and the save loses the
/// only live token, and a session Apple ended is as dead. Nothing but the person signing in to
/// iCloud again brings a token back, so the grant is kept, marked `signInSince`, and its tool calls
/// answer with a link to sign in again (`link`). The link is a capability: an unguessable handle
/// (only its keyed hash is stored), single use, `linkLifetime` long, and it leads only to Apple's
/// sign-in for that grant; the token Apple returns is accepted only when it is the grant's own
/// Apple user (the user-ID HMAC the grant holds), so the link cannot put another account's
/// iCloud behind the connection. The new token is parked on the grant (sealed under a fresh data
/// key the key service wraps, that key bound under the server's binding secret) until the grant's
/// next tool call, which holds the access token the grant's own seal needs, re-seals it
/// (`AuthorizationServer.installParked`) and drops the parked copy.
struct Reconnections: Sendable {
    let context: OAuthContext

    /// How long a sign-in link works: a day, so a person who sees the message late still can.
    static let linkLifetime = 86_400

    /// The grant attributes (docs/storage-schema.md).
    static let waitingAttribute = "signInSince"
    static let parkedAttribute = "parked"
    static let parkedKeyAttribute = "parkedKey"

    /// The "token" the parked data key is bound to: known to the store, so what keeps the parked
    /// copy closed is the server's binding secret and the key service, not a client's token.
    static func parkingToken(_ grantID: String) -> String { "reconnect:" + grantID }

    /// Marks the grant as waiting for the person to sign in again (if still at `expectedVersion`).
    /// Returns the new version, or nil when the grant changed meanwhile.
    func markWaiting(grantID: String, expectedVersion: Int) async throws(OAuthError) -> Int? {
        try await context.update(
            OAuthKeys.grant(grantID), ItemUpdate(set: [Self.waitingAttribute: .int(context.now)]),
            condition: .versionEquals(expectedVersion))?.version
    }

    /// A new single-use link to sign in again for `grantID`, made when the person presses the
    /// connections page's button (a tool call shows the grant's one live link instead:
    /// `replaceShownLink`).
    func link(grantID: String) async throws(OAuthError) -> String {
        let handle = Self.newHandle()
        let hash = context.hasher.hash(handle)
        let now = context.now
        guard
            try await context.put(
                OAuthKeys.reconnectLink(hash.hash), ["grant": .string(grantID), "created": .int(now)],
                expiresAt: now + Self.linkLifetime, condition: .absent) != nil
        else { throw OAuthError(.serverError, "A link identifier collided.") }
        return url(handle: handle)
    }

    /// The page the link opens.
    static let path = "/reconnect"

    static let unusable = OAuthError(.alreadyUsed, "This link was already used or has expired.")

    /// The grant a live link names, when that grant still waits for a sign-in, and the link's keyed
    /// hash. Opening the page spends nothing: a link preview or a prefetch (chat apps fetch links they
    /// show) must not burn the person's link; "Continue with Apple" spends it (`spend`). An expired or
    /// unknown handle, or a grant that no longer waits, throw `alreadyUsed`.
    func peek(_ handle: String) async throws(OAuthError) -> (grant: GrantRecord, linkHash: String) {
        guard handle.utf8.count <= 64, !handle.isEmpty else { throw Self.unusable }
        for hash in context.hasher.candidates(handle) {
            guard let item = try await context.get(OAuthKeys.reconnectLink(hash)) else { continue }
            guard Self.isWithinLifetime(item, now: context.now), let grantID = item.attributes.string("grant"),
                let grant = try await waiting(grantID)
            else {
                throw Self.unusable
            }
            return (grant, hash)
        }
        throw Self.unusable
    }

    /// Spends the link (one conditional delete: of two tabs pressing "Continue", one goes on) and
    /// checks again that its grant waits. A second use throws `alreadyUsed`.
    func spend(linkHash: String, grantID: String) async throws(OAuthError) {
        let key = OAuthKeys.reconnectLink(linkHash)
        guard let item = try await context.get(key), item.attributes.string("grant") == grantID,
            Self.isWithinLifetime(item, now: context.now),
            try await context.delete(key, condition: .versionEquals(item.version)) != nil,
            try await waiting(grantID) != nil
        else { throw Self.unusable }
    }

    /// A link works `linkLifetime` from its making by this server's clock too, whatever the store's
    /// expiry (its own clock, and DynamoDB deletes expired items late) still shows.
    private static func isWithinLifetime(_ item: Item, now: Int) -> Bool {
        guard let created = item.attributes.int("created") else { return false }
        return now < created + linkLifetime
    }

    /// The grant, when it is active and waits for a sign-in.
    private func waiting(_ grantID: String) async throws(OAuthError) -> GrantRecord? {
        guard let item = try await context.get(OAuthKeys.grant(grantID)), let grant = GrantRecord(item: item),
            grant.state == .active, item.attributes[Self.waitingAttribute] != nil
        else { return nil }
        return grant
    }

    /// Apple's sign-in came back for the grant of a link: keeps the new CloudKit token parked on the
    /// grant when `userID` is the grant's own user, and clears the waiting mark. Another user's
    /// token is refused and changes nothing.
    func accept(
        grantID: String, userID: String, webAuthToken: String, sealer: any GrantSealer
    ) async throws(OAuthError) {
        guard let item = try await context.get(OAuthKeys.grant(grantID)), let grant = GrantRecord(item: item),
            grant.state == .active, item.attributes[Self.waitingAttribute] != nil
        else { throw OAuthError(.alreadyUsed, "This connection no longer waits for a sign-in.") }
        guard ConstantTime.equals(grant.userID, userID) else {
            throw OAuthError(
                .otherAccount, "You signed in with a different Apple Account than the one this connection uses.")
        }
        let sealed: SealedCloudKitToken
        do {
            sealed = try await sealer.seal(webAuthToken: webAuthToken, grant: grant.context)
        } catch {
            context.events(.failure("sealing failed"))
            throw OAuthError(.temporarilyUnavailable, "The sign-in could not be stored; try again.")
        }
        let bound = try context.bind(sealed.secret, to: Self.parkingToken(grantID), grant: grant.context)
        let update = ItemUpdate(
            set: [Self.parkedAttribute: .bytes(sealed.sealed), Self.parkedKeyAttribute: .bytes(bound)],
            remove: [Self.waitingAttribute] + Self.linkAttributes)
        guard try await context.update(item.key, update, condition: .versionEquals(item.version)) != nil else {
            throw OAuthError(.temporarilyUnavailable, "The connection changed meanwhile; try again.")
        }
    }
}
