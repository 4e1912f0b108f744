import Foundation
import RelaySync
import Testing

@testable import RelayHTTP

/// The relay's threads carry their names into the kernel, where `top -H`, `perf` and `/proc` read
/// them (Foundation's `Thread.name` does not reach it on Linux).
@Suite struct ThreadNameTests {
    /// The names of this process's threads, as the kernel has them.
    private func kernelThreadNames() throws -> [String] {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    @Test func eventLoopsAndTheClientThreadAreNamedInTheKernel() async throws {
        let server = Server(
            configuration: ServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 2),
            responder: Router().responder)
        try server.start()
        let client = try HTTPClient()
        // The threads name themselves as they start: wait for that (structural bound: 10 s).
        var names: [String] = []
        for _ in 0..<200 {
            names = try kernelThreadNames()
            if ["relay-loop-0", "relay-loop-1", "relay-client"].allSatisfy(names.contains) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(names.contains("relay-loop-0"), "\(names)")
        #expect(names.contains("relay-loop-1"), "\(names)")
        #expect(names.contains("relay-client"), "\(names)")
        client.shutdown()
        server.shutdown()
        await server.waitUntilStopped()
    }

    @Test func aLongNameIsCutToWhatTheKernelKeeps() async throws {
        let names = Locked<[String]>([])
        let done = Locked(false)
        let thread = Thread {
            ThreadName.setCurrent("relay-a-very-long-thread-name")
            let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
            names.withLock { $0.append(comm?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") }
            done.withLock { $0 = true }
        }
        thread.start()
        for _ in 0..<200 where !done.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(50)) }
        #expect(names.withLock { $0 } == ["relay-a-very-lo"])
    }
}
