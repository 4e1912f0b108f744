import Foundation
import RelayJSON

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
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect() failed") }
        var sent = 0
        while sent < raw.count {
            let count = raw[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Failure(description: "send() failed") }
            sent += count
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
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
