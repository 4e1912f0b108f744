import RelayStore
import RelaySync
import RelayTestSupport
import Testing

@testable import RelayAWS

/// What each write costs in DynamoDB requests (each is billed, a failed conditional write too),
/// counted by a pass-through endpoint in front of moto.
@Suite struct DynamoDBRequestCostTests {
    @Test func anUnconditionalPutIsOneRequestForANewOrALiveItem() async throws {
        let moto = try await AWSTestSupport.moto()
        let configuration = AWSTestSupport.configuration(endpoint: moto.endpoint)
        let setup = try DynamoDBStore(
            tableName: "relay-cost", configuration: configuration, httpClient: AWSTestSupport.httpClient)
        try await setup.createTable()
        let counting = try FaultyEndpoint(
            faults: 0, errorType: "none", upstream: moto.endpoint, client: AWSTestSupport.httpClient)
        let store = try DynamoDBStore(
            tableName: "relay-cost", configuration: AWSTestSupport.configuration(endpoint: counting.endpoint),
            httpClient: AWSTestSupport.httpClient)
        let key = ItemKey(pk: "USER#cost", sk: "META")

        let created = try await store.put(key, attributes: ["n": 1])
        #expect(created.version == 1)
        #expect(counting.requests == 1, "a new item: one UpdateItem that creates it")

        let replaced = try await store.put(key, attributes: ["n": 2], expiresAt: nil, condition: .none)
        #expect(replaced.version == 2)
        #expect(replaced.attributes == ["n": 2])
        #expect(counting.requests == 2, "a live item: one UpdateItem that replaces it")

        // An expired item DynamoDB has not deleted yet: the update's condition fails, a PutItem
        // starts the item again at version 1 without its old attributes.
        let expired = ItemKey(pk: "USER#cost", sk: "EXPIRED")
        _ = try await store.put(
            expired, attributes: ["old": true], expiresAt: SystemClock().epochSeconds() - 10, condition: .none)
        let before = counting.requests
        let fresh = try await store.put(expired, attributes: ["new": true], expiresAt: nil, condition: .none)
        #expect(fresh.version == 1)
        #expect(try await store.get(expired)?.attributes == ["new": true])
        #expect(counting.requests - before == 3, "a failed update, the put, then the read")
    }
}
