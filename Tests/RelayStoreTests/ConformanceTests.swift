import RelayStoreConformance
import Testing

/// The shared store behaviour (Sources/RelayStoreConformance) against every local backend. A
/// backend elsewhere (DynamoDB in RelayAWSTests) adds one such test with its own harness.
struct ConformanceTests {
    /// Case names are the test arguments; a duplicate would hide a case in the report.
    @Test func casesHaveDistinctNames() {
        let names = StoreConformance.cases.map(\.name)
        #expect(names.count >= 20)
        #expect(Set(names).count == names.count)
    }

    @Test(arguments: StoreConformance.cases)
    func memoryStore(_ check: StoreConformance.Case) async throws {
        try await check.run(on: StoreTestSupport.memory)
    }

    @Test(arguments: StoreConformance.cases)
    func sqliteStore(_ check: StoreConformance.Case) async throws {
        try await check.run(on: StoreTestSupport.sqlite)
    }
}
