import Foundation
import RelayTestSupport
import XCTest

/// A Python script of the repository (`Tests/EndToEndTests/e2e/`, `examples/`) run as a child
/// process; the last line of its output that is a JSON object is its report.
struct PythonScript {
    /// The repository's root folder.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// What a run left behind.
    struct Outcome {
        let status: Int32
        let output: String
        let report: [String: Any]
    }

    /// The interpreter of one of the MCP SDK virtualenvs (`.venv-mcp1`, `.venv-mcp2`).
    static func virtualenv(_ name: String) throws -> String {
        let python = repository.appendingPathComponent(name + "/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw ChildProcess.ChildProcessError.missing(
                "\(python) is missing: run scripts/install-deps.sh (make test does)")
        }
        return python
    }

    /// Runs `script` (a path inside the repository) with `python` and waits for it.
    static func run(_ python: String, _ script: String, _ arguments: [String], timeout: Duration = .seconds(90))
        async throws -> Outcome
    {
        let path = repository.appendingPathComponent(script).path
        let child = try ChildProcess(
            executable: python, [path] + arguments, environment: ["PYTHONDONTWRITEBYTECODE": "1"])
        let status = try await child.waitForExit(timeout: timeout)
        let output = child.text
        let line = output.split(separator: "\n").last { $0.hasPrefix("{") }
        let report = line.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        return Outcome(status: status, output: output, report: report ?? [:])
    }
}
