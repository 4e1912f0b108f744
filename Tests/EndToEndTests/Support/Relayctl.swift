import Foundation
import RelayJSON
import RelayTestSupport

/// `mustdo-relayctl` run as an operator runs it: a child process, its standard output and error
/// kept apart (`--json` output must be one JSON value on stdout), standard input not a terminal
/// unless a pseudo-terminal is given.
struct Relayctl {
    struct Result: CustomStringConvertible {
        let status: Int32
        let stdout: String
        let stderr: String

        /// stdout as one JSON value, or nil.
        var json: JSONValue? { try? JSONValue(parsing: Array(stdout.utf8)) }

        var description: String { "exit \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }
    }

    static func run(
        _ arguments: [String], environment: [String: String] = [:], stdin: FileHandle? = nil,
        timeout: TimeInterval = 60
    ) async throws -> Result {
        let process = try Subprocess(
            ChildProcess.productsDirectory.appendingPathComponent("mustdo-relayctl").path, arguments,
            environment: Subprocess.environment(adding: environment), inputDescriptor: stdin?.fileDescriptor,
            errors: .capture)
        let termination: Subprocess.Termination
        do {
            termination = try await process.wait(timeout: .seconds(timeout))
        } catch {
            throw ChildProcess.ChildProcessError.timeout("mustdo-relayctl \(arguments) did not finish")
        }
        return Result(status: termination.status, stdout: process.text, stderr: process.errorText)
    }
}

/// A pseudo-terminal whose slave side is a child's standard input, so `isatty(0)` is true there
/// and what the test writes to the master side is what the operator typed.
final class PseudoTerminal {
    let master: Int32
    let slave: FileHandle

    init() throws {
        // /dev/ptmx by hand: Swift sees neither posix_openpt nor the TIOC* macros. TIOCSPTLCK
        // unlocks the slave, TIOCGPTN names it (x86_64 and arm64 Linux values).
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            throw ChildProcess.ChildProcessError.missing("no pseudo-terminal")
        }
        let slaveFD = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard slaveFD >= 0 else { throw ChildProcess.ChildProcessError.missing("cannot open the pseudo-terminal") }
        slave = FileHandle(fileDescriptor: slaveFD, closeOnDealloc: true)
    }

    /// Types a line, as a person at the terminal would.
    func type(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    deinit { close(master) }
}
