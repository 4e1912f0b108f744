import Foundation
import RelayHTTP
import RelayJSON
import RelayStore
import RelayTestSupport
import Testing

@testable import RelayAWS

/// DynamoDB that is down, hung, throttling or failing: typed errors within the configured
/// timeouts and retry bound, and recovery when it comes back.
@Suite struct DynamoDBFaultTests {
    let key = ItemKey(pk: "USER#fault", sk: "META")

    func store(endpoint: String, timeout: Duration = .seconds(10), attempts: Int = 4) throws -> DynamoDBStore {
        try DynamoDBStore(
            tableName: "relay-faults",
            configuration: AWSTestSupport.configuration(
                endpoint: endpoint, requestTimeout: timeout,
                retry: RetryPolicy(maximumAttempts: attempts, baseDelay: .milliseconds(10))),
            httpClient: AWSTestSupport.httpClient)
    }

    @Test func motoStoppedMidRunGivesUnavailableThenRecovers() async throws {
        let moto = try await MotoServer()
        let store = try store(endpoint: moto.endpoint)
        try await store.createTable()
        _ = try await store.put(key, attributes: ["n": 1])

        await moto.stop()
        let started = ContinuousClock.now
        await expectUnavailable { try await store.get(key) }
        await expectUnavailable { try await store.put(key, attributes: ["n": 2]) }
        await expectUnavailable { try await store.query(Query(pk: key.pk)) }
        #expect(ContinuousClock.now - started < .seconds(20), "refused connections fail fast, retries included")

        try await moto.start()  // a fresh moto: the table is gone with the old process
        try await store.createTable()
        let written = try await store.put(key, attributes: ["n": 3], condition: .absent)
        #expect(written.version == 1)
        #expect(try await store.get(key)?.attributes["n"] == 3)
    }

    @Test func hungEndpointTimesOutAsUnavailable() async throws {
        let silent = try SilentEndpoint()
        let store = try store(endpoint: silent.endpoint, timeout: .milliseconds(300))
        await expectUnavailable { try await store.update(key, ItemUpdate(set: ["a": 1])) }
        // A retry would have connected before the call returned; give the accepting thread time.
        try await waitUntil { silent.connections >= 1 }
        try await Task.sleep(for: .milliseconds(500))
        #expect(silent.connections == 1, "a timed-out attempt is not retried")
    }

    @Test func throttlingIsRetriedThenSucceeds() async throws {
        let moto = try await AWSTestSupport.moto()
        let setup = try store(endpoint: moto.endpoint)
        try await setup.createTable()
        _ = try await setup.put(key, attributes: ["via": "moto"])
        for errorType in ["ThrottlingException", "ProvisionedThroughputExceededException", "RequestLimitExceeded"] {
            let faulty = try FaultyEndpoint(
                faults: 3, errorType: errorType, upstream: moto.endpoint, client: AWSTestSupport.httpClient)
            let store = try store(endpoint: faulty.endpoint, attempts: 4)
            #expect(try await store.get(key)?.attributes["via"] == "moto", "\(errorType)")
            #expect(faulty.requests == 4, "three throttled attempts, then the one that got through")
        }
    }

    @Test func throttlingPastTheBoundIsThrottled() async throws {
        let faulty = try FaultyEndpoint(
            faults: 1000, errorType: "ProvisionedThroughputExceededException", upstream: nil,
            client: AWSTestSupport.httpClient)
        let store = try store(endpoint: faulty.endpoint, attempts: 3)
        await #expect(throws: StoreError.throttled) { try await store.put(key, attributes: [:]) }
        #expect(faulty.requests == 3)
    }

    @Test func serverErrorsAreRetriedThenUnavailable() async throws {
        let faulty = try FaultyEndpoint(
            faults: 1000, status: 500, errorType: "InternalServerError", upstream: nil,
            client: AWSTestSupport.httpClient)
        let store = try store(endpoint: faulty.endpoint, attempts: 3)
        await expectUnavailable { try await store.get(key) }
        #expect(faulty.requests == 3)
    }

    @Test func aMissingTableIsUnavailableNotACrash() async throws {
        let moto = try await AWSTestSupport.moto()
        let store = try DynamoDBStore(
            tableName: "no-such-table", configuration: AWSTestSupport.configuration(endpoint: moto.endpoint),
            httpClient: AWSTestSupport.httpClient)
        await expectUnavailable { try await store.get(key) }
    }

    func expectUnavailable<T>(
        _ body: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        do {
            _ = try await body()
            Issue.record("expected unavailable", sourceLocation: sourceLocation)
        } catch StoreError.unavailable {
        } catch {
            Issue.record("expected unavailable, got \(error)", sourceLocation: sourceLocation)
        }
    }
}
