import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A built executable of this package (or a system tool) run as a child process, with its output captured.
final class ChildProcess: @unchecked Sendable {
    // @unchecked Sendable: `output` and `ended` are only touched under `lock`; the Process is used from the test thread.
    let process = Process()
    private let lock = NSLock()
    private var output = Data()
    private var ended = false

    /// The directory holding the package's built executables (next to the test bundle).
    static var productsDirectory: URL {
        var url = Bundle.main.bundleURL
        while url.pathExtension != "xctest" && url.path != "/" {
            url.deleteLastPathComponent()
        }
        return url.path == "/" ? Bundle.main.bundleURL : url.deletingLastPathComponent()
    }

    /// Runs `name`, an executable of this package.
    convenience init(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let executable = Self.productsDirectory.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw ChildProcessError.missing("\(executable.path) is not built; run `swift build` (make test does) first")
        }
        try self.init(path: executable.path, arguments, environment: environment)
    }

    /// Runs the program at `path` (see `ChildProcess.tool(_:)` for system tools).
    init(path: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("RELAY_") }
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            self.lock.lock()
            self.output.append(data)
            if data.isEmpty {
                self.ended = true
                handle.readabilityHandler = nil
            }
            self.lock.unlock()
        }
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// The path of a system tool (`nginx`, `openssl`, `python3`) on PATH or in the sbin folders,
    /// or an error that says how to install it.
    static func tool(_ name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/bin"]
        for folder in folders where FileManager.default.isExecutableFile(atPath: folder + "/" + name) {
            return folder + "/" + name
        }
        throw ChildProcessError.missing("\(name) is not installed: run scripts/install-deps.sh (make test does)")
    }

    /// Runs a tool to completion and throws with its output when it fails.
    @discardableResult
    static func run(_ path: String, _ arguments: [String], timeout: TimeInterval = 30) async throws -> String {
        let child = try ChildProcess(path: path, arguments)
        let status = try await child.waitForExit(timeout: timeout)
        guard status == 0 else {
            throw ChildProcessError.failed(
                "\(path) \(arguments.joined(separator: " ")) exited \(status): \(child.text)")
        }
        return child.text
    }

    enum ChildProcessError: Error {
        case failed(String)
        case missing(String)
        case timeout(String)
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: output, as: UTF8.self)
    }

    /// Waits until the output matches `pattern` (a regular expression) and returns the first capture group.
    func waitForOutput(matching pattern: String, timeout: TimeInterval = 10) async throws -> String {
        let regex = try NSRegularExpression(pattern: pattern)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let current = text
            if let match = regex.firstMatch(in: current, range: NSRange(current.startIndex..., in: current)) {
                let range = match.numberOfRanges > 1 ? match.range(at: 1) : match.range
                return String(current[Range(range, in: current)!])
            }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ChildProcessError.timeout("no output matching \(pattern); got: \(text)")
    }

    /// Waits for the process to exit and returns its status, with its output read to the end (or
    /// for at most a second more, when a grandchild holds the pipe open).
    func waitForExit(timeout: TimeInterval = 10) async throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline { throw ChildProcessError.timeout("still running; output: \(text)") }
            try await Task.sleep(for: .milliseconds(20))
        }
        let drained = Date().addingTimeInterval(1)
        while !outputEnded && Date() < drained { try await Task.sleep(for: .milliseconds(10)) }
        return process.terminationStatus
    }

    private var outputEnded: Bool {
        lock.lock()
        defer { lock.unlock() }
        return ended
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }
}

/// A one-shot HTTP GET over a fresh connection (URLSession would pool and retry).
func httpGet(port: Int, path: String) throws -> (status: Int, body: String) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { throw ChildProcess.ChildProcessError.missing("connect to \(port) failed") }
    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var response: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = recv(fd, &chunk, chunk.count, 0)
        if count <= 0 { break }
        response.append(contentsOf: chunk[0..<count])
    }
    let text = String(decoding: response, as: UTF8.self)
    let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
    let body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
    return (status, body)
}
