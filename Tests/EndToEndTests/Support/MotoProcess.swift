import Foundation
import RelayHTTP
import RelayTestSupport

@testable import RelayApp

/// moto (a DynamoDB stand-in) as a child process on a free loopback port, with the serial server
/// script RelayAWSTests use; stopped by PID.
final class MotoProcess: @unchecked Sendable {
    // @unchecked Sendable: `process` is set once in init.
    let port: Int
    private var process: Subprocess?

    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// What the relay and relayctl need in their environment to reach moto.
    static let credentials = ["AWS_ACCESS_KEY_ID": "AKIDMOTOTESTING", "AWS_SECRET_ACCESS_KEY": "moto-secret-key"]

    init() async throws {
        port = try Demo.freePort()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("RelayAWSTests/python/serial_moto_server.py")
        let process = try Subprocess(
            "/usr/bin/env", ["python3", script.path, "-H", "127.0.0.1", "-p", String(port)], output: .discard)
        self.process = process
        for _ in 0..<300 {
            if let response = try? httpGet(port: port, path: "/moto-api/data.json"), response.status == 200 { return }
            guard process.isRunning else {
                throw ChildProcess.ChildProcessError.missing("moto_server exited; is moto[server] installed?")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        stop()
        throw ChildProcess.ChildProcessError.timeout("moto_server did not answer within 30 seconds")
    }

    func stop() {
        process?.signalGroup(SIGKILL)
    }
}
