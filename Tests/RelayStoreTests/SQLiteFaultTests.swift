import Foundation
import RelayJSON
import RelayTestSupport
import Synchronization
import Testing

@testable import RelayStore

/// A store that is locked, slow, overloaded, closed or unopenable answers a typed error; it never
/// crashes or hangs.
struct SQLiteFaultTests {
    @Test func lockHeldByAnotherProcessGivesBusyNotAHang() async throws {
        let directory = try temporaryDirectory(prefix: "relay-store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("relay.db").path
        var configuration = SQLiteStore.Configuration(path: path)
        configuration.busyTimeout = .milliseconds(200)
        let store = try await SQLiteStore.open(configuration)
        let key = ItemKey(pk: "GRANT#1", sk: "META")
        _ = try await store.put(key, attributes: ["n": 1])

        let child = try CrashWriterProcess(StoreTestSupport.crashWriter, ["hold-lock", path, "30"])
        let locked = try await blocking { child.read { $0.contains("locked") } }
        #expect(locked, "the child took the write lock")

        await #expect(throws: StoreError.unavailable("database is busy (locked by another connection)")) {
            try await store.update(key, ItemUpdate(set: ["n": 2]))
        }
        #expect(try await store.get(key)?.attributes["n"] == 1, "reads continue beside the lock (WAL)")

        try await blocking { child.kill9AndDrain() }
        let updated = try await store.update(key, ItemUpdate(set: ["n": 2]))
        #expect(updated.version == 2, "writes work again once the lock holder is gone")
        await store.close()
    }

    @Test func slowDatabaseTimesOutWithTypedErrors() async throws {
        let directory = try temporaryDirectory(prefix: "relay-store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let stall = Atomic<Bool>(false)
        var configuration = SQLiteStore.Configuration(path: directory.appendingPathComponent("relay.db").path)
        configuration.operationTimeout = .milliseconds(150)
        configuration.readerCount = 1
        configuration.beforeEachBatch = { if stall.load(ordering: .relaxed) { Thread.sleep(forTimeInterval: 0.6) } }
        let store = try await SQLiteStore.open(configuration)
        let key = ItemKey(pk: "GRANT#1", sk: "META")
        _ = try await store.put(key, attributes: ["n": 1])

        stall.store(true, ordering: .relaxed)
        async let first = outcome { try await store.update(key, ItemUpdate(set: ["n": 2])) }
        async let second = outcome { try await store.update(key, ItemUpdate(set: ["n": 3])) }
        async let read = outcome { try await store.get(key) }
        let results = await [first.map { _ in () }, second.map { _ in () }, read.map { _ in () }]
        for result in results {
            guard case .failure(.unavailable(let reason)) = result else {
                Issue.record("expected a timeout, got \(result)")
                continue
            }
            #expect(reason.contains("timed out"))
        }
        stall.store(false, ordering: .relaxed)
        // Once the database is fast again the store recovers; a write whose outcome was unknown
        // either happened or not, but never half.
        var item: Item?
        for _ in 0..<100 {
            if let current = try? await store.get(key) {
                item = current
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect([1, 2, 3].contains(item?.version ?? 0))
        #expect(item.map { $0.attributes["n"] == .int($0.version) } == true, "attributes match the version")
        await store.close()
    }

    @Test func fullQueueIsThrottled() async throws {
        let directory = try temporaryDirectory(prefix: "relay-store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let gate = BatchGate(armed: false)
        var configuration = SQLiteStore.Configuration(path: directory.appendingPathComponent("relay.db").path)
        configuration.readerCount = 1
        configuration.maxPendingOperations = 2
        // Long: what this test checks is the queue's bound, not the timeout, and a loaded machine can
        // keep the queued reads waiting for seconds.
        configuration.operationTimeout = .seconds(120)
        configuration.beforeEachBatch = gate.hold
        let store = try await SQLiteStore.open(configuration)
        let key = ItemKey(pk: "A", sk: "B")
        gate.arm()
        async let stalled = outcome { try await store.get(key) }
        try await gate.waitUntilHeld()
        async let queued1 = outcome { try await store.get(key) }
        async let queued2 = outcome { try await store.get(key) }
        try await Task.sleep(for: .milliseconds(50))  // let both reach the queue
        let refused = await outcome { try await store.get(key) }
        guard case .failure(.throttled) = refused else {
            Issue.record("expected throttled, got \(refused)")
            return
        }
        gate.release()
        let others = await [stalled, queued1, queued2]
        #expect(
            others.allSatisfy { if case .success = $0 { true } else { false } },
            "queued reads still complete: \(others)")
        await store.close()
    }

    @Test func unopenableDatabaseIsUnavailable() async throws {
        await #expect {
            try await SQLiteStore.open(path: "/nonexistent-\(UUID().uuidString)/relay.db")
        } throws: { error in
            guard case .unavailable(let reason) = error as? StoreError else { return false }
            return reason.contains("cannot open")
        }
        let directory = try temporaryDirectory(prefix: "relay-store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let notADatabase = directory.appendingPathComponent("text.db")
        try Data(repeating: 0x41, count: 8192).write(to: notADatabase)
        await #expect(throws: StoreError.self) { try await SQLiteStore.open(path: notADatabase.path) }
    }
}

/// The result of a store call, for tests that compare outcomes; anything but a `StoreError` is a
/// test failure.
func outcome<T: Sendable>(_ body: () async throws -> T) async -> Result<T, StoreError> {
    do {
        return .success(try await body())
    } catch let error as StoreError {
        return .failure(error)
    } catch {
        Issue.record("not a StoreError: \(error)")
        return .failure(.invalid("\(error)"))
    }
}
