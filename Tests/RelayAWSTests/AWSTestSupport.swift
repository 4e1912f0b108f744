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

    /// A store on the shared moto's conformance table (created on first use).
    static let dynamoDB = StoreConformance.Harness { clock in
        let moto = try await moto()
        let store = try DynamoDBStore(
            tableName: "relay-conformance", configuration: configuration(endpoint: moto.endpoint),
            httpClient: httpClient, clock: clock)
        try await shared.ensureTable(store)
        return (store, {})
    }
}

/// Starts one moto server and creates the conformance table once, however many tests ask at once.
actor SharedMoto {
    private var starting: Task<MotoServer, any Error>?
    private var table: Task<Void, any Error>?

    func server() async throws -> MotoServer {
        if starting == nil { starting = Task { try await MotoServer() } }
        return try await starting!.value
    }

    func ensureTable(_ store: DynamoDBStore) async throws {
        if table == nil { table = Task { _ = try await store.createTable() } }
        try await table!.value
    }
}
