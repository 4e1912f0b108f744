import Foundation

/// A built executable of this package, or any program, run as a child process with its standard
/// output and error captured together (`Subprocess`: nothing inherited, its process group killed
/// when released, so a failing test leaves nothing running). The one such wrapper of the suites.
package final class ChildProcess: Sendable {
    /// Why a child could not be run or did not do what was waited for.
    package enum ChildProcessError: Error, CustomStringConvertible {
        case failed(String)
        case missing(String)
        case timeout(String)

        package var description: String {
            switch self {
            case .failed(let text), .missing(let text), .timeout(let text): text
            }
        }
    }

    package let child: Subprocess
    /// The program's file name, for messages.
    package let name: String

    /// The directory holding the package's built executables (next to the test bundle).
    package static var productsDirectory: URL { Subprocess.productsDirectory }

    /// The repository's root (for scripts beside the tests), found from this file's place in it.
    package static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Starts `product`, an executable of this package.
    package convenience init(product: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let executable = Self.productsDirectory.appendingPathComponent(product)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw ChildProcessError.missing("\(executable.path) is not built; run `swift build` (make test does) first")
        }
        try self.init(executable: executable.path, arguments, environment: environment)
    }

    /// Starts the program at `executable` (see `tool(_:)` for system tools) with this process's
    /// environment minus `RELAY_*`, plus `environment`.
    package init(executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        name = (executable as NSString).lastPathComponent
        child = try Subprocess(executable, arguments, environment: Subprocess.environment(adding: environment))
    }

    package var pid: Int32 { child.pid }
    package var isRunning: Bool { child.isRunning }

    /// Everything the process wrote so far (standard output and error together).
    package var text: String { child.text }

    /// The path of a system tool (`nginx`, `openssl`, `python3`) on PATH or in the sbin folders,
    /// or an error that says how to install it.
    package static func tool(_ name: String) throws -> String {
        do {
            return try Subprocess.path(of: name)
        } catch {
            throw ChildProcessError.missing("\(name) is not installed: run scripts/install-deps.sh (make test does)")
        }
    }

    /// Runs a program to completion and returns its output; throws with the output when it fails.
    @discardableResult
    package static func run(_ executable: String, _ arguments: [String], timeout: Duration = .seconds(30)) async throws
        -> String
    {
        let child = try ChildProcess(executable: executable, arguments)
        let status = try await child.waitForExit(timeout: timeout)
        guard status == 0 else {
            throw ChildProcessError.failed(
                "\(executable) \(arguments.joined(separator: " ")) exited \(status): \(child.text)")
        }
        return child.text
    }

    /// Waits until the output matches `pattern` (a regular expression) and returns the first
    /// capture group (or the whole match).
    package func waitForOutput(matching pattern: String, timeout: Duration = .seconds(20)) async throws -> String {
        do {
            return try await child.waitForOutput(matching: pattern, timeout: timeout)
        } catch let error as SubprocessError {
            throw ChildProcessError.timeout(error.description)
        }
    }

    /// Waits for the process to exit and returns its status, with its output read to the end (or
    /// for at most two seconds more, when a grandchild holds the pipe open).
    package func waitForExit(timeout: Duration = .seconds(20)) async throws -> Int32 {
        do {
            return try await child.wait(timeout: timeout).status
        } catch let error as SubprocessError {
            throw ChildProcessError.timeout(error.description)
        }
    }

    /// Sends a signal to the process.
    package func signal(_ number: Int32) { child.signal(number) }

    /// SIGKILL, then waits until the process is gone.
    package func kill9() async throws {
        signal(SIGKILL)
        _ = try await waitForExit()
    }
}
