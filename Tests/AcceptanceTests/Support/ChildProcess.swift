import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process with its output captured: a built executable of this package, or any program.
/// Killed (SIGKILL) when released, so a failing test leaves nothing running.
final class ChildProcess: @unchecked Sendable {
    // @unchecked Sendable: `output` is only touched under `lock`; `process` is started in `init`
    // and afterwards only read (`isRunning`, the PID), which Foundation's Process allows from any thread.
    let process = Process()
    let name: String
    private let lock = NSLock()
    private var output = Data()
    private var closed = false

    /// The directory holding the package's built executables (next to the test bundle).
    static var productsDirectory: URL {
        var url = Bundle.main.bundleURL
        while url.pathExtension != "xctest" && url.path != "/" {
            url.deleteLastPathComponent()
        }
        return url.path == "/" ? Bundle.main.bundleURL : url.deletingLastPathComponent()
    }

    /// The repository's root (for scripts beside the tests).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Starts one of this package's executables.
    convenience init(product: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let executable = Self.productsDirectory.appendingPathComponent(product)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw AcceptanceFailure("\(executable.path) is not built; run `swift build` first")
        }
        try self.init(executable: executable.path, arguments, environment: environment)
    }

    /// Starts any program; the environment is this process's without `RELAY_*`, plus `environment`.
    init(executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        name = (executable as NSString).lastPathComponent
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("RELAY_") }
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            self.lock.lock()
            if data.isEmpty {
                self.closed = true
                handle.readabilityHandler = nil
            }
            self.output.append(data)
            self.lock.unlock()
        }
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    /// Everything the process wrote so far (standard output and error together).
    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: output, as: UTF8.self)
    }

    private var outputClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closed
    }

    /// Waits until the output matches `pattern` and returns the first capture group (or the match).
    func waitForOutput(matching pattern: String, timeout: Duration = .seconds(20)) async throws -> String {
        let regex = try NSRegularExpression(pattern: pattern)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let current = text
            if let match = regex.firstMatch(in: current, range: NSRange(current.startIndex..., in: current)) {
                let range = match.numberOfRanges > 1 ? match.range(at: 1) : match.range
                return String(current[Range(range, in: current)!])
            }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw AcceptanceFailure("\(name): no output matching \(pattern); got:\n\(text)")
    }

    /// Sends a signal to the process.
    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// SIGKILL, then waits until the process is gone.
    func kill9() async throws {
        signal(SIGKILL)
        _ = try await waitForExit()
    }

    /// Waits for the process to exit and returns its status.
    func waitForExit(timeout: Duration = .seconds(20)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline { throw AcceptanceFailure("\(name) still running; output:\n\(text)") }
            try await Task.sleep(for: .milliseconds(20))
        }
        // The last output may still be in the pipe; a grandchild holding it open must not stall us.
        let drained = ContinuousClock.now + .seconds(2)
        while !outputClosed, ContinuousClock.now < drained { try await Task.sleep(for: .milliseconds(10)) }
        return process.terminationStatus
    }
}

/// A failed step of an acceptance scenario, with what was seen.
struct AcceptanceFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Polls `condition` every 50 ms until it holds or `timeout` passes (then throws `message`).
func eventually(
    _ message: @autoclosure () -> String, timeout: Duration = .seconds(15), _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return }
        if ContinuousClock.now > deadline { throw AcceptanceFailure("timed out: \(message())") }
        try await Task.sleep(for: .milliseconds(50))
    }
}

/// A loopback TCP port that was free a moment ago (bound to port 0, read back, closed).
func freePort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw AcceptanceFailure("socket() failed") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
            bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
        }
    }
    guard bound else { throw AcceptanceFailure("bind() failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Runs a Python script beside these tests and returns its standard output and error; throws
/// unless it exits 0.
func runPython(_ script: String, _ arguments: [String]) async throws -> String {
    let path = ChildProcess.repository.appendingPathComponent("Tests/AcceptanceTests/python/" + script).path
    let child = try ChildProcess(executable: "/usr/bin/env", ["python3", path] + arguments)
    let status = try await child.waitForExit(timeout: .seconds(60))
    guard status == 0 else { throw AcceptanceFailure("\(script) exited \(status): \(child.text)") }
    return child.text
}

/// `PRAGMA integrity_check` and the number of grants of a relay SQLite file (python3's sqlite3).
func inspectSQLite(_ path: String) async throws -> (integrity: [String], grants: Int) {
    let output = try await runPython("sqlite_check.py", [path])
    guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
        let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let integrity = json["integrity"] as? [String], let grants = json["grants"] as? Int
    else { throw AcceptanceFailure("sqlite_check.py: \(output)") }
    return (integrity, grants)
}
