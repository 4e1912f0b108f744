import RelayJSON
import RelayStore
import RelaySync
import Testing

@testable import RelayAWS

/// The stored shape of an item, read back raw from moto, as docs/storage-schema.md describes it;
/// and the table that `createTable` makes.
@Suite struct DynamoDBItemMappingTests {
    func store(clock: ManualClock = ManualClock()) async throws -> DynamoDBStore {
        let moto = try await AWSTestSupport.moto()
        let store = try DynamoDBStore(
            tableName: "relay-mapping", configuration: AWSTestSupport.configuration(endpoint: moto.endpoint),
            httpClient: AWSTestSupport.httpClient, clock: clock)
        try await store.createTable()
        return store
    }

    func raw(_ store: DynamoDBStore, _ key: ItemKey) async throws -> JSONValue? {
        try await store.client.call(
            "GetItem", ["TableName": .string(store.tableName), "Key": DynamoDBItem.key(key), "ConsistentRead": true])[
                "Item"]
    }

    @Test func itemsMapToPkSkAttributesVersionExpiresAt() async throws {
        let clock = ManualClock()
        let store = try await store(clock: clock)
        let key = ItemKey(pk: "GRANT#\(UInt32.random(in: 0...UInt32.max))", sk: "META")
        let attributes: JSONObject = [
            "s": "text", "i": 42, "d": 0.5, "b": true, "n": nil, "l": [1, "two"], "m": ["k": "v"], "empty": [:],
        ]
        _ = try await store.put(key, attributes: attributes, expiresAt: clock.epochSeconds() + 60, condition: .absent)
        let item = try #require(try await raw(store, key))
        #expect(item["pk"] == ["S": .string(key.pk)])
        #expect(item["sk"] == ["S": "META"])
        #expect(item["version"] == ["N": "1"])
        #expect(item["expiresAt"] == ["N": .string(String(clock.epochSeconds() + 60))])
        let members = try #require(item["attrs"]?["M"]?.objectValue)
        #expect(members["s"] == ["S": "text"])
        #expect(members["i"] == ["N": "42"])
        #expect(members["d"] == ["N": "0.5"])
        #expect(members["b"] == ["BOOL": true])
        #expect(members["n"] == ["NULL": true])
        #expect(members["l"] == ["L": [["N": "1"], ["S": "two"]]])
        #expect(members["m"] == ["M": ["k": ["S": "v"]]])
        #expect(members["empty"] == ["M": [:]])
        #expect(item.objectValue?.count == 5, "no other top-level attributes")

        _ = try await store.update(key, ItemUpdate(set: ["i": 43], expiresAt: .clear))
        let updated = try #require(try await raw(store, key))
        #expect(updated["version"] == ["N": "2"] && updated["expiresAt"] == nil, "no expiry: no expiresAt attribute")
        #expect(updated["attrs"]?["M"]?["i"] == ["N": "43"] && updated["attrs"]?["M"]?["s"] == ["S": "text"])
    }

    @Test func expiredItemsStayStoredButInvisible() async throws {
        let clock = ManualClock()
        let store = try await store(clock: clock)
        let key = ItemKey(pk: "TOKEN#\(UInt32.random(in: 0...UInt32.max))", sk: "META")
        _ = try await store.put(key, attributes: ["a": 1], expiresAt: clock.epochSeconds() + 5)
        clock.advance(by: 5)
        #expect(try await raw(store, key) != nil, "DynamoDB's TTL deletes late (moto never): the item is still there")
        #expect(try await store.get(key) == nil)
        #expect(try await store.query(Query(pk: key.pk)).items.isEmpty)
    }

    @Test func createTableDeclaresKeysAndTTLAndIsIdempotent() async throws {
        let store = try await store()
        #expect(try await store.createTable() == false, "a second call finds the table")
        let table = try await store.client.call("DescribeTable", ["TableName": .string(store.tableName)])["Table"]
        #expect(
            table?["KeySchema"]
                == [["AttributeName": "pk", "KeyType": "HASH"], ["AttributeName": "sk", "KeyType": "RANGE"]])
        let ttl = try await store.client.call("DescribeTimeToLive", ["TableName": .string(store.tableName)])
        #expect(ttl["TimeToLiveDescription"]?["AttributeName"] == "expiresAt")
        #expect(ttl["TimeToLiveDescription"]?["TimeToLiveStatus"] == "ENABLED")
    }

    @Test func numbersRoundTrip() {
        let values: [JSONValue] = [0, -7, .int(Int(Int64.max)), .int(Int(Int64.min)), 0.25, -1.5e-7, 1e100]
        for value in values {
            #expect(AttributeValue.decode(AttributeValue.encode(value)) == value, "\(value)")
        }
        #expect(AttributeValue.decode(["N": "1.0"]) == .double(1), "DynamoDB may answer 1.0 for a double")
        #expect(
            AttributeValue.decode(JSONValue.object(["SS": ["a"]])) == nil, "types the store never writes are refused")
    }
}
