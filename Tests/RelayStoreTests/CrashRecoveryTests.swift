import Foundation
import RelayJSON
import RelayStore
import RelayTestSupport
import Testing

/// A writer process killed with SIGKILL in the middle of writing loses no acknowledged write and
/// leaves a sound file, three times over on the same file.
struct CrashRecoveryTests {
    struct Ack: Hashable {
        let key: ItemKey
        let version: Int
    }

    @Test func killNineLosesNoAcknowledgedWrite() async throws {
        let directory = try temporaryDirectory(prefix: "relay-store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("relay.db").path
        var acks: [Ack] = []
        for run in 0..<3 {
            let child = try CrashWriterProcess(StoreTestSupport.crashWriter, ["write", path, "r\(run)", "8"])
            let lines = try await blocking {
                _ = child.read { $0.count >= 1000 }
                child.kill9AndDrain()
                return child.lines
            }
            let parsed = lines.compactMap(Self.parse)
            #expect(parsed.count >= 1000, "run \(run): the writer acknowledged writes before it was killed")
            acks += parsed
        }

        let store = try await SQLiteStore.open(path: path)
        #expect(try await store.integrityCheck() == ["ok"])
        var lost: [Ack] = []
        for ack in acks {
            guard let item = try await store.get(ack.key), item.version >= ack.version else {
                lost.append(ack)
                continue
            }
            #expect(item.attributes["step"] == .int(item.version), "no half-written item")
            #expect(item.attributes["pad"]?.stringValue?.count == 300)
        }
        #expect(lost.isEmpty, "acknowledged writes lost: \(lost.count) of \(acks.count)")
        // Writes that were in flight at each kill may or may not have landed; every row is whole.
        #expect(try await store.storedItemCount() >= Set(acks.map(\.key)).count)
        await store.close()
    }

    static func parse(_ line: String) -> Ack? {
        let fields = line.split(separator: " ")
        guard fields.count == 5, fields[0] == "ack", let version = Int(fields[4]) else { return nil }
        return Ack(key: ItemKey(pk: "CRASH#\(fields[1])-\(fields[2])-\(fields[3])", sk: "META"), version: version)
    }
}
