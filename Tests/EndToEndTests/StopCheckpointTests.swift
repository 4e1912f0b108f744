import Foundation
import RelayStore
import Testing

extension EndToEndSuite {
    /// A relay stopped the way an operator stops it (SIGTERM) leaves one self-contained SQLite file:
    /// the saves of its last calls (the CloudKit token each rotated) are checkpointed from the WAL into
    /// the database file, so a copy of that file alone (a backup taken after the stop, a move to
    /// another machine) has them. Before, the WAL was left for the next open to replay: a backup of
    /// the database file alone went back to tokens CloudKit had already replaced.
    @Suite(.timeLimit(.minutes(10))) struct StopCheckpointTests {
        @Test func testAStoppedRelayLeavesItsSavesInTheDatabaseFile() async throws {
            let relay = try await ServedRelay()
            var finished = false
            defer { if !finished { Task { [relay] in await relay.finish() } } }
            let person = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let tokens = try await person.connect(appleID: "alice@example.com")
            for _ in 0..<3 {
                let (reply, _) = try await relay.mcp.tool("get_me", token: tokens.access)
                #expect(reply.status == 200)
            }
            let database = relay.service.path + "/relay.sqlite"
            let wal = try FileManager.default.attributesOfItem(atPath: database + "-wal")[.size] as? Int
            #expect(wal ?? 0 > 0, "the running relay writes through its WAL")

            try await relay.stopRelay()
            let walAfter = (try? FileManager.default.attributesOfItem(atPath: database + "-wal"))?[.size] as? Int
            #expect(walAfter ?? 0 == 0, "the WAL was left behind with \(walAfter ?? 0) bytes")

            // The database file alone, copied elsewhere: the grant is there with the token of the last call.
            let copy = FileManager.default.temporaryDirectory.appendingPathComponent("stop-copy-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: copy) }
            try FileManager.default.copyItem(atPath: database, toPath: copy.path + "/relay.sqlite")
            let original = try await SQLiteStore.open(SQLiteStore.Configuration(path: database))
            let copied = try await SQLiteStore.open(SQLiteStore.Configuration(path: copy.path + "/relay.sqlite"))
            let grants = try await original.scan(pkPrefix: "GRANT#", cursor: nil, limit: 10)
            // The grant and what hangs under it (its tokens), each as the relay last wrote it.
            #expect(grants.items.filter { $0.attributes["sealed"] != nil }.count == 1)
            for item in grants.items {
                let inCopy = try await copied.get(ItemKey(pk: item.pk, sk: item.sk))
                #expect(inCopy?.version == item.version, "the copy has an older grant")
                #expect(inCopy?.attributes["sealed"] == .some(item.attributes["sealed"]))
            }
            await original.close()
            await copied.close()
            finished = true
            await relay.finish()
        }
    }
}
