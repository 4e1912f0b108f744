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

    /// A transaction is one `TransactWriteItems`; a `.none` put over an expired item DynamoDB has
    /// not deleted yet costs one more (the `.absent` put, as `put` sends it).
    @Test func aTransactionIsOneRequest() async throws {
        let moto = try await AWSTestSupport.moto()
        let setup = try DynamoDBStore(
            tableName: "relay-cost-tx", configuration: AWSTestSupport.configuration(endpoint: moto.endpoint),
            httpClient: AWSTestSupport.httpClient)
        try await setup.createTable()
        let counting = try FaultyEndpoint(
            faults: 0, errorType: "none", upstream: moto.endpoint, client: AWSTestSupport.httpClient)
        let store = try DynamoDBStore(
            tableName: "relay-cost-tx", configuration: AWSTestSupport.configuration(endpoint: counting.endpoint),
            httpClient: AWSTestSupport.httpClient)
        let (a, b) = (ItemKey(pk: "USER#tx", sk: "A"), ItemKey(pk: "USER#tx", sk: "B"))
        try await store.transact([.put(a, attributes: ["n": 1], condition: .absent), .put(b, attributes: ["n": 1])])
        #expect(counting.requests == 1)
        _ = try await store.put(b, attributes: ["old": true], expiresAt: SystemClock().epochSeconds() - 10)
        let before = counting.requests
        try await store.transact([
            .update(a, ItemUpdate(set: ["n": 2]), condition: .versionEquals(1)), .put(b, attributes: ["new": true]),
        ])
        #expect(counting.requests - before == 2, "the update-or-create failed on the expired item, then the put")
        #expect(try await store.get(b)?.version == 1)
        #expect(try await store.get(a)?.attributes == ["n": 2])
    }

    /// `TransactionConflict` (another write on an item in flight) is tried again with the same
    /// backoff as throttling, and is `throttled` past the retry bound; a failed condition is not
    /// tried again.
    @Test func aTransactionConflictIsRetriedThenThrottled() async throws {
        let moto = try await AWSTestSupport.moto()
        let setup = try DynamoDBStore(
            tableName: "relay-conflict-tx", configuration: AWSTestSupport.configuration(endpoint: moto.endpoint),
            httpClient: AWSTestSupport.httpClient)
        try await setup.createTable()
        let reasons = #""CancellationReasons":[{"Code":"None"},{"Code":"TransactionConflict","Message":"x"}]"#
        let key = ItemKey(pk: "USER#conflict", sk: "A")
        let writes: [StoreWrite] = [
            .put(key, attributes: ["n": 1]), .put(ItemKey(pk: "USER#conflict", sk: "B"), attributes: ["n": 1]),
        ]
        let twice = try FaultyEndpoint(
            faults: 2, errorType: "TransactionCanceledException", extra: reasons, upstream: moto.endpoint,
            client: AWSTestSupport.httpClient)
        let store = try DynamoDBStore(
            tableName: "relay-conflict-tx", configuration: AWSTestSupport.configuration(endpoint: twice.endpoint),
            httpClient: AWSTestSupport.httpClient)
        try await store.transact(writes)
        #expect(twice.requests == 3, "two conflicts, then the transaction")
        #expect(try await store.get(key)?.version == 1)

        let always = try FaultyEndpoint(
            faults: 100, errorType: "TransactionCanceledException", extra: reasons, upstream: moto.endpoint,
            client: AWSTestSupport.httpClient)
        let conflicted = try DynamoDBStore(
            tableName: "relay-conflict-tx", configuration: AWSTestSupport.configuration(endpoint: always.endpoint),
            httpClient: AWSTestSupport.httpClient)
        await #expect(throws: StoreError.throttled) { try await conflicted.transact(writes) }
        #expect(always.requests == RetryPolicy().maximumAttempts)

        let failed = #""CancellationReasons":[{"Code":"None"},{"Code":"ConditionalCheckFailed","Message":"x"}]"#
        let condition = try FaultyEndpoint(
            faults: 100, errorType: "TransactionCanceledException", extra: failed, upstream: moto.endpoint,
            client: AWSTestSupport.httpClient)
        let refused = try DynamoDBStore(
            tableName: "relay-conflict-tx", configuration: AWSTestSupport.configuration(endpoint: condition.endpoint),
            httpClient: AWSTestSupport.httpClient)
        await #expect(throws: StoreError.conditionFailed) {
            try await refused.transact([writes[0], .update(ItemKey(pk: "USER#conflict", sk: "B"), ItemUpdate())])
        }
        #expect(condition.requests == 1)
    }
}
