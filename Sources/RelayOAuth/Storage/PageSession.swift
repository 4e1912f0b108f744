import RelayJSON
import RelayStore

/// `SESSION#<hash>` / `META`: a person's short session on the connections page, made by Apple's
/// callback once it said who signed in. The key is the keyed hash of the browser cookie's value
/// (the value itself is never stored); the item expires with the session.
struct PageSession: Sendable, Equatable {
    /// The key hash (the partition key without its prefix).
    var hash: String
    /// Whose connections the page may show and end.
    var userID: String
    var createdAt: Int
    /// HMAC of the CSRF token of the page last shown; removed when a form uses it.
    var csrfHash: String?
    /// How many connections the last form ended, shown once on the next page.
    var ended: Int?
    var version: Int

    init(hash: String, userID: String, createdAt: Int) {
        self.hash = hash
        self.userID = userID
        self.createdAt = createdAt
        version = 0
    }

    init?(item: Item) {
        let a = item.attributes
        guard item.pk.hasPrefix("SESSION#"), item.sk == OAuthKeys.meta, let user = a.string("user"),
            let created = a.int("created")
        else { return nil }
        hash = String(item.pk.dropFirst(8))
        userID = user
        createdAt = created
        csrfHash = a.string("csrf")
        ended = a.int("ended")
        version = item.version
    }

    var attributes: JSONObject {
        var a: JSONObject = ["user": .string(userID), "created": .int(createdAt)]
        a.set("csrf", csrfHash.map(JSONValue.string))
        a.set("ended", ended.map(JSONValue.int))
        return a
    }
}
