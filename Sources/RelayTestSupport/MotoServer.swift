import Foundation
import RelayHTTP

/// `moto_server` (the AWS stand-in: DynamoDB, KMS, STS) as a child process on a free loopback
/// port, through `Tests/RelayAWSTests/python/serial_moto_server.py` (one request at a time, so
/// conditional writes are atomic as in DynamoDB): started, polled until it answers, stopped (and
/// restarted on the same port) by PID. The one moto launcher of the test suites.
package final class MotoServer: @unchecked Sendable {
    // @unchecked Sendable: `process` is replaced only by `start`/`stop`, which tests call from
    // one task at a time; `Locked` would buy nothing for that pattern.
    package let port: Int
    private var process: Subprocess?

    /// `http://127.0.0.1:<port>`, for every AWS service moto serves.
    package var endpoint: String { "http://127.0.0.1:\(port)" }

    /// The script, found from this file's place in the repository.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/RelayAWSTests/python/serial_moto_server.py")

    /// Starts moto on a port no one is listening on.
    package init() async throws {
        port = try freePort()
        try await start()
    }

    /// Sends `signal` to the server: SIGSTOP and SIGCONT make a hung AWS and end it.
    package func signal(_ signal: Int32) { process?.signal(signal) }

    /// Starts (or restarts) the server and waits until it answers (a minute at most: python
    /// importing moto on a loaded machine is slow).
    package func start() async throws {
        let process = try Subprocess(
            "/usr/bin/env", ["python3", Self.script.path, "-H", "127.0.0.1", "-p", String(port)], output: .discard)
        self.process = process
        let client = try HTTPClient()
        defer { client.shutdown() }
        do {
            try await waitUntil("moto to answer on port \(port)", timeout: .seconds(60), every: .milliseconds(100)) {
                guard process.isRunning else {
                    throw TestSupportFailure("moto_server exited; is moto[server] installed? (scripts/install-deps.sh)")
                }
                let probe = ClientRequest(url: endpoint + "/moto-api/data.json", timeout: .seconds(2))
                return (try? await client.send(probe))?.status == 200
            }
        } catch {
            await stop()
            throw error
        }
    }

    /// Stops the server (SIGTERM to its PID, SIGKILL if it lingers) and waits for it to exit,
    /// without blocking a thread of the cooperative pool.
    package func stop() async {
        guard let process else { return }
        self.process = nil
        process.signal(SIGTERM)
        if (try? await process.wait(timeout: .milliseconds(2500))) == nil { try? await process.kill9() }
    }

    /// Kills the server at once, from code that cannot wait (a `defer`).
    package func kill() {
        process?.signalGroup(SIGKILL)
        process = nil
    }
}
