import RelayJSON
import RelayStore

/// The request limits every store applies (RelayStore's `Limits` is internal to that module):
/// checked here before any request, so DynamoDB answers exactly what the other stores answer.
/// The numbers must stay equal to RelayStore's.
enum StoreLimits {
    static let maximumKeyBytes = 1024
    static let maximumAttributeBytes = 300_000

    static func check(_ key: ItemKey) throws(StoreError) {
        guard !key.pk.isEmpty, !key.sk.isEmpty else { throw .invalid("partition and sort keys must not be empty") }
        guard key.pk.utf8.count <= maximumKeyBytes, key.sk.utf8.count <= maximumKeyBytes else {
            throw .invalid("keys are limited to \(maximumKeyBytes) bytes")
        }
    }

    static func check(attributes: JSONObject) throws(StoreError) {
        guard JSONValue.object(attributes).bytes.count <= maximumAttributeBytes else {
            throw .invalid("attributes exceed \(maximumAttributeBytes) bytes")
        }
    }

    static func check(expiresAt: Int?) throws(StoreError) {
        if let expiresAt, expiresAt < 0 { throw .invalid("expiresAt must not be negative") }
    }

    static func check(_ query: Query) throws(StoreError) {
        guard !query.pk.isEmpty, query.pk.utf8.count <= maximumKeyBytes else {
            throw .invalid("partition key must be 1...\(maximumKeyBytes) bytes")
        }
        guard (1...Query.maximumLimit).contains(query.limit) else {
            throw .invalid("query limit must be 1...\(Query.maximumLimit)")
        }
    }
}
