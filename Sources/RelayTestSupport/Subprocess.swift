import CSpawn
import Foundation
import RelaySync

#if canImport(Glibc)
    import Glibc
#endif

/// A child process for tests, started with `posix_spawn` so that it inherits nothing but its three
/// standard streams, with its output captured by threads of its own and its exit seen by `waitpid`.
///
/// Why not Foundation's `Process`: on Linux it lists the descriptors to close before it spawns, so a
/// pipe, or the socket it watches for a child's exit, opened by another thread in between leaks
/// into the new child. When that child lives long (moto, nginx, a relay) the other child's output
/// never ends and its exit is never seen: `readDataToEndOfFile()` and `waitUntilExit()` wait for
/// the long-lived one, which in a parallel test run can be forever. Here every pipe is close-on-exec
/// from birth and the child closes every descriptor above 2 as it starts, so no child can hold
/// another's pipes. Each child gets its own process group, and a `Subprocess` released while its
/// child runs kills the whole group (nginx workers, a script's helpers) with SIGKILL.
package final class Subprocess: Sendable {
    /// Where the child's standard output goes.
    package enum Output: Sendable {
        /// Into `output` (read continuously, so the child never blocks on a full pipe).
        case capture
        /// To /dev/null.
        case discard
        /// To the test process's own stream.
        case inherit
    }

    /// Where the child's standard error goes.
    package enum ErrorOutput: Sendable {
        /// Into `output`, interleaved with standard output as the child writes them.
        case withOutput
        /// Into `errorOutput`, apart from standard output.
        case capture
        case discard
        case inherit
    }

    /// How the child ended.
    package enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        /// The exit status, or the signal's number (as Foundation's `terminationStatus`).
        package var status: Int32 {
            switch self {
            case .exited(let code), .signaled(let code): code
            }
        }

        package var description: String {
            switch self {
            case .exited(let code): "exit \(code)"
            case .signaled(let signal): "signal \(signal)"
            }
        }
    }

    package let pid: pid_t
    /// The executable's file name, for messages.
    package let name: String
    private let state: Locked<State>

    private struct State {
        var output: [UInt8] = []
        var errorOutput: [UInt8] = []
        var openStreams = 0
        var termination: Termination?
    }

    /// Starts `executable` (a path; see `Subprocess.path(of:)`) with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment; nil inherits this process's.
    ///   - input: written to the child's standard input, which then closes; nil gives it /dev/null.
    ///   - inputDescriptor: the child's standard input instead (a pseudo-terminal, say); stays open here.
    package init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        currentDirectory: String? = nil, input: [UInt8]? = nil, inputDescriptor: Int32? = nil,
        output: Output = .capture, errors: ErrorOutput = .withOutput
    ) throws {
        Self.ignoreBrokenPipes
        name = (executable as NSString).lastPathComponent
        let state = Locked(State())
        self.state = state

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Descriptors this process closes once the child has started: the child's ends of the pipes.
        var childEnds: [Int32] = []
        var readers: [(descriptor: Int32, error: Bool)] = []
        var inputWriter: Int32?
        defer { closeAll(childEnds) }
        do {
            if let inputDescriptor {
                posix_spawn_file_actions_adddup2(&actions, inputDescriptor, 0)
            } else if input != nil {
                let pipe = try Self.pipe()
                childEnds.append(pipe.read)
                inputWriter = pipe.write
                posix_spawn_file_actions_adddup2(&actions, pipe.read, 0)
            } else {
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            }
            var outputPipe: (read: Int32, write: Int32)?
            switch output {
            case .capture:
                let pipe = try Self.pipe()
                outputPipe = pipe
                childEnds.append(pipe.write)
                readers.append((pipe.read, false))
                posix_spawn_file_actions_adddup2(&actions, pipe.write, 1)
            case .discard: posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            case .inherit: break
            }
            switch errors {
            case .withOutput:
                if let outputPipe {
                    posix_spawn_file_actions_adddup2(&actions, outputPipe.write, 2)
                } else if output == .discard {
                    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
                }
            case .capture:
                let pipe = try Self.pipe()
                childEnds.append(pipe.write)
                readers.append((pipe.read, true))
                posix_spawn_file_actions_adddup2(&actions, pipe.write, 2)
            case .discard: posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            case .inherit: break
            }
        } catch {
            closeAll(readers.map(\.descriptor) + (inputWriter.map { [$0] } ?? []))
            throw error
        }
        if let currentDirectory { posix_spawn_file_actions_addchdir_np(&actions, currentDirectory) }
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)

        let attributes = ChildSpawnAttributes()

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for string in argv { free(string) } }
        let environmentStrings = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for string in environmentStrings ?? [] { free(string) } }

        var child: pid_t = 0
        let spawned =
            environmentStrings.map { strings in
                strings.withUnsafeBufferPointer {
                    posix_spawn(&child, executable, &actions, &attributes.value, argv, $0.baseAddress)
                }
            } ?? posix_spawn(&child, executable, &actions, &attributes.value, argv, Glibc.environ)
        guard spawned == 0 else {
            closeAll(readers.map(\.descriptor) + (inputWriter.map { [$0] } ?? []))
            throw SubprocessError("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        pid = child
        state.withLock { $0.openStreams = readers.count }

        for reader in readers {
            Thread { Self.drain(reader.descriptor, intoErrors: reader.error, state) }.start()
        }
        if let inputWriter, let input {
            Thread {
                Self.writeAll(input, to: inputWriter)
                close(inputWriter)
            }.start()
        }
        let started = child
        Thread { Self.reap(started, state) }.start()
    }

    deinit {
        if isRunning { kill(-pid, SIGKILL) }
    }

    /// The directory holding the package's built executables, next to the test bundle.
    package static var productsDirectory: URL {
        var url = Bundle.main.bundleURL
        while url.pathExtension != "xctest" && url.path != "/" {
            url.deleteLastPathComponent()
        }
        return url.path == "/" ? Bundle.main.bundleURL : url.deletingLastPathComponent()
    }

    /// The absolute path of a program on PATH or in the sbin folders, or an error saying how to get it.
    package static func path(of program: String) throws -> String {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        for folder in folders + ["/usr/local/sbin", "/usr/sbin", "/sbin", "/usr/bin", "/bin"]
        where FileManager.default.isExecutableFile(atPath: folder + "/" + program) {
            return folder + "/" + program
        }
        throw SubprocessError("\(program) is not installed: run scripts/install-deps.sh (make test does)")
    }

    /// This process's environment with `changes` applied and every `RELAY_*` setting of the
    /// test run left out, so a child relay sees only what the test gives it.
    package static func environment(adding changes: [String: String] = [:]) -> [String: String] {
        var merged = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("RELAY_") }
        merged.merge(changes) { $1 }
        return merged
    }

    // MARK: State

    package var isRunning: Bool { state.withLock { $0.termination == nil } }

    /// How the child ended, or nil while it runs.
    package var termination: Termination? { state.withLock { $0.termination } }

    /// What the child wrote so far to its captured output.
    package var output: [UInt8] { state.withLock { $0.output } }

    /// What the child wrote so far to its standard error (when captured apart).
    package var errorOutput: [UInt8] { state.withLock { $0.errorOutput } }

    package var text: String { String(decoding: output, as: UTF8.self) }
    package var errorText: String { String(decoding: errorOutput, as: UTF8.self) }

    /// True once every captured stream has reached its end.
    package var outputEnded: Bool { state.withLock { $0.openStreams == 0 } }

    // MARK: Signals and waiting

    /// Sends `signal` to the child (not to the rest of its group), unless it has already been reaped.
    package func signal(_ signal: Int32) {
        state.withLock { if $0.termination == nil { kill(pid, signal) } }
    }

    /// Sends `signal` to the child's whole process group (its own helpers too).
    package func signalGroup(_ signal: Int32) {
        kill(-pid, signal)
    }

    /// Waits until the child exits and its captured output has ended (or for at most two seconds
    /// more, when a grandchild holds it open); throws if it runs past `timeout`.
    @discardableResult
    package func wait(timeout: Duration = .seconds(30)) async throws -> Termination {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let termination {
                let drained = ContinuousClock.now + .seconds(2)
                while !outputEnded, ContinuousClock.now < drained { try await Task.sleep(for: .milliseconds(5)) }
                return termination
            }
            if ContinuousClock.now > deadline {
                throw SubprocessError("\(name) still running after \(timeout); output:\n\(text)\(errorText)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// `wait(timeout:)` for code that may block its thread (never a thread of the cooperative pool).
    @discardableResult
    package func waitBlocking(timeout: Duration = .seconds(30)) throws -> Termination {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let termination {
                let drained = ContinuousClock.now + .seconds(2)
                while !outputEnded, ContinuousClock.now < drained { usleep(5_000) }
                return termination
            }
            if ContinuousClock.now > deadline {
                throw SubprocessError("\(name) still running after \(timeout); output:\n\(text)\(errorText)")
            }
            usleep(10_000)
        }
    }

    /// SIGKILL to the child's group, then waits until the child is gone.
    package func kill9() async throws {
        signalGroup(SIGKILL)
        try await wait(timeout: .seconds(10))
    }

    /// Waits until the captured output matches `pattern` (a regular expression) and returns its
    /// first capture group, or the whole match.
    package func waitForOutput(matching pattern: String, timeout: Duration = .seconds(20)) async throws -> String {
        let regex = try NSRegularExpression(pattern: pattern)
        let deadline = ContinuousClock.now + timeout
        while true {
            let running = isRunning
            let current = text
            if let match = regex.firstMatch(in: current, range: NSRange(current.startIndex..., in: current)) {
                let range = match.numberOfRanges > 1 ? match.range(at: 1) : match.range
                return String(current[Range(range, in: current)!])
            }
            if !running && outputEnded {
                throw SubprocessError("\(name) ended (\(termination!)) before printing \(pattern); output:\n\(current)")
            }
            if ContinuousClock.now > deadline {
                throw SubprocessError("\(name): no output matching \(pattern) within \(timeout); output:\n\(current)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Runs a program to its end; returns its captured output, or throws with it unless it exits 0.
    @discardableResult
    package static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        input: [UInt8]? = nil, timeout: Duration = .seconds(60)
    ) async throws -> String {
        let child = try Subprocess(executable, arguments, environment: environment, input: input)
        let termination = try await child.wait(timeout: timeout)
        guard termination == .exited(0) else {
            throw SubprocessError(
                "\(executable) \(arguments.joined(separator: " ")) ended with \(termination):\n\(child.text)")
        }
        return child.text
    }

    // MARK: Threads

    private static let ignoreBrokenPipes: Void = { _ = Glibc.signal(SIGPIPE, SIG_IGN) }()

    private static func pipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [0, 0]
        guard pipe2(&descriptors, O_CLOEXEC) == 0 else {
            throw SubprocessError("pipe2 failed: \(String(cString: strerror(errno)))")
        }
        return (descriptors[0], descriptors[1])
    }

    private static func drain(_ descriptor: Int32, intoErrors: Bool, _ state: Locked<State>) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            state.withLock { value in
                if intoErrors {
                    value.errorOutput.append(contentsOf: buffer[0..<count])
                } else {
                    value.output.append(contentsOf: buffer[0..<count])
                }
            }
        }
        close(descriptor)
        state.withLock { $0.openStreams -= 1 }
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }

    private static func reap(_ pid: pid_t, _ state: Locked<State>) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else {
                state.withLock { $0.termination = .exited(-1) }
                return
            }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as functions.
        let termination: Termination =
            status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
        state.withLock { $0.termination = termination }
    }
}

private func closeAll(_ descriptors: [Int32]) {
    for descriptor in descriptors { close(descriptor) }
}

/// A child that could not be started, or did not do what a test waited for in time.
package struct SubprocessError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
