import RelayJSON
import RelayStore

/// How a store item maps to a DynamoDB item, in one place (docs/storage-schema.md, "DynamoDB"):
///
/// | attribute   | type | holds |
/// |-------------|------|-------|
/// | `pk`        | S    | partition key (table hash key) |
/// | `sk`        | S    | sort key (table range key) |
/// | `attrs`     | M    | the item's `attributes` object, member by member (see `AttributeValue`) |
/// | `version`   | N    | the write count |
/// | `expiresAt` | N    | expiry in epoch seconds; absent when the item never expires; the table's TTL attribute |
enum DynamoDBItem {
    static let partitionKey = "pk"
    static let sortKey = "sk"
    static let attributes = "attrs"
    static let version = "version"
    static let expiresAt = "expiresAt"

    /// The `Key` of an item.
    static func key(_ key: ItemKey) -> JSONValue {
        [partitionKey: ["S": .string(key.pk)], sortKey: ["S": .string(key.sk)]]
    }

    /// A whole DynamoDB item.
    static func encode(_ item: Item) -> JSONValue {
        var object: JSONObject = [
            partitionKey: ["S": .string(item.pk)], sortKey: ["S": .string(item.sk)],
            attributes: ["M": .object(AttributeValue.encode(item.attributes))],
            version: number(item.version),
        ]
        if let expiresAt = item.expiresAt { object[Self.expiresAt] = number(expiresAt) }
        return .object(object)
    }

    /// The item in a response's `Item` or `Attributes`; nil when the value is not one this store
    /// wrote.
    static func decode(_ value: JSONValue) -> Item? {
        guard let pk = value[partitionKey]?["S"]?.stringValue, let sk = value[sortKey]?["S"]?.stringValue,
            let members = value[attributes]?["M"]?.objectValue, let decoded = AttributeValue.decode(members),
            let version = value[version]?["N"]?.stringValue.flatMap({ Int($0) })
        else { return nil }
        var expiry: Int?
        if let stored = value[expiresAt] {
            guard let seconds = stored["N"]?.stringValue.flatMap({ Int($0) }) else { return nil }
            expiry = seconds
        }
        return Item(pk: pk, sk: sk, attributes: decoded, version: version, expiresAt: expiry)
    }

    static func number(_ value: Int) -> JSONValue {
        ["N": .string(String(value))]
    }
}

/// The names and values of one request's expressions. Schema attributes get fixed placeholders
/// (`#a` attrs, `#v` version, `#e` expiresAt); members of `attrs` get `#m0`, `#m1`…,
/// since any string may be a member name. Only placeholders an expression uses are sent, as
/// DynamoDB refuses unused ones.
struct ExpressionParts {
    private(set) var names = JSONObject()
    private(set) var values = JSONObject()
    private var members = 0

    var attributes: String { mutating get { name("#a", DynamoDBItem.attributes) } }
    var version: String { mutating get { name("#v", DynamoDBItem.version) } }
    var expiresAt: String { mutating get { name("#e", DynamoDBItem.expiresAt) } }

    mutating func name(_ placeholder: String, _ name: String) -> String {
        names[placeholder] = .string(name)
        return placeholder
    }

    mutating func value(_ placeholder: String, _ value: JSONValue) -> String {
        values[placeholder] = value
        return placeholder
    }

    /// A placeholder pair for a member of `attributes` and its new value.
    mutating func member(_ name: String, value: JSONValue?) -> (name: String, value: String?) {
        defer { members += 1 }
        let placeholder = self.name("#m\(members)", name)
        return (placeholder, value.map { self.value(":m\(members)", AttributeValue.encode($0)) })
    }

    /// The item has no expiry or expires after `now`.
    mutating func notExpired(now: Int) -> String {
        let e = expiresAt
        return "(attribute_not_exists(\(e)) OR \(e) > \(value(":now", DynamoDBItem.number(now))))"
    }

    /// The item is there and not expired at `now`.
    mutating func live(now: Int) -> String {
        "attribute_exists(pk) AND \(notExpired(now: now))"
    }

    /// No item, or an expired one.
    mutating func absent(now: Int) -> String {
        "(attribute_not_exists(pk) OR \(expiresAt) <= \(value(":now", DynamoDBItem.number(now))))"
    }

    /// The condition expression for `condition`; updates and deletes pass `.exists` for `.none`
    /// when the item must be live.
    mutating func condition(_ condition: WriteCondition, now: Int) -> String? {
        switch condition {
        case .none: return nil
        case .absent: return absent(now: now)
        case .exists: return live(now: now)
        case .versionEquals(let expected):
            return "\(version) = \(value(":v", DynamoDBItem.number(expected))) AND \(live(now: now))"
        }
    }

    /// Adds `ExpressionAttributeNames` and `ExpressionAttributeValues` when there are any.
    func add(to body: inout JSONObject) {
        if names.count > 0 { body["ExpressionAttributeNames"] = .object(names) }
        if values.count > 0 { body["ExpressionAttributeValues"] = .object(values) }
    }
}
