import Foundation
import RelayStore
import RelayStoreConformance
import RelayTestSupport
import Synchronization

/// Test support: temporary directories, store harnesses and child processes.
enum StoreTestSupport {
    static let memory = StoreConformance.Harness { clock in
        (MemoryStore(clock: clock, purgeInterval: nil), {})
    }

    static let sqlite = StoreConformance.Harness { clock in
        let directory = try temporaryDirectory(prefix: "relay-store")
        let store = try await SQLiteStore.open(path: directory.appendingPathComponent("relay.db").path, clock: clock)
        return (
            store,
            {
                await store.close()
                try? FileManager.default.removeItem(at: directory)
            }
        )
    }

    /// The `store-crash-writer` executable, built beside the test bundle.
    static var crashWriter: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("store-crash-writer")
    }
}

/// `store-crash-writer` as a child process whose standard output the test reads line by line, from
/// a thread of its own (`blocking`).
final class CrashWriterProcess: Sendable {
    private let child: Subprocess

    init(_ executable: URL, _ arguments: [String]) throws {
        child = try Subprocess(executable.path, arguments, errors: .inherit)
    }

    var pid: Int32 { child.pid }

    /// The complete lines printed so far.
    var lines: [String] {
        let text = child.text
        guard let last = text.lastIndex(of: "\n") else { return [] }
        return text[..<last].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// Blocks until `done(lines)` holds, the output ends, or a minute passes; returns whether `done` held.
    func read(until done: ([String]) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while !done(lines) {
            if child.outputEnded || ContinuousClock.now > deadline { return done(lines) }
            usleep(2_000)
        }
        return true
    }

    /// SIGKILL, then waits until the child is gone and everything it printed has been read.
    func kill9AndDrain() {
        child.signal(SIGKILL)
        _ = try? child.waitBlocking(timeout: .seconds(20))
    }
}

/// Holds the store's writer (or reader) inside one batch (`Configuration.beforeEachBatch = gate.hold`): while
/// armed, the next batch disarms it and waits, on the store's thread, until `release()`.
final class BatchGate: Sendable {
    private let armed: Atomic<Bool>
    private let entered = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    init(armed: Bool = true) { self.armed = Atomic(armed) }

    /// The `beforeEachBatch` hook.
    var hold: @Sendable () -> Void {
        { [self] in
            if armed.compareExchange(expected: true, desired: false, ordering: .relaxed).exchanged {
                entered.signal()
                released.wait()
            }
        }
    }

    /// Holds the next batch.
    func arm() { armed.store(true, ordering: .relaxed) }

    /// Returns once a batch is held.
    func waitUntilHeld() async throws { try await blocking { self.entered.wait() } }

    /// Lets the held batch go on.
    func release() { released.signal() }
}

/// Runs blocking test code on its own thread, off the cooperative pool.
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
