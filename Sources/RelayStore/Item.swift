import RelayJSON

/// The primary key of an item: partition key and sort key. Keys compare by their UTF-8 bytes (as
/// SQLite and DynamoDB do), not by Unicode canonical equivalence: "é" and "e\u{301}" are two keys.
package struct ItemKey: Sendable, Hashable, CustomStringConvertible {
    /// The partition key, e.g. `GRANT#<id>` or `USER#<userId>`.
    package var pk: String
    /// The sort key within the partition, e.g. `META` or `GRANT#<grantId>`.
    package var sk: String

    /// A key from its two parts.
    package init(pk: String, sk: String) {
        self.pk = pk
        self.sk = sk
    }

    package static func == (lhs: ItemKey, rhs: ItemKey) -> Bool {
        lhs.pk.utf8.elementsEqual(rhs.pk.utf8) && lhs.sk.utf8.elementsEqual(rhs.sk.utf8)
    }

    package func hash(into hasher: inout Hasher) {
        for byte in pk.utf8 { hasher.combine(byte) }
        hasher.combine(0xFF as UInt8)  // never part of UTF-8: separates pk from sk
        for byte in sk.utf8 { hasher.combine(byte) }
    }

    /// Only the key's shape, since keys can embed hashes and IDs that do not belong in logs.
    package var description: String { "ItemKey(pk: \(pk.utf8.count) bytes, sk: \(sk.utf8.count) bytes)" }
}

/// One stored item. `version` is 1 when the item is created and grows by 1 on every write; an
/// item written over an expired one starts again at 1. `expiresAt` is seconds since the Unix
/// epoch: from that second on, the item is invisible to every read and condition.
package struct Item: Sendable, Equatable {
    /// The partition key.
    package var pk: String
    /// The sort key.
    package var sk: String
    /// The item's data. Member order is not preserved by every backend.
    package var attributes: JSONObject
    /// The write count since creation; the value conditional writes compare against.
    package var version: Int
    /// When the item expires, in seconds since the Unix epoch; nil means never.
    package var expiresAt: Int?

    /// An item from its parts.
    package init(pk: String, sk: String, attributes: JSONObject, version: Int, expiresAt: Int? = nil) {
        self.pk = pk
        self.sk = sk
        self.attributes = attributes
        self.version = version
        self.expiresAt = expiresAt
    }

    /// The item's primary key.
    package var key: ItemKey { ItemKey(pk: pk, sk: sk) }

    /// Whether the item is visible at `now` (seconds since the epoch).
    package func isLive(at now: Int) -> Bool {
        guard let expiresAt else { return true }
        return expiresAt > now
    }

    package static func == (lhs: Item, rhs: Item) -> Bool {
        lhs.key == rhs.key && lhs.attributes == rhs.attributes && lhs.version == rhs.version
            && lhs.expiresAt == rhs.expiresAt
    }
}

/// What must be true of the stored item for a write to happen. Expired items count as absent.
package enum WriteCondition: Sendable, Hashable {
    /// Write whatever is stored (`update` still needs an existing item).
    case none
    /// No live item has this key (create-only; not valid for update or delete).
    case absent
    /// A live item has this key.
    case exists
    /// A live item has this key at exactly this version (compare-and-swap).
    case versionEquals(Int)
}

/// A partial change to an existing item: top-level attributes to set, remove or add to, and its expiry.
package struct ItemUpdate: Sendable, Equatable {
    /// Attributes to add or replace.
    package var set: JSONObject
    /// Attribute names to remove (absent names are ignored).
    package var remove: [String]
    /// Integer attributes to add to, in the same atomic write (a missing one counts from 0); a
    /// stored value that is not an integer makes the write `invalid`. One write per change of a
    /// counter, whatever else changes it at the same time (the connections page's counts).
    package var increment: [String: Int]
    /// What happens to the item's expiry.
    package var expiresAt: ExpiryChange

    /// An update; by default it changes nothing but the version.
    package init(
        set: JSONObject = JSONObject(), remove: [String] = [], increment: [String: Int] = [:],
        expiresAt: ExpiryChange = .unchanged
    ) {
        self.set = set
        self.remove = remove
        self.increment = increment
        self.expiresAt = expiresAt
    }

    /// Whether the update names an attribute in more than one of `set`, `remove` and `increment`.
    package var namesOverlap: Bool {
        remove.contains { set[$0] != nil || increment[$0] != nil } || increment.keys.contains { set[$0] != nil }
    }
}

/// How an update treats the item's expiry.
package enum ExpiryChange: Sendable, Hashable {
    /// Keep the current expiry.
    case unchanged
    /// Expire at this second (since the epoch).
    case set(Int)
    /// Never expire.
    case clear
}
