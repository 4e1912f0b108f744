import Foundation
import RelayStore
import RelayStoreConformance

/// Test support: temporary directories, store harnesses and child processes.
enum StoreTestSupport {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("relay-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static let memory = StoreConformance.Harness { clock in
        (MemoryStore(clock: clock, purgeInterval: nil), {})
    }

    static let sqlite = StoreConformance.Harness { clock in
        let directory = try temporaryDirectory()
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

/// A child process whose standard output the test reads line by line.
final class ChildProcess: @unchecked Sendable {
    // `@unchecked Sendable`: `buffer` and `lines` are used only by the one test that owns the child,
    // one call at a time; `Process` itself is thread-safe for kill and wait.
    private let process = Process()
    private let output = Pipe()
    private var buffer: [UInt8] = []
    private(set) var lines: [String] = []

    init(_ executable: URL, _ arguments: [String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }

    /// Blocks until `done(lines)` holds or the output ends; returns whether `done` held.
    func read(until done: ([String]) -> Bool) -> Bool {
        while !done(lines) {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { return done(lines) }
            buffer += data
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: buffer[..<newline], as: UTF8.self))
                buffer.removeSubrange(...newline)
            }
        }
        return true
    }

    /// SIGKILL, then everything the child printed before it died.
    func kill9AndDrain() {
        kill(process.processIdentifier, SIGKILL)
        _ = read { _ in false }
        process.waitUntilExit()
    }
}

/// Runs blocking test code on its own thread, off the cooperative pool.
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
