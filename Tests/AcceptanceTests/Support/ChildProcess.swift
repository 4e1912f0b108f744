import Foundation
import RelayTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A child process with its output captured: a built executable of this package, or any program.
/// Its process group is killed (SIGKILL) when released, so a failing test leaves nothing running.
final class ChildProcess: Sendable {
    let child: Subprocess
    let name: String

    /// The directory holding the package's built executables (next to the test bundle).
    static var productsDirectory: URL { Subprocess.productsDirectory }

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
        child = try Subprocess(executable, arguments, environment: Subprocess.environment(adding: environment))
    }

    var pid: Int32 { child.pid }
    var isRunning: Bool { child.isRunning }

    /// Everything the process wrote so far (standard output and error together).
    var text: String { child.text }

    /// Waits until the output matches `pattern` and returns the first capture group (or the match).
    func waitForOutput(matching pattern: String, timeout: Duration = .seconds(20)) async throws -> String {
        do {
            return try await child.waitForOutput(matching: pattern, timeout: timeout)
        } catch let error as SubprocessError {
            throw AcceptanceFailure(error.description)
        }
    }

    /// Sends a signal to the process.
    func signal(_ number: Int32) { child.signal(number) }

    /// SIGKILL, then waits until the process is gone.
    func kill9() async throws {
        signal(SIGKILL)
        _ = try await waitForExit()
    }

    /// Waits for the process to exit and returns its status.
    func waitForExit(timeout: Duration = .seconds(20)) async throws -> Int32 {
        do {
            return try await child.wait(timeout: timeout).status
        } catch let error as SubprocessError {
            throw AcceptanceFailure(error.description)
        }
    }
}

/// A failed step of an acceptance scenario, with what was seen.
struct AcceptanceFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
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
