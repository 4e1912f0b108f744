import RelayStoreConformance
import Testing

/// The shared store behaviour (Sources/RelayStoreConformance) against every local backend. A
/// backend elsewhere (DynamoDB in RelayAWSTests) adds one such test with its own harness.
struct ConformanceTests {
    @Test(arguments: StoreConformance.cases)
    func memoryStore(_ check: StoreConformance.Case) async throws {
        try await check.run(on: StoreTestSupport.memory)
    }

    @Test(arguments: StoreConformance.cases)
    func sqliteStore(_ check: StoreConformance.Case) async throws {
        try await check.run(on: StoreTestSupport.sqlite)
    }
}
