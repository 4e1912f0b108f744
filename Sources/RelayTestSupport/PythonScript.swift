import Foundation

/// A Python script of the repository (a test target's `e2e/` folder, `examples/`) run as a child
/// process, usually with one of the MCP SDK virtualenvs; the last line of its output that is a JSON
/// object or array is its report. The one way every test target runs the Python SDK clients and walks.
package enum PythonScript {
    /// The repository's root folder.
    package static var repository: URL { ChildProcess.repository }

    /// What a run left behind.
    package struct Outcome: Sendable {
        /// The exit status.
        package let status: Int32
        /// Standard output and error, as the script wrote them.
        package let output: String
        /// The last line of the output that starts with `{` or `[`: the script's report.
        package let reportLine: String?

        /// The report as Foundation values (`[:]` when there is none or it is not a JSON object).
        package var report: [String: Any] {
            guard let reportLine else { return [:] }
            return (try? JSONSerialization.jsonObject(with: Data(reportLine.utf8))) as? [String: Any] ?? [:]
        }
    }

    /// The interpreter of one of the MCP SDK virtualenvs (`.venv-mcp1`, `.venv-mcp2`).
    package static func virtualenv(_ name: String) throws -> String {
        let python = repository.appendingPathComponent(name + "/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw ChildProcess.ChildProcessError.missing(
                "\(python) is missing: run scripts/install-deps.sh (make test does)")
        }
        return python
    }

    /// The path of `script` (relative to the repository's root).
    package static func path(_ script: String) -> String { repository.appendingPathComponent(script).path }

    /// What every script runs with: no bytecode files in the repository, output written as it is
    /// printed (not held in a buffer a hung script never flushes), and Python's fault handler on, so
    /// that SIGABRT prints where each of its threads stands.
    package static let environment = [
        "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1", "PYTHONFAULTHANDLER": "1",
    ]

    /// Runs `script` (a path inside the repository) with `python` and waits for it; a script that
    /// hangs fails the test after `timeout` rather than hanging the suite.
    package static func run(_ python: String, _ script: String, _ arguments: [String], timeout: Duration = .seconds(90))
        async throws -> Outcome
    {
        let child = try ChildProcess(executable: python, [path(script)] + arguments, environment: environment)
        return try await finish(child, timeout: timeout)
    }

    /// Waits for a script started some other way (`examples/connect`, a wrapper) and reads its report.
    /// A script still running after `timeout` gets SIGABRT first: the error then carries what it printed
    /// and, from the fault handler, the line each of its threads was waiting on.
    package static func finish(_ child: ChildProcess, timeout: Duration) async throws -> Outcome {
        let status: Int32
        do {
            status = try await child.waitForExit(timeout: timeout)
        } catch ChildProcess.ChildProcessError.timeout {
            child.signal(SIGABRT)
            _ = try? await child.waitForExit(timeout: .seconds(5))
            throw ChildProcess.ChildProcessError.timeout(
                "\(child.name) still running after \(timeout); its output, then its threads at SIGABRT:\n\(child.text)")
        }
        let output = child.text
        let line = output.split(separator: "\n").last { $0.hasPrefix("{") || $0.hasPrefix("[") }
        return Outcome(status: status, output: output, reportLine: line.map(String.init))
    }
}
