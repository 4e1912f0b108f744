// A child process for the SQLite durability and fault tests (Tests/RelayStoreTests).
//
//   store-crash-writer write <database> <run> <workers>
//       Writes items forever with <workers> concurrent tasks and prints `ack <run> <worker> <n> <version>`
//       after each write the store acknowledged. The test kills it with SIGKILL mid-write, then
//       checks that every acknowledged write survived.
//   store-crash-writer hold-lock <database> <seconds>
//       Holds SQLite's write lock for <seconds> (printing `locked` once it has it), so the test can
//       see a store answer a typed error instead of hanging.
import Foundation
import RelayJSON
import RelayStore

let arguments = CommandLine.arguments
guard arguments.count >= 4 else {
    FileHandle.standardError.write(Data("usage: store-crash-writer write DB RUN WORKERS | hold-lock DB SECONDS\n".utf8))
    exit(2)
}

switch arguments[1] {
case "write":
    let run = arguments[3]
    let workers = Int(arguments.count > 4 ? arguments[4] : "8") ?? 8
    do {
        let store = try await SQLiteStore.open(path: arguments[2])
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask { await writeForever(store, run: run, worker: worker) }
            }
        }
    } catch {
        FileHandle.standardError.write(Data("store-crash-writer: \(error)\n".utf8))
        exit(1)
    }
case "hold-lock":
    holdWriteLock(path: arguments[2], seconds: Double(arguments[3]) ?? 10)
default:
    exit(2)
}

/// Creates items and then updates each once by compare-and-swap, acknowledging every write.
func writeForever(_ store: SQLiteStore, run: String, worker: Int) async {
    let padding = JSONValue.string(String(repeating: "p", count: 300))
    var number = 0
    while true {
        let key = ItemKey(pk: "CRASH#\(run)-\(worker)-\(number)", sk: "META")
        do {
            let created = try await store.put(
                key, attributes: ["step": 1, "worker": .int(worker), "pad": padding], expiresAt: nil, condition: .absent
            )
            acknowledge(run, worker, number, created.version)
            let updated = try await store.update(key, ItemUpdate(set: ["step": 2]), condition: .versionEquals(1))
            acknowledge(run, worker, number, updated.version)
        } catch {
            FileHandle.standardError.write(Data("store-crash-writer: \(error)\n".utf8))
            exit(1)
        }
        number += 1
    }
}

/// One write(2) per line, so a line is either printed whole or not at all when the process dies.
func acknowledge(_ run: String, _ worker: Int, _ number: Int, _ version: Int) {
    FileHandle.standardOutput.write(Data("ack \(run) \(worker) \(number) \(version)\n".utf8))
}
