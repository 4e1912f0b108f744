import Foundation
import RelayJSON
import RelaySync
import RelayTestSupport
import Synchronization
import Testing

@testable import RelayStore

/// A transaction is one job of the writer's group commit: one that fails part-way rolls back its
/// own earlier writes and nothing else of the batch it shares.
struct SQLiteTransactTests {
    @Test func aFailedTransactionInABatchRollsBackOnlyItself() async throws {
        let directory = try temporaryDirectory(prefix: "relay-store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let gate = BatchGate()
        let commits = GroupCommitTests.Commits()
        var configuration = SQLiteStore.Configuration(path: directory.appendingPathComponent("relay.db").path)
        configuration.purgeInterval = nil
        configuration.groupCommitLinger = .zero
        configuration.operationTimeout = .seconds(300)
        configuration.afterEachCommit = { commits.record($0) }
        configuration.beforeEachBatch = gate.hold
        let store = try await SQLiteStore.open(configuration)
        let key: @Sendable (String) -> ItemKey = { ItemKey(pk: "TX", sk: $0) }
        async let first = store.put(key("FIRST"), attributes: [:])
        try await gate.waitUntilHeld()
        // Queued behind the stalled commit, so the next batch holds all four.
        async let single = store.put(key("SINGLE"), attributes: [:])
        async let failing: StoreError? = {
            do throws(StoreError) {
                try await store.transact([
                    .put(key("STORED-THEN-UNDONE"), attributes: ["n": 1]),
                    .update(key("MISSING"), ItemUpdate(set: ["n": 1])),
                ])
                return nil
            } catch {
                return error
            }
        }()
        async let succeeding: Void = store.transact([
            .put(key("B"), attributes: ["n": 1], condition: .absent), .put(key("C"), attributes: ["n": 2]),
        ])
        async let last = store.put(key("LAST"), attributes: [:])
        while store.writeQueue.snapshot.queued < 4 { try await Task.sleep(for: .milliseconds(5)) }
        gate.release()
        _ = try await (first, single, last)
        try await succeeding
        #expect(await failing == .conditionFailed)
        #expect(commits.all == [1, 4], "the four jobs shared one commit")
        for sk in ["FIRST", "SINGLE", "B", "C", "LAST"] {
            #expect(try await store.get(key(sk))?.version == 1, "\(sk) committed")
        }
        #expect(try await store.get(key("STORED-THEN-UNDONE")) == nil, "the failed transaction's first write undone")
        await store.close()
    }
}
