import Foundation

/// Runs one of the Python scripts beside these tests with `input` on its standard input and
/// returns its standard output; fails if it exits non-zero. Blocking work runs on its own thread.
func runPythonScript(_ name: String, input: [UInt8]) async throws -> [UInt8] {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("python/\(name)")
    return try await withCheckedThrowingContinuation { continuation in
        Thread {
            continuation.resume(
                with: Result {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                    process.arguments = ["python3", script.path]
                    let stdin = Pipe()
                    let stdout = Pipe()
                    let stderr = Pipe()
                    process.standardInput = stdin
                    process.standardOutput = stdout
                    process.standardError = stderr
                    try process.run()
                    stdin.fileHandleForWriting.write(Data(input))
                    try stdin.fileHandleForWriting.close()
                    let output = stdout.fileHandleForReading.readDataToEndOfFile()
                    let errors = stderr.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    guard process.terminationStatus == 0 else {
                        throw MotoFailure(
                            message:
                                "\(name) exited \(process.terminationStatus): \(String(decoding: errors, as: UTF8.self))"
                        )
                    }
                    return Array(output)
                })
        }.start()
    }
}
