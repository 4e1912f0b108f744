import Foundation
import RelayTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A built executable of this package (or a system tool) run as a child process, with its standard
/// output and error captured together (`Subprocess`: nothing inherited, its group killed when released).
final class ChildProcess: Sendable {
    let child: Subprocess

    /// The directory holding the package's built executables (next to the test bundle).
    static var productsDirectory: URL { Subprocess.productsDirectory }

    /// Runs `name`, an executable of this package.
    convenience init(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let executable = Self.productsDirectory.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw ChildProcessError.missing("\(executable.path) is not built; run `swift build` (make test does) first")
        }
        try self.init(path: executable.path, arguments, environment: environment)
    }

    /// Runs the program at `path` (see `ChildProcess.tool(_:)` for system tools) with this process's
    /// environment minus `RELAY_*`, plus `environment`.
    init(path: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        child = try Subprocess(path, arguments, environment: Subprocess.environment(adding: environment))
    }

    var isRunning: Bool { child.isRunning }

    /// The path of a system tool (`nginx`, `openssl`, `python3`) on PATH or in the sbin folders,
    /// or an error that says how to install it.
    static func tool(_ name: String) throws -> String {
        do {
            return try Subprocess.path(of: name)
        } catch {
            throw ChildProcessError.missing("\(name) is not installed: run scripts/install-deps.sh (make test does)")
        }
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

    var text: String { child.text }

    /// Waits until the output matches `pattern` (a regular expression) and returns the first capture group.
    func waitForOutput(matching pattern: String, timeout: TimeInterval = 10) async throws -> String {
        do {
            return try await child.waitForOutput(matching: pattern, timeout: .seconds(timeout))
        } catch let error as SubprocessError {
            throw ChildProcessError.timeout(error.description)
        }
    }

    /// Waits for the process to exit and returns its status, with its output read to the end (or
    /// for at most two seconds more, when a grandchild holds the pipe open).
    func waitForExit(timeout: TimeInterval = 10) async throws -> Int32 {
        do {
            return try await child.wait(timeout: .seconds(timeout)).status
        } catch let error as SubprocessError {
            throw ChildProcessError.timeout(error.description)
        }
    }

    func signal(_ number: Int32) { child.signal(number) }
}

/// A one-shot HTTP GET over a fresh connection (URLSession would pool and retry).
func httpGet(port: Int, path: String) throws -> (status: Int, body: String) {
    let connection = try LoopbackConnection(port: port)
    try connection.send(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
    var response: [UInt8] = []
    while let chunk = try? connection.receive(), !chunk.isEmpty { response += chunk }
    let text = String(decoding: response, as: UTF8.self)
    let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
    let body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
    return (status, body)
}
