import Foundation
import RelayHTTP
import RelayTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The raw loopback connection the HTTP-level tests send bytes through.
struct LoopbackConnectionTests {
    @Test func sendsEverythingAndReadsToTheEnd() throws {
        let (listener, port) = try listen()
        defer { close(listener) }
        let connection = try LoopbackConnection(port: port, receiveTimeout: 5)
        let peer = accept(listener, nil, nil)
        #expect(peer >= 0)
        let request = [UInt8](repeating: 0x61, count: 300_000)  // larger than one socket buffer
        let echo = Thread {
            var received = 0
            var chunk = [UInt8](repeating: 0, count: 65536)
            while received < request.count {
                let count = recv(peer, &chunk, chunk.count, 0)
                if count <= 0 { break }
                received += count
            }
            let answer = Array("got \(received)".utf8)
            _ = answer.withUnsafeBytes { send(peer, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(peer)
        }
        echo.start()
        try connection.send(request)
        #expect(String(decoding: try connection.receiveToEnd(), as: UTF8.self) == "got 300000")
    }

    @Test func aRefusedConnectionAndATimeoutAreErrorsThatSayWhat() throws {
        let (listener, port) = try listen()
        close(listener)
        #expect { try LoopbackConnection(port: port) } throws: { error in
            "\(error)".contains("connect to 127.0.0.1:\(port)") && "\(error)".contains("refused")
        }
        let (silent, silentPort) = try listen()
        defer { close(silent) }
        let connection = try LoopbackConnection(port: silentPort, receiveTimeout: 0.2)
        #expect { try connection.receive() } throws: { "\($0)".hasPrefix("recv:") }
    }

    private func listen() throws -> (Int32, Int) { try loopbackListener(backlog: 4) }
}

/// `freePort` chooses below the kernel's ephemeral range, where no outgoing connection takes a port
/// while a child process starts, and the relay's own server can listen on the port it gives.
struct FreePortTests {
    @Test func freePortsAreBelowTheEphemeralRangeAndAServerListensThere() async throws {
        for _ in 0..<20 {
            let port = try freePort()
            #expect((20_000..<32_768).contains(port), "\(port)")
            let server = Server(
                configuration: ServerConfiguration(host: "127.0.0.1", port: port, eventLoops: 1),
                responder: Responder { _ in .now(Response(status: .ok)) })
            #expect(Server.isFree(port: port))
            try server.start()
            #expect(server.port == port)
            #expect(!Server.isFree(port: port))  // a listener there: freePort would pass it over
            server.shutdown()
            await server.waitUntilStopped()
        }
    }
}
