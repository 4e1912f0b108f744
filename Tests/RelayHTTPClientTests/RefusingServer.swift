import Foundation
import RelayTestSupport

/// `python/refusing_h2_server.py` on a free loopback port with a fresh certificate: an HTTP/2
/// server whose first connection answers `keep` streams and refuses every later one with
/// REFUSED_STREAM; later connections answer everything. It echoes a request's body.
final class RefusingServer {
    let directory: URL
    let port: Int
    private let process: ChildProcess

    var certificate: String { directory.appendingPathComponent("cert.pem").path }

    /// python3 can import h2 (requirements-test.txt installs it).
    static let available: Bool = {
        guard let python = try? ChildProcess.tool("python3") else { return false }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: python)
        probe.arguments = ["-c", "import h2"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    init(keep: Int) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("relay-h2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try await TLSServer.makeCertificate(in: directory)
        let script = ChildProcess.repository.appendingPathComponent(
            "Tests/RelayHTTPClientTests/python/refusing_h2_server.py")
        process = try ChildProcess(
            executable: try ChildProcess.tool("python3"),
            [
                script.path, directory.appendingPathComponent("cert.pem").path,
                directory.appendingPathComponent("key.pem").path, "\(keep)",
            ])
        port = Int(try await process.waitForOutput(matching: #"port (\d+)"#)) ?? 0
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    private var lines: [Substring] { process.text.split(separator: "\n") }
    /// The bodies of the streams answered so far, in order.
    var answered: [String] { lines.filter { $0.hasPrefix("answered ") }.map { String($0.dropFirst(9)) } }
    /// The bodies of the streams refused so far.
    var refused: [String] { lines.filter { $0.hasPrefix("refused ") }.map { String($0.dropFirst(8)) } }

    /// The server's lines (the port line included) once there are `count`, waiting up to 5 s: the
    /// server prints a stream's line after its answer went out.
    func lines(count: Int) async throws -> [Substring] {
        for _ in 0..<500 where lines.count < count { try await Task.sleep(for: .milliseconds(10)) }
        return lines
    }
}
