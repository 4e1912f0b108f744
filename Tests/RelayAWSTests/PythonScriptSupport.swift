import Foundation
import RelayTestSupport

/// Runs one of the Python scripts beside these tests with `input` on its standard input and
/// returns its standard output; fails if it exits non-zero or runs past two minutes.
func runPythonScript(_ name: String, input: [UInt8]) async throws -> [UInt8] {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("python/\(name)")
    let child = try Subprocess("/usr/bin/env", ["python3", script.path], input: input, errors: .capture)
    let termination = try await child.wait(timeout: .seconds(120))
    guard termination == .exited(0) else {
        throw TestSupportFailure("\(name) ended with \(termination): \(child.errorText)")
    }
    return child.output
}
