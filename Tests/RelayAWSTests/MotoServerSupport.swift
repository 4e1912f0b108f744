import Foundation
import RelayHTTP
import RelayTestSupport

/// `moto_server` as a child process on a free loopback port: started by the tests, polled until it
/// answers, stopped (and restarted on the same port) by PID.
final class MotoServer: @unchecked Sendable {
    // `@unchecked Sendable`: `process` is replaced only by `start`/`stop`, which tests call from
    // one task at a time; `Locked` would buy nothing for that pattern.
    let port: Int
    private var process: Subprocess?

    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// Starts moto on a port no one is listening on.
    init() async throws {
        port = try freePort()
        try await start()
    }

    /// Starts (or restarts) the server and waits until it answers.
    func start() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("python/serial_moto_server.py")
        let process = try Subprocess(
            "/usr/bin/env", ["python3", script.path, "-H", "127.0.0.1", "-p", String(port)], output: .discard)
        self.process = process
        let client = try HTTPClient()
        defer { client.shutdown() }
        for _ in 0..<300 {
            let probe = ClientRequest(url: endpoint + "/moto-api/data.json", timeout: .seconds(2))
            if let response = try? await client.send(probe), response.status == 200 { return }
            guard process.isRunning else {
                throw MotoFailure(message: "moto_server exited; is moto[server] installed?")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        await stop()
        throw MotoFailure(message: "moto_server did not answer within 30 seconds")
    }

    /// Stops the server (SIGTERM to its PID, SIGKILL if it lingers) and waits for it to exit,
    /// without blocking a thread of the cooperative pool.
    func stop() async {
        guard let process else { return }
        self.process = nil
        process.signal(SIGTERM)
        if (try? await process.wait(timeout: .milliseconds(2500))) == nil { try? await process.kill9() }
    }
}

struct MotoFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// A loopback TCP port that was free a moment ago (bound to port 0, read back, closed).
func freePort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw MotoFailure(message: "socket() failed") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
            bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
        }
    }
    guard bound else { throw MotoFailure(message: "bind() failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}
