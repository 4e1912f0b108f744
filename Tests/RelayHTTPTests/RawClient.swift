import Foundation
import RelayHTTP
import RelayTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking TCP client for socket-level server tests: send exact bytes, read exact responses.
final class RawClient {
    struct ParsedResponse {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        var text: String { String(decoding: body, as: UTF8.self) }
    }

    private let connection: LoopbackConnection
    var fd: Int32 { connection.fd }
    private var buffer: [UInt8] = []

    init(port: Int, host: String = "127.0.0.1", source: String? = nil, receiveTimeout: Double = 5) throws {
        connection = try LoopbackConnection(port: port, host: host, source: source, receiveTimeout: receiveTimeout)
    }

    struct SocketFailure: Error { let message: String }

    func setReceiveTimeout(_ seconds: Double) { connection.setReceiveTimeout(seconds) }

    func send(_ text: String) throws { try connection.send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws { try connection.send(bytes) }

    /// Reads more bytes into the buffer; returns false on EOF, throws on timeout or reset.
    @discardableResult
    private func fill() throws -> Bool {
        let chunk = try connection.receive()
        buffer += chunk
        return !chunk.isEmpty
    }

    /// Reads one response (Content-Length framing; HEAD responses pass `expectBody: false`).
    func readResponse(expectBody: Bool = true) throws -> ParsedResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            if let range = buffer.firstRange(of: separator) {
                headEnd = range.upperBound
            } else if try !fill() {
                throw SocketFailure(message: "EOF before a response head")
            }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let statusLine = lines.removeFirst().split(separator: " ")
        let status = Int(statusLine[1]) ?? 0
        let headers = lines.map { line -> (String, String) in
            let parts = line.split(separator: ":", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
        }
        buffer.removeFirst(headEnd!)
        var response = ParsedResponse(status: status, headers: headers, body: [])
        if status == 100 { return response }
        let length = expectBody ? Int(response.header("content-length") ?? "0") ?? 0 : 0
        while buffer.count < length {
            if try !fill() { throw SocketFailure(message: "EOF inside a body") }
        }
        response.body = Array(buffer[0..<length])
        buffer.removeFirst(length)
        return response
    }

    /// True when the server closed the connection (EOF, or a reset after close) within the timeout.
    func isClosedByServer() -> Bool {
        do {
            while true {
                if try !fill() { return true }
                buffer.removeAll()
            }
        } catch {
            return errno == ECONNRESET || errno == EPIPE
        }
    }
}

/// Starts a server on port 0 for one test and stops it afterwards.
func withServer(
    _ configuration: ServerConfiguration = ServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 2),
    router: Router,
    _ body: (Server) async throws -> Void
) async throws {
    var configuration = configuration
    configuration.port = 0
    let server = Server(configuration: configuration, responder: router.responder)
    try server.start()
    try await withCleanup {
        try await body(server)
    } cleanup: {
        server.shutdown()
        await server.waitUntilStopped()
    }
}

/// A router with the handlers the socket tests use.
func testRouter() -> Router {
    var router = Router()
    router.get("/hello", immediate: { _ in .text("hello") })
    router.get("/path", immediate: { request in .text(String(request.path)) })
    router.get("/slow") { request in
        let milliseconds = Int(try request.query()["ms"] ?? "200") ?? 200
        try await Task.sleep(for: .milliseconds(milliseconds))
        return .text("slow \(request.target)")
    }
    router.post("/echo") { request in
        Response(status: .ok, headers: ["Content-Type": "application/octet-stream"], body: request.body)
    }
    router.get("/big") { request in
        let size = Int(try request.query()["size"] ?? "262144") ?? 262144
        return Response(body: [UInt8](repeating: UInt8(ascii: "x"), count: size))
    }
    router.get(
        "/origin",
        immediate: { request in
            .text("\(request.origin.scheme) \(request.origin.host ?? "-") \(request.origin.client?.unredacted ?? "-")")
        })
    router.get(
        "/inject",
        immediate: { _ in
            Response(
                status: .ok, headers: ["X-Good": "yes", "X-Bad": "a\r\nSet-Cookie: evil=1"], body: Array("ok".utf8))
        })
    return router
}
