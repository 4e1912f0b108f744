import RelayCrypto
import RelayJSON
import RelayStore

/// The link a waiting grant's tool calls show (issue 39 follow-up): one live link per grant, shown
/// again on every call until it is spent or has less than `renewMargin` left, so an AI client that
/// retries in a loop costs reads, never a store item per call. The grant holds the link's keyed
/// hash (which `RECONNECT#` item it is), its end, and its handle sealed by the caller under the
/// grant's own data key (`GrantSession`: only a presented token of the grant opens it; never plain
/// text in the store, never logged).
extension Reconnections {
    /// The grant attributes of the shown link (docs/storage-schema.md).
    static let linkSealedAttribute = "signInLink"
    static let linkHashAttribute = "signInLinkHash"
    static let linkEndsAttribute = "signInLinkEnds"
    static var linkAttributes: [String] { [linkSealedAttribute, linkHashAttribute, linkEndsAttribute] }

    /// A link with less than this left is replaced by a new one: a link shown must still work when the
    /// person reads it a while later. The old one keeps working until its own end (what it promised),
    /// so a waiting grant has at most two live link items from tool calls.
    static let renewMargin = 3_600

    /// A new link handle: 256 random bits, base64url.
    static func newHandle() -> String { Base64URL.encode(SecureRandom.bytes(count: 32)) }

    /// The URL of a link handle.
    func url(handle: String) -> String { context.configuration.issuer + Self.path + "?h=" + handle }

    /// Whether the grant's shown link can be shown again: its item is there (not spent), names the
    /// grant, and has at least `renewMargin` left.
    func isShowable(_ link: ShownSignInLink, grantID: String) async throws(OAuthError) -> Bool {
        guard link.endsAt - context.now >= Self.renewMargin,
            let item = try await context.get(OAuthKeys.reconnectLink(link.hash))
        else { return false }
        return item.attributes.string("grant") == grantID
    }

    /// Makes `handle` the grant's shown link, if the grant is still at `expectedVersion`: the link's
    /// item and the grant's new attributes in one transaction. Returns the link's URL, or nil when the
    /// grant changed meanwhile (another call may have made a link: read it again). A previous link that
    /// has ended is deleted (the store's own expiry may lag).
    func replaceShownLink(
        grantID: String, expectedVersion: Int, handle: String, sealedHandle: [UInt8], previous: ShownSignInLink?
    ) async throws(OAuthError) -> String? {
        let hash = context.hasher.hash(handle).hash
        let now = context.now
        let ends = now + Self.linkLifetime
        let written = try await context.transact([
            StoreWrite(
                key: OAuthKeys.reconnectLink(hash),
                change: .put(attributes: ["grant": .string(grantID), "created": .int(now)], expiresAt: ends),
                condition: .absent),
            StoreWrite(
                key: OAuthKeys.grant(grantID),
                change: .update(
                    ItemUpdate(set: [
                        Self.linkSealedAttribute: .bytes(sealedHandle), Self.linkHashAttribute: .string(hash),
                        Self.linkEndsAttribute: .int(ends),
                    ])),
                condition: .versionEquals(expectedVersion)),
        ])
        guard written else { return nil }
        if let previous, previous.endsAt <= now {
            _ = try? await context.delete(OAuthKeys.reconnectLink(previous.hash))
        }
        return url(handle: handle)
    }
}

/// The link a waiting grant shows on its tool calls, as the grant stores it.
package struct ShownSignInLink: Sendable, Equatable {
    /// The handle, sealed under the grant's data key (open with `Vault.unseal` and a token of the grant).
    package var sealed: [UInt8]
    /// The keyed hash naming its `RECONNECT#` item.
    package var hash: String
    /// When it stops working (epoch seconds).
    package var endsAt: Int

    init?(attributes a: JSONObject) {
        guard let sealed = a.bytes(Reconnections.linkSealedAttribute),
            let hash = a.string(Reconnections.linkHashAttribute),
            let ends = a.int(Reconnections.linkEndsAttribute)
        else { return nil }
        self.sealed = sealed
        self.hash = hash
        endsAt = ends
    }
}
