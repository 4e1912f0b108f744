import Foundation
import RelayHTTP
import RelayStore
import RelayStoreConformance
import RelayTestSupport

@testable import RelayAWS

/// What the moto-backed tests share: one moto server for the whole run (it exits with the test
/// process), one HTTP client, and a table made once.
enum AWSTestSupport {
    static let credentials = try! AWSCredentials(accessKeyID: "AKIDMOTOTESTING", secretAccessKey: "moto-secret-key")

    static func configuration(
        endpoint: String, requestTimeout: Duration = .seconds(30), retry: RetryPolicy = RetryPolicy()
    ) -> AWSConfiguration {
        AWSConfiguration(
            region: "us-east-1", credentials: credentials, endpoint: endpoint, connectTimeout: .seconds(2),
            requestTimeout: requestTimeout, retry: retry)
    }

    static let httpClient = try! HTTPClient()

    private static let shared = SharedMoto()

    /// The shared moto server, started on first use.
    static func moto() async throws -> MotoServer {
        try await shared.server()
    }

    /// A store on a table of its own on the shared moto, deleted after the case: moto copies every
    /// table a `TransactWriteItems` names before it starts (to roll back), so a table shared by
    /// every case (large items included) made each transaction take seconds.
    static let dynamoDB = StoreConformance.Harness { clock in
        let moto = try await moto()
        let store = try DynamoDBStore(
            tableName: "relay-conformance-" + String(UInt64.random(in: 0...UInt64.max), radix: 36),
            configuration: configuration(endpoint: moto.endpoint), httpClient: httpClient, clock: clock)
        try await store.createTable()
        return (store, { _ = try? await store.client.call("DeleteTable", ["TableName": .string(store.tableName)]) })
    }
}

/// Starts one moto server, however many tests ask at once.
actor SharedMoto {
    private var starting: Task<MotoServer, any Error>?

    func server() async throws -> MotoServer {
        if starting == nil { starting = Task { try await MotoServer() } }
        return try await starting!.value
    }
}
