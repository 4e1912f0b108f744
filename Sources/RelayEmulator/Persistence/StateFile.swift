import Foundation
import RelaySync

/// Keeps users, records and sessions in a JSON file across restarts. Saves are coalesced and
/// written by a private queue (never on an event loop), atomically (temporary file + rename).
final class StateFile: Sendable {
    let path: String
    private let pending = Locked(false)
    private let queue = DispatchQueue(label: "cloudkit-emulator.state-file")

    init(path: String) { self.path = path }

    func load(into world: inout World) throws(EmulatorError) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .startup("cannot read the state file")
        }
        do {
            try StateSnapshot.decode(Array(data), into: &world)
        } catch {
            throw .startup("the state file is not a valid emulator state: \(error.reason)")
        }
    }

    /// Saves soon; several changes in a row cause one write.
    func scheduleSave(_ state: EmulatorState) {
        let alreadyPending = pending.withLock { pending -> Bool in
            defer { pending = true }
            return pending
        }
        guard !alreadyPending else { return }
        queue.asyncAfter(deadline: .now() + .milliseconds(100)) { [self] in
            pending.withLock { $0 = false }
            write(state.snapshot())
        }
    }

    func saveNow(_ state: EmulatorState) {
        let data = state.snapshot()
        queue.sync { write(data) }
    }

    private func write(_ data: Data) {
        let temporary = path + ".tmp"
        // The file holds session tokens: owner-only, and replaced in one step.
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600])
        else { return }
        _ = rename(temporary, path)
    }

    static func encode(_ world: borrowing World) -> Data { Data(StateSnapshot.encode(world).bytes) }
}
