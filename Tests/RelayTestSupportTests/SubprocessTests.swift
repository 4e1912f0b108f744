import Foundation
import RelaySync
import RelayTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The child-process helper every test target uses: a child inherits nothing but its standard
/// streams, so one child can never hold another's pipes open or hide its exit.
struct SubprocessTests {
    @Test func aChildSeesOnlyItsStandardStreams() async throws {
        // A descriptor without close-on-exec, as C libraries open them.
        let leaky = open("/dev/null", O_RDONLY)
        #expect(leaky > 2)
        defer { close(leaky) }
        let output = try await Subprocess.run("/bin/ls", ["/proc/self/fd"])
        // ls's own directory handle is 3; nothing of this process's reached it.
        #expect(output.split(separator: "\n") == ["0", "1", "2", "3"])
    }

    /// The way Foundation's `Process` failed on Linux: children started while a long-lived child is
    /// being started on another thread inherited its pipes and socket, and waiting for them took
    /// as long as the long-lived child lived.
    @Test func shortChildrenEndWhileLongLivedOnesStartBesideThem() async throws {
        let sleepers = Thread.detachedSleepers(count: 40, seconds: 30)
        defer { sleepers.stop() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for round in 0..<40 {
                        let child = try Subprocess("/bin/echo", ["\(worker)-\(round)"])
                        let termination = try await child.wait(timeout: .seconds(10))
                        #expect(termination == .exited(0))
                        #expect(child.text == "\(worker)-\(round)\n")
                        #expect(child.outputEnded, "nothing else holds the child's output open")
                    }
                }
            }
            try await group.waitForAll()
        }
        for descriptors in sleepers.openDescriptors() {
            #expect(descriptors == ["0", "1", "2"], "a long-lived child holds nothing of the others")
        }
    }

    @Test func inputOutputErrorsAndExitStatus() async throws {
        let bytes = Array(repeating: UInt8(ascii: "x"), count: 300_000)
        #expect(try await Subprocess.run("/bin/cat", [], input: bytes).utf8.count == bytes.count)

        let child = try Subprocess("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"], errors: .capture)
        #expect(try await child.wait() == .exited(3))
        #expect(child.text == "out\n")
        #expect(child.errorText == "err\n")

        let merged = try Subprocess("/bin/sh", ["-c", "echo out; echo err >&2"])
        try await merged.wait()
        #expect(merged.text.split(separator: "\n").sorted() == ["err", "out"])
    }

    @Test func signalsTimeoutsAndOutputWaits() async throws {
        let sleeper = try Subprocess("/bin/sh", ["-c", "echo ready; exec sleep 30"])
        #expect(try await sleeper.waitForOutput(matching: "(ready)") == "ready")
        await #expect(throws: SubprocessError.self) { try await sleeper.wait(timeout: .milliseconds(100)) }
        sleeper.signal(SIGTERM)
        #expect(try await sleeper.wait() == .signaled(SIGTERM))
        #expect(!sleeper.isRunning)

        let quiet = try Subprocess("/bin/true", [])
        await #expect(throws: SubprocessError.self) {
            try await quiet.waitForOutput(matching: "never", timeout: .seconds(5))
        }
        #expect(throws: SubprocessError.self) { try Subprocess("/nonexistent/program", []) }
    }

    @Test func releasingARunningChildKillsItsWholeGroup() async throws {
        // The shell starts a grandchild in the same group and prints both PIDs.
        var child: Subprocess? = try Subprocess("/bin/sh", ["-c", "sleep 30 & echo $$ $!; wait"])
        let line = try await child!.waitForOutput(matching: #"(\d+ \d+)"#)
        let pids = line.split(separator: " ").compactMap { pid_t($0) }
        #expect(pids.count == 2)
        child = nil
        let deadline = ContinuousClock.now + .seconds(10)
        while pids.contains(where: { kill($0, 0) == 0 && !isZombie($0) }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!pids.contains { kill($0, 0) == 0 && !isZombie($0) }, "the shell and its sleep are gone")
    }
}

/// True when `pid` has exited but not been reaped yet.
private func isZombie(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return false }
    return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
}

/// Long-lived children started one after another on a thread of their own, the way a shared
/// server starts while other tests run.
private final class DetachedSleepers: Sendable {
    private let children = Locked<[Subprocess]>([])
    private let stopped = Locked(false)

    init(count: Int, seconds: Int) {
        Thread { [self] in
            for _ in 0..<count {
                if stopped.withLock({ $0 }) { return }
                if let child = try? Subprocess("/bin/sleep", [String(seconds)], output: .discard) {
                    children.withLock { $0.append(child) }
                }
                usleep(1_000)
            }
        }.start()
    }

    /// The descriptors each running child has open, from /proc.
    func openDescriptors() -> [[String]] {
        children.withLock { children in
            children.filter(\.isRunning).compactMap {
                try? FileManager.default.contentsOfDirectory(atPath: "/proc/\($0.pid)/fd").sorted()
            }
        }
    }

    func stop() {
        stopped.withLock { $0 = true }
        children.withLock { $0.removeAll() }
    }
}

extension Thread {
    fileprivate static func detachedSleepers(count: Int, seconds: Int) -> DetachedSleepers {
        DetachedSleepers(count: count, seconds: seconds)
    }
}
