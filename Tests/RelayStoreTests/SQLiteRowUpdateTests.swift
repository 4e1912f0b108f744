import Foundation
import RelayJSON
import RelaySync
import RelayTestSupport
import Testing

@testable import RelayStore

/// `update` on SQLite rows as they lie: a repeated name, a corrupt row, the size limit. The shared
/// behaviour is in the conformance cases.
struct SQLiteRowUpdateTests {
    /// A store on a fresh file, with a second connection that reads and writes rows as they lie.
    private struct Fixture {
        let directory: URL
        let store: SQLiteStore
        let raw: SQLiteConnection
        let path: String

        init() async throws {
            directory = try temporaryDirectory(prefix: "relay-splice")
            path = directory.appendingPathComponent("relay.db").path
            var configuration = SQLiteStore.Configuration(path: path)
            configuration.checkpointInterval = .seconds(3600)  // the WAL only grows during a test
            configuration.purgeInterval = nil
            store = try await SQLiteStore.open(configuration)
            raw = try SQLiteConnection(path: path, busyTimeout: .milliseconds(2000))
        }

        func row(_ key: ItemKey) throws -> (attrs: String, version: Int)? {
            let statement = try raw.prepared("SELECT attrs, version FROM items WHERE pk = ?1 AND sk = ?2")
            defer { statement.reset() }
            statement.bind(1, key.pk)
            statement.bind(2, key.sk)
            guard try statement.step() else { return nil }
            return (statement.text(0) ?? "", statement.int(1))
        }

        func setRaw(_ key: ItemKey, attrs: String) throws {
            let statement = try raw.prepared("UPDATE items SET attrs = ?3 WHERE pk = ?1 AND sk = ?2")
            statement.bind(1, key.pk)
            statement.bind(2, key.sk)
            statement.bind(3, attrs)
            try statement.run()
        }

        func close() async {
            await store.close()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// A stored object that repeats the name being set goes the general way: read as the parser
    /// reads it (one member, at its first position), set, and stored once.
    @Test func aRepeatedNameTakesTheGeneralPath() async throws {
        let fixture = try await Fixture()
        let key = ItemKey(pk: "GRANT#1", sk: "META")
        _ = try await fixture.store.put(key, attributes: ["sealed": "a"])
        try fixture.setRaw(key, attrs: #"{"sealed":"x","a":1,"sealed":"y"}"#)
        #expect(
            try await fixture.store.update(key, ItemUpdate(set: ["sealed": "new"]), condition: .versionEquals(1))
                .version == 2)
        #expect(try fixture.row(key)?.attrs == #"{"sealed":"new","a":1}"#)
        #expect(try await fixture.store.get(key)?.attributes == ["sealed": "new", "a": 1])
        await fixture.close()
    }

    /// A row that is not a JSON object fails as `update` fails on it, and stays as it was.
    @Test(arguments: [#"{oops"#, #"[1,2]"#, #""text""#, ""])
    func aCorruptRowIsReportedAndLeftAlone(_ stored: String) async throws {
        let fixture = try await Fixture()
        let key = ItemKey(pk: "GRANT#1", sk: "META")
        _ = try await fixture.store.put(key, attributes: ["sealed": "a"])
        try fixture.setRaw(key, attrs: stored)
        let expected = StoreError.unavailable("a stored item is corrupt (attributes are not a JSON object)")
        await #expect(throws: expected) {
            try await fixture.store.update(key, ItemUpdate(set: ["sealed": "b"]), condition: .versionEquals(1))
        }
        let row = try #require(try fixture.row(key))
        #expect(row.attrs == stored && row.version == 1)
        await fixture.close()
    }

    /// The size limit holds for the merged text: what would pass it is refused (the row
    /// unchanged), what fits is stored.
    @Test func theSizeLimitHoldsForTheSplicedText() async throws {
        let fixture = try await Fixture()
        let key = ItemKey(pk: "GRANT#1", sk: "META")
        let big = String(repeating: "x", count: StoreLimits.maximumAttributeBytes - 30)
        _ = try await fixture.store.put(key, attributes: ["big": .string(big)])  // 20 bytes under the limit
        await #expect(throws: StoreError.invalid("attributes exceed \(StoreLimits.maximumAttributeBytes) bytes")) {
            try await fixture.store.update(
                key, ItemUpdate(set: ["more": .string(String(repeating: "y", count: 50))]), condition: .versionEquals(1)
            )
        }
        #expect(try fixture.row(key)?.version == 1)
        let version = try await fixture.store.update(key, ItemUpdate(set: ["more": "y"]), condition: .versionEquals(1))
        #expect(version.version == 2)
        #expect(try await fixture.store.get(key)?.attributes == ["big": .string(big), "more": "y"])
        await fixture.close()
    }
}
