import Foundation
import RelayEmulator
import RelayJSON
import Testing

/// Issue 42 (docs/tools.md, "Error codes"): CloudKit's QUOTA_EXCEEDED as the whole request's answer (HTTP 413 with
/// CloudKit's JSON body), not only as one record's, is `QUOTA_EXCEEDED` for the model, and nothing is stored.
@Suite struct QuotaExceededToolTests {
    @Test func aWholeRequestQuotaExceededIsItsOwnCode() async throws {
        let harness = try ToolHarness()
        let alice = try harness.connect()
        harness.emulator.injectFault(
            status: 413, serverErrorCode: "QUOTA_EXCEEDED", reason: "Quota exceeded", operations: ["records/modify"])
        let full = try await harness.call("add_todo", ["title": "x"], as: alice)
        #expect(full.errorCode == "QUOTA_EXCEEDED", "\(full)")
        #expect(full.text.contains("Retrying will not help"), "\(full)")
        #expect(try harness.stored(alice, "Todo").isEmpty)
    }
}
