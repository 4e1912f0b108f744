import Foundation
import RelayJSON
import RelaySync
import RelayTestSupport
import Synchronization
import Testing

@testable import RelayStore

/// Group commit on a real SQLite file: concurrent writes share transactions (and fsyncs), the writer
/// lingers for company only while writes keep coming, and each caller is answered after its commit.
struct GroupCommitTests {
    /// Commit sizes, in order, as the writer thread reports them.
    final class Commits: Sendable {
        private let sizes = Locked<[Int]>([])
        func record(_ size: Int) { sizes.withLock { $0.append(size) } }
        var all: [Int] { sizes.withLock { $0 } }
    }

    @Test func aBurstOfConcurrentWritesTakesFewerCommitsThanWrites() async throws {
        let directory = try temporaryDirectory(prefix: "relay-store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let commits = Commits()
        var configuration = SQLiteStore.Configuration(path: directory.appendingPathComponent("relay.db").path)
        configuration.afterEachCommit = { commits.record($0) }
        let store = try await SQLiteStore.open(configuration)
        let writes = 200
        try await withThrowingTaskGroup(of: Item.self) { group in
            for index in 0..<writes {
                group.addTask {
                    try await store.put(ItemKey(pk: "GRANT#\(index)", sk: "META"), attributes: ["n": .int(index)])
                }
            }
            for try await item in group { #expect(item.version == 1) }
        }
        #expect(commits.all.reduce(0, +) == writes, "every write committed once")
        #expect(commits.all.count < writes, "writes shared commits: \(commits.all)")
        #expect(try await store.storedItemCount() == writes)
        await store.close()
    }

    /// The writer is stalled inside a first commit while a second write queues; once released, it
    /// finds that write waiting (writes keep coming) and lingers until the batch is full instead of
    /// committing it alone. The linger is a minute long: only the batch filling up ends it here.
    @Test func aBusyWriterLingersUntilTheBatchFills() async throws {
        let directory = try temporaryDirectory(prefix: "relay-store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let gate = BatchGate()
        let commits = Commits()
        var configuration = SQLiteStore.Configuration(path: directory.appendingPathComponent("relay.db").path)
        configuration.maxBatchSize = 4
        configuration.purgeInterval = nil
        configuration.groupCommitLinger = .seconds(60)
        configuration.operationTimeout = .seconds(300)
        configuration.afterEachCommit = { commits.record($0) }
        configuration.beforeEachBatch = gate.hold
        let store = try await SQLiteStore.open(configuration)
        let put = { @Sendable (index: Int) async throws -> Item in
            try await store.put(ItemKey(pk: "GRANT#\(index)", sk: "META"), attributes: ["n": .int(index)])
        }
        async let first = put(0)
        try await gate.waitUntilHeld()
        async let second = put(1)
        while store.writeQueue.snapshot.queued < 1 { try await Task.sleep(for: .milliseconds(5)) }
        gate.release()
        while !store.writeQueue.snapshot.lingering { try await Task.sleep(for: .milliseconds(5)) }
        #expect(commits.all == [1], "the first write committed alone (the writer was idle)")
        async let third = put(2)
        async let fourth = put(3)
        async let fifth = put(4)
        let versions = try await [first, second, third, fourth, fifth].map(\.version)
        #expect(versions == [1, 1, 1, 1, 1])
        #expect(commits.all == [1, 4], "the lingering writer committed the next four writes together")
        await store.close()
    }

    /// One caller writing one write after another never has company: the writer never lingers (with
    /// a minute-long linger, a writer that did would stall this test for minutes per write).
    @Test func aLoneSequentialWriterNeverLingers() async throws {
        let directory = try temporaryDirectory(prefix: "relay-store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let commits = Commits()
        var configuration = SQLiteStore.Configuration(path: directory.appendingPathComponent("relay.db").path)
        configuration.groupCommitLinger = .seconds(60)
        configuration.purgeInterval = nil  // no background writer: this caller is alone
        configuration.afterEachCommit = { commits.record($0) }
        let store = try await SQLiteStore.open(configuration)
        let key = ItemKey(pk: "GRANT#1", sk: "META")
        var version = try await store.put(key, attributes: ["n": 0]).version
        for step in 1...30 {
            version = try await store.update(
                key, ItemUpdate(set: ["n": .int(step)]), condition: .versionEquals(version)
            )
            .version
        }
        #expect(version == 31)
        #expect(commits.all == Array(repeating: 1, count: 31))
        #expect(store.writeQueue.snapshot.lingers == 0)
        await store.close()
    }
}
