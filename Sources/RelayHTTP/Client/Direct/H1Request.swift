/// Writes an HTTP/1.1 request (RFC 9112 §3) into one buffer with its body, so it leaves in one
/// `send`. I/O-free.
///
/// The head carries `Host` (the URL's authority), `User-Agent` (the request's own, or the
/// configuration's), `Accept: */*` unless the request sets `Accept` (libcurl's default),
/// `Accept-Encoding: identity` (the direct client decodes no content coding, and without the field
/// RFC 9110 §12.5.3 lets a server pick any), `Content-Length` for any method but GET and HEAD, then the
/// request's own fields. Never `Expect`. The caller's `Host`, `Content-Length`, `Transfer-Encoding`,
/// `Accept-Encoding`, `Expect` and `Connection` fields are dropped: the client owns framing and the
/// connection. Values lose CR, LF and NUL bytes (as `Transfer.configureHeaders` does for libcurl);
/// a name that is not an RFC 9110 token refuses the request.
enum H1Request {
    private static let ownedFields: Set<String> = [
        "host", "content-length", "transfer-encoding", "accept-encoding", "expect", "connection",
    ]

    /// The request's bytes.
    static func encode(
        _ request: ClientRequest, target: DirectTarget, userAgent: String
    ) throws(ClientError) -> [UInt8] {
        for (name, _) in request.headers where name.isEmpty || !name.utf8.allSatisfy({ ByteClass.token[Int($0)] }) {
            throw .invalidRequest("a header name is not an RFC 9110 token")
        }
        let hasBody = request.method != .get && request.method != .head
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256 + request.headers.fields.count * 64 + request.body.count)
        bytes.append(contentsOf: request.method.rawValue.utf8)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: target.requestTarget.utf8)
        bytes.append(contentsOf: " HTTP/1.1\r\nHost: ".utf8)
        bytes.append(contentsOf: target.authority.utf8)
        var sawAgent = false
        var sawAccept = false
        for (name, value) in request.headers {
            let lower = name.lowercased()
            if Self.ownedFields.contains(lower) { continue }
            if lower == "user-agent" { sawAgent = true }
            if lower == "accept" { sawAccept = true }
            bytes.append(contentsOf: "\r\n".utf8)
            bytes.append(contentsOf: name.utf8)
            bytes.append(contentsOf: ": ".utf8)
            // Bytes, not Characters: "\r\n" is one Character and would slip through a Character filter.
            for byte in value.utf8 where byte != 0x0D && byte != 0x0A && byte != 0 { bytes.append(byte) }
        }
        if !sawAgent {
            bytes.append(contentsOf: "\r\nUser-Agent: ".utf8)
            for byte in userAgent.utf8 where byte != 0x0D && byte != 0x0A && byte != 0 { bytes.append(byte) }
        }
        if !sawAccept { bytes.append(contentsOf: "\r\nAccept: */*".utf8) }
        bytes.append(contentsOf: "\r\nAccept-Encoding: identity".utf8)
        if hasBody {
            bytes.append(contentsOf: "\r\nContent-Length: ".utf8)
            bytes.append(contentsOf: String(request.body.count).utf8)
        }
        bytes.append(contentsOf: "\r\n\r\n".utf8)
        if hasBody { bytes.append(contentsOf: request.body) }
        return bytes
    }
}
