import Foundation

/// Moves WAL frames into the database file from its own connection and thread, so commits never
/// pay for a checkpoint. A `PASSIVE` checkpoint takes no lock that writers or readers wait on; the
/// writer's own automatic checkpoint stays as a backstop at `ItemTable.backstopCheckpointPages`.
enum Checkpointer {
    static func run(_ connection: SQLiteConnection, every interval: Duration, until stop: Stopper) {
        while stop.sleep(for: interval) {
            // A failure (busy, I/O) only delays the checkpoint to the next tick; the WAL keeps the data.
            _ = try? connection.scalarText("PRAGMA wal_checkpoint(PASSIVE)")
        }
    }
}

/// A sleep that `stop()` cuts short.
///
/// `@unchecked Sendable`: `stopped` is read and written only while `condition` is locked.
final class Stopper: @unchecked Sendable {
    private let condition = NSCondition()
    private var stopped = false

    /// Sleeps for `duration`; false once stopped (at once if already stopped).
    func sleep(for duration: Duration) -> Bool {
        let deadline = Date(timeIntervalSinceNow: duration.seconds)
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            if !condition.wait(until: deadline) { return !stopped }
        }
        return false
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }
}
