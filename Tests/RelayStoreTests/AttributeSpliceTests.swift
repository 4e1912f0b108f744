import Foundation
import RelayJSON
import RelaySync
import RelayTestSupport
import Testing

@testable import RelayStore

/// `SQLiteStore.setAttributes` splices the set members into the stored JSON text
/// (`AttributeSplice`) and falls back to the general path for whatever the splice cannot settle.
/// The shared behaviour is in the conformance cases; these check the splice, the stored text and
/// the fallbacks.
struct AttributeSpliceTests {
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
            raw = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 2000)
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

        func walFrames() throws -> Int {
            let bytes = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
            return (bytes - 32) / (4096 + 24)  // the WAL header, then one header and one page per frame
        }

        func close() async {
            await store.close()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// Only the set member changes: the others keep their stored text (a number as `1e2`, an
    /// escaped `é`), which a read, merge and re-encode in the process would have rewritten. The
    /// commit writes the row's page only, like any update that keeps the expiry.
    @Test func theOtherMembersKeepTheirStoredText() async throws {
        let fixture = try await Fixture()
        let key = ItemKey(pk: "GRANT#1", sk: "META")
        _ = try await fixture.store.put(key, attributes: ["sealed": "a"], expiresAt: 2_000_000_000)
        try fixture.setRaw(key, attrs: #"{"n":1e2,"s":"\u00e9","sealed":"a","z":{"k":[1,true,null]}}"#)

        let frames = try fixture.walFrames()
        let version = try await fixture.store.setAttributes(key, ["sealed": "b\"\n"], condition: .versionEquals(1))
        #expect(version == 2)
        #expect(try fixture.walFrames() - frames == 1, "the row's page only")
        let row = try #require(try fixture.row(key))
        #expect(row.attrs == #"{"n":1e2,"s":"\u00e9","sealed":"b\"\n","z":{"k":[1,true,null]}}"#)
        #expect(row.version == 2)
        let read = try await fixture.store.get(key)
        #expect(read?.attributes == ["n": .double(100), "s": "é", "sealed": "b\"\n", "z": ["k": [1, true, nil]]])
        #expect(read?.expiresAt == 2_000_000_000)

        let added = try await fixture.store.setAttributes(key, ["new": ["x": 1.5], "sealed": "c"], condition: .exists)
        #expect(added == 3)
        #expect(
            try fixture.row(key)?.attrs
                == #"{"n":1e2,"s":"\u00e9","sealed":"c","z":{"k":[1,true,null]},"new":{"x":1.5}}"#)
        #expect(try await fixture.store.integrityCheck() == ["ok"])
        await fixture.close()
    }

    /// A stored object that repeats the name being set goes the general way: read as the parser
    /// reads it (one member, at its first position), set, and stored once.
    @Test func aRepeatedNameTakesTheGeneralPath() async throws {
        let fixture = try await Fixture()
        let key = ItemKey(pk: "GRANT#1", sk: "META")
        _ = try await fixture.store.put(key, attributes: ["sealed": "a"])
        try fixture.setRaw(key, attrs: #"{"sealed":"x","a":1,"sealed":"y"}"#)
        #expect(try await fixture.store.setAttributes(key, ["sealed": "new"], condition: .versionEquals(1)) == 2)
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
        await #expect(throws: expected) {
            try await fixture.store.setAttributes(key, ["sealed": "b"], condition: .versionEquals(1))
        }
        let row = try #require(try fixture.row(key))
        #expect(row.attrs == stored && row.version == 1)
        await fixture.close()
    }

    /// The size limit holds for the spliced text: what would pass it is refused (the row
    /// unchanged), what fits is stored.
    @Test func theSizeLimitHoldsForTheSplicedText() async throws {
        let fixture = try await Fixture()
        let key = ItemKey(pk: "GRANT#1", sk: "META")
        let big = String(repeating: "x", count: StoreLimits.maximumAttributeBytes - 30)
        _ = try await fixture.store.put(key, attributes: ["big": .string(big)])  // 20 bytes under the limit
        await #expect(throws: StoreError.invalid("attributes exceed \(StoreLimits.maximumAttributeBytes) bytes")) {
            try await fixture.store.setAttributes(
                key, ["more": .string(String(repeating: "y", count: 50))], condition: .versionEquals(1))
        }
        #expect(try fixture.row(key)?.version == 1)
        let version = try await fixture.store.setAttributes(key, ["more": "y"], condition: .versionEquals(1))
        #expect(version == 2)
        #expect(try await fixture.store.get(key)?.attributes == ["big": .string(big), "more": "y"])
        await fixture.close()
    }

    private static func splice(_ stored: String, _ attributes: JSONObject) -> String? {
        Array(stored.utf8).withUnsafeBufferPointer { AttributeSplice.spliced($0, setting: attributes) }
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// On the relay's own compact encoding the splice gives exactly what `Write.apply` would store:
    /// the merged object encoded again.
    @Test(arguments: [
        JSONObject(), ["sealed": "old"], ["a": 1, "sealed": "old", "z": ["sealed": 0]],
        ["text": "quote \" backslash \\ line\n é 🎉", "n": -1.25, "list": [1, nil, true, ["x": []]]],
    ])
    func matchesReadMergeAndEncode(_ stored: JSONObject) throws {
        let storedText = String(decoding: JSONValue.object(stored).bytes, as: UTF8.self)
        for set: JSONObject in [
            ["sealed": "new"], ["sealed": "new", "added": ["k": [1, 2]], "a": nil], ["z": 1.5, "e\"scaped name": "v"],
        ] {
            var merged = stored
            for (name, value) in set { merged[name] = value }
            let expected = String(decoding: JSONValue.object(merged).bytes, as: UTF8.self)
            #expect(Self.splice(storedText, set) == expected, "stored \(storedText), set \(set)")
        }
    }

    /// Stored text the relay did not write keeps its spacing and spelling; names are compared
    /// after decoding escapes; only top-level members are set.
    @Test func keepsForeignTextAndSetsTopLevelMembersOnly() {
        #expect(
            Self.splice(#" { "a" : 1 , "se\u0061led" : "x" } "#, ["sealed": "y"])
                == #" { "a" : 1 , "se\u0061led" : "y" } "#)
        #expect(Self.splice(#"{"n":{"sealed":1}}"#, ["sealed": 2]) == #"{"n":{"sealed":1},"sealed":2}"#)
        #expect(Self.splice(#"{ }"#, ["a": 1]) == #"{ "a":1}"#)
        #expect(Self.splice(#"{"b":2,"a":1}"#, ["a": "A", "b": "B"]) == #"{"b":"B","a":"A"}"#)
        // A name that only appears inside a string value, or as a nested member, is not a member.
        #expect(
            Self.splice(#"{"note":"\"sealed\":1,","list":[{"sealed":0}]}"#, ["sealed": 2])
                == #"{"note":"\"sealed\":1,","list":[{"sealed":0}],"sealed":2}"#)
    }

    /// What the splice leaves to the general path: text that is not one JSON object, and a set
    /// name the stored object repeats.
    @Test(arguments: [#"{oops"#, #"[1]"#, #""{}""#, "", #"{"a":1} x"#, #"{"a":1,"a":2}"#])
    func leavesTheRestToTheGeneralPath(_ stored: String) {
        #expect(Self.splice(stored, ["a": 3]) == nil)
    }
}
