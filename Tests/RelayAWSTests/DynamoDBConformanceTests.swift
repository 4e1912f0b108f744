import RelayStoreConformance
import Testing

/// The store conformance suite (the same cases as MemoryStore and SQLiteStore) against
/// `DynamoDBStore` on moto, including the 50-way conditional-update races.
struct DynamoDBConformanceTests {
    @Test(arguments: StoreConformance.cases)
    func dynamoDBStore(_ check: StoreConformance.Case) async throws {
        try await check.run(on: AWSTestSupport.dynamoDB)
    }
}
