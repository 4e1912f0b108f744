import Foundation
import RelayJSON
import RelayTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A response read off the wire.
struct RawResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as JSON (SSE framing removed when present).
    var json: JSONValue? {
        if header("content-type")?.hasPrefix("text/event-stream") == true {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("data: ") }) else { return nil }
            return try? JSONValue(parsing: String(line.dropFirst(6)))
        }
        return try? JSONValue(parsing: body)
    }
}

/// A deliberately dumb HTTP/1.1 client: it sends exactly the bytes a test writes (any Host, any
/// missing header) and reads until the server closes. Blocking socket calls run on their own
/// thread, off the cooperative pool.
enum RawHTTP {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func send(port: Int, _ raw: [UInt8]) async throws -> RawResponse {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try exchange(port: port, raw) })
            }
            thread.start()
        }
    }

    private static func exchange(port: Int, _ raw: [UInt8]) throws -> RawResponse {
        let connection = try LoopbackConnection(port: port, receiveTimeout: 10)
        try connection.send(raw)
        var received: [UInt8] = []
        // Read until the server closes, or until a read fails or times out: what came is the answer.
        while let chunk = try? connection.receive(), !chunk.isEmpty { received += chunk }
        return try parse(received)
    }

    private static func parse(_ bytes: [UInt8]) throws -> RawResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard
            let end = (0...(max(0, bytes.count - 4))).first(where: {
                Array(bytes[$0..<min($0 + 4, bytes.count)]) == separator
            })
        else { throw Failure(description: "no response head in \(bytes.count) bytes") }
        let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: head[0]) }
        var headers: [(name: String, value: String)] = []
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append(
                (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var body = Array(bytes[(end + 4)...])
        if let length = headers.first(where: { $0.name.lowercased() == "content-length" }).flatMap({ Int($0.value) }) {
            body = Array(body.prefix(length))
        }
        return RawResponse(status: status, headers: headers, body: body)
    }
}
