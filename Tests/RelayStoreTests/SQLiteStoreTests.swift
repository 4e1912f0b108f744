import Foundation
import RelayJSON
import RelaySync
import RelayTestSupport
import Testing

@testable import RelayStore

/// SQLite-specific behaviour: files, WAL, purging, integrity. Faults are in SQLiteFaultTests.
struct SQLiteStoreTests {
    @Test func persistsAcrossReopenInWALMode() async throws {
        let directory = try temporaryDirectory(prefix: "relay-store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("relay.db").path
        let store = try await SQLiteStore.open(path: path)
        for index in 0..<20 {
            _ = try await store.put(ItemKey(pk: "CLIENT#\(index)", sk: "META"), attributes: ["index": .int(index)])
        }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"), "writes go to the write-ahead log")
        await store.close()
        await #expect(throws: StoreError.unavailable("the store is closed")) {
            try await store.get(ItemKey(pk: "CLIENT#1", sk: "META"))
        }

        let reopened = try await SQLiteStore.open(path: path)
        let item = try await reopened.get(ItemKey(pk: "CLIENT#7", sk: "META"))
        #expect(item?.attributes["index"] == 7 && item?.version == 1)
        #expect(try await reopened.storedItemCount() == 20)
        #expect(try await reopened.integrityCheck() == ["ok"])
        await reopened.close()
    }

    /// A rotated token's save changes an item's attributes, not its expiry: its commit writes the
    /// row's page and leaves the expiry index's page alone (one WAL frame, not two). An expiry that
    /// changes still moves the index entry, and reads see it.
    @Test func anUpdateThatKeepsTheExpiryWritesOnlyTheRowsPage() async throws {
        let directory = try temporaryDirectory(prefix: "relay-store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock()
        let path = directory.appendingPathComponent("relay.db").path
        var configuration = SQLiteStore.Configuration(path: path)
        configuration.checkpointInterval = .seconds(3600)  // the WAL only grows during the test
        configuration.purgeInterval = nil
        let store = try await SQLiteStore.open(configuration, clock: clock)
        let key = ItemKey(pk: "GRANT#1", sk: "META")
        let expiry = clock.epochSeconds() + 600
        _ = try await store.put(key, attributes: ["sealed": "a"], expiresAt: expiry)
        func walFrames() throws -> Int {
            let bytes = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
            return (bytes - 32) / (4096 + 24)  // the WAL header, then one header and one page per frame
        }

        var frames = try walFrames()
        let updated = try await store.update(key, ItemUpdate(set: ["sealed": "b"]), condition: .versionEquals(1))
        #expect(updated.version == 2 && updated.expiresAt == expiry)
        #expect(try walFrames() - frames == 1, "the row's page only")

        frames = try walFrames()
        _ = try await store.put(key, attributes: ["sealed": "c"], expiresAt: expiry, condition: .versionEquals(2))
        #expect(try walFrames() - frames == 1, "a put over a live item with the same expiry: the row's page only")

        frames = try walFrames()
        let moved = try await store.update(
            key, ItemUpdate(expiresAt: .set(expiry + 600)), condition: .versionEquals(3))
        #expect(moved.version == 4 && moved.expiresAt == expiry + 600)
        #expect(try walFrames() - frames == 2, "a new expiry moves the index entry too")
        clock.advance(by: 600)
        #expect(try await store.get(key)?.version == 4, "the index and the row agree on the new expiry")
        #expect(try await store.purgeExpired() == 0)
        clock.advance(by: 600)
        #expect(try await store.get(key) == nil)
        #expect(try await store.purgeExpired() == 1, "the purge finds the row by its new expiry")
        #expect(try await store.integrityCheck() == ["ok"])
        await store.close()
    }

    /// Every connection closes on its own thread at the same moment; SQLite removes the WAL only
    /// when the closing connection sees no other open, so without a last lone close some of these
    /// rounds leave it behind.
    @Test func closeFoldsTheWALIntoTheDatabaseAndRemovesIt() async throws {
        let directory = try temporaryDirectory(prefix: "relay-store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("relay.db").path
        for round in 0..<25 {
            var configuration = SQLiteStore.Configuration(path: path)
            configuration.readerCount = 4
            let store = try await SQLiteStore.open(configuration)
            _ = try await store.put(ItemKey(pk: "CLIENT#\(round)", sk: "META"), attributes: ["round": .int(round)])
            async let first = store.get(ItemKey(pk: "CLIENT#0", sk: "META"))
            async let second = store.get(ItemKey(pk: "CLIENT#\(round)", sk: "META"))
            _ = try await (first, second)
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))
            await store.close()
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "round \(round): the WAL outlived close()")
        }
        let reopened = try await SQLiteStore.open(path: path)
        #expect(try await reopened.storedItemCount() == 25)
        // The last lone connection never creates the file: a database removed under an open store
        // stays removed once the store closes.
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        await reopened.close()
        #expect(!FileManager.default.fileExists(atPath: path), "close() created a database that was removed")
    }

    /// Text parameters are bound from buffers the statements keep between executions (no copy by
    /// SQLite). Values that grow past a slot, shrink below what it held, pass the slot limit (then
    /// SQLite copies them), or are empty are each read back exactly, through the same cached
    /// statements, and queries by prefix see the keys they were written under.
    @Test func boundTextIsReadBackExactlyWhateverItsSizeOrder() async throws {
        let directory = try temporaryDirectory(prefix: "relay-store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLiteStore.open(path: directory.appendingPathComponent("relay.db").path)
        let sizes = [3, 0, 200, 5, 5_000, 40, SQLiteStatement.maxSlotBytes + 1_000, 7, 100_000, 1]
        var written: [ItemKey: String] = [:]
        for (index, size) in sizes.enumerated() {
            let text = String((0..<size).map { Character(UnicodeScalar(UInt8(97 + ($0 + index) % 26))) })
            let key = ItemKey(
                pk: "P#" + String(repeating: "k", count: sizes[sizes.count - 1 - index] % 300), sk: "S#\(index)")
            _ = try await store.put(key, attributes: ["text": .string(text)])
            written[key] = text
            // Each read goes through the statement the earlier, differently sized, reads used.
            for (earlier, value) in written {
                #expect(try await store.get(earlier)?.attributes["text"] == .string(value), "\(earlier)")
            }
            let updated = try await store.update(
                key, ItemUpdate(set: ["text": .string(text + "!")]), condition: .versionEquals(1))
            #expect(updated.attributes["text"] == .string(text + "!"))
            written[key] = text + "!"
        }
        for (key, value) in written {
            let page = try await store.query(Query(pk: key.pk, skPrefix: "S#"))
            #expect(page.items.contains { $0.sk == key.sk && $0.attributes["text"] == .string(value) }, "\(key)")
        }
        #expect(try await store.integrityCheck() == ["ok"])
        await store.close()
    }

    @Test func purgesExpiredItemsInTheBackground() async throws {
        let directory = try temporaryDirectory(prefix: "relay-store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock()
        var configuration = SQLiteStore.Configuration(path: directory.appendingPathComponent("relay.db").path)
        configuration.purgeInterval = .milliseconds(20)
        let store = try await SQLiteStore.open(configuration, clock: clock)
        for index in 0..<5 {
            _ = try await store.put(
                ItemKey(pk: "CODE#\(index)", sk: "META"), attributes: [:], expiresAt: clock.epochSeconds() + 300)
        }
        _ = try await store.put(ItemKey(pk: "CLIENT#1", sk: "META"), attributes: [:])
        #expect(try await store.storedItemCount() == 6)
        clock.advance(by: 300)
        #expect(try await store.get(ItemKey(pk: "CODE#0", sk: "META")) == nil, "invisible before any purge")
        var remaining = 6
        for _ in 0..<500 where remaining != 1 {
            try await Task.sleep(for: .milliseconds(10))
            remaining = try await store.storedItemCount()
        }
        #expect(remaining == 1, "the background purge removed the expired rows")
        await store.close()
    }

    @Test func purgeRunsInBoundedBatches() async throws {
        let directory = try temporaryDirectory(prefix: "relay-store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock()
        var configuration = SQLiteStore.Configuration(path: directory.appendingPathComponent("relay.db").path)
        configuration.purgeInterval = nil
        configuration.purgeBatchSize = 3
        let store = try await SQLiteStore.open(configuration, clock: clock)
        for index in 0..<10 {
            _ = try await store.put(
                ItemKey(pk: "P", sk: "E\(index)"), attributes: [:], expiresAt: clock.epochSeconds() + 1)
        }
        _ = try await store.put(ItemKey(pk: "P", sk: "KEEP"), attributes: [:], expiresAt: clock.epochSeconds() + 100)
        #expect(try await store.purgeExpired() == 0)
        clock.advance(by: 1)
        #expect(try await store.purgeExpired() == 10)
        #expect(try await store.storedItemCount() == 1)
        await store.close()
    }

    @Test func memoryStorePurges() async throws {
        let clock = ManualClock()
        let store = MemoryStore(clock: clock, purgeInterval: .milliseconds(10))
        _ = try await store.put(ItemKey(pk: "A", sk: "1"), attributes: [:], expiresAt: clock.epochSeconds() + 5)
        _ = try await store.put(ItemKey(pk: "A", sk: "2"), attributes: [:])
        #expect(store.storedItemCount == 2)
        clock.advance(by: 5)
        for _ in 0..<500 where store.storedItemCount != 1 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(store.storedItemCount == 1, "the background purge removed the expired item")
        #expect(store.purgeExpired() == 0)
    }

    @Test(
        arguments: [("", nil), ("a", [0x62]), ("GRANT#", Array("GRANT$".utf8)), ("\u{E9}", [0xC3, 0xAA])]
            as [(String, [UInt8]?)])
    func prefixUpperBound(prefix: String, bound: [UInt8]?) {
        #expect(ItemTable.prefixUpperBound(prefix) == bound)
    }

    @Test func clocks() {
        let clock = ManualClock(start: 100.5)
        #expect(clock.epochSeconds() == 100)
        clock.advance(by: 0.5)
        #expect(clock.epochSeconds() == 101)
        clock.set(to: 7)
        #expect(clock.now() == 7)
        let system: any WallClock = SystemClock()
        #expect(abs(system.now() - Date().timeIntervalSince1970) < 5)
    }
}
