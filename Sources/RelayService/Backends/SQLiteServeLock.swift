import Foundation
import RelaySync

#if canImport(Glibc)
    import Glibc
#endif

/// One `serve` per SQLite file: an exclusive `flock` on `<file>.lock`, held for the life of the
/// process (the kernel drops it when the process ends, `kill -9` included). Two relays on one file
/// would each keep rotated CloudKit tokens and one-call-per-grant turns in their own memory and
/// end each other's grants (`SessionEndGrace` is 0 for SQLite because one process holds every
/// token). `mustdo-relayctl` does not take the lock: its short commands share the file safely.
enum SQLiteServeLock {
    /// Descriptors of the locks this process holds, by lock file (a store opened again in the same
    /// process, as the tests do, keeps the lock it has).
    private static let held = Locked<[String: Int32]>([:])

    /// Takes the lock for the database at `path`, or says which process holds it and what to do.
    static func acquire(for path: String) -> String? {
        let lockPath = path + ".lock"
        return held.withLock { held -> String? in
            if held[lockPath] != nil { return nil }
            let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                return
                    "RELAY_SQLITE_PATH: cannot open the lock file \(lockPath) (\(String(cString: strerror(errno)))); the directory must be writable by the relay's user"
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                var buffer = [UInt8](repeating: 0, count: 32)
                let count = read(descriptor, &buffer, buffer.count)
                close(descriptor)
                let holder = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                return
                    "RELAY_SQLITE_PATH: \(path) is in use by another `mustdo-relay serve`\(holder.isEmpty ? "" : " (process \(holder))"): one SQLite file takes one relay process. Stop the other (systemctl stop mustdo-relay), give this one its own RELAY_SQLITE_PATH, or run several instances on DynamoDB (docs/operations.md, Scaling out)"
            }
            let pid = Array("\(getpid())\n".utf8)
            _ = ftruncate(descriptor, 0)
            _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
            held[lockPath] = descriptor
            return nil
        }
    }
}
