/// Parses one HTTP/1.x response (RFC 9112) incrementally from whatever bytes arrived. I/O-free: the
/// connection feeds it bytes and asks whether the response is complete.
///
/// - The status line and fields are parsed once the whole head (up to the empty line) is in; a head
///   ends with CRLF CRLF only (a bare-LF head is malformed here). Interim 1xx responses are skipped
///   (their bytes still count), `101` is refused (the client never asks to switch protocols).
/// - The body is framed by `Transfer-Encoding: chunked` (`ChunkedDecoder`), `Content-Length`, or the
///   end of the connection; HEAD, 204 and 304 have none.
/// - The size limit counts what `Transfer` counts under libcurl: every head byte (interim heads
///   included) plus the decoded body. Past it: `.responseTooLarge`; a `Content-Length` already past
///   it fails before the body arrives.
/// - Bounded: a head of at most `maxHeadBytes` and `maxFields` fields, chunk-size lines of 1 KiB
///   (the decoder's); any malformed byte is `.transport`.
/// - A `Content-Encoding` other than `identity` is refused (`.transport`): the request asked for
///   identity and `ClientResponse` promises a decoded body, which this client cannot decode.
struct H1ResponseParser {
    private enum State {
        case head
        case length(remaining: Int)
        case chunked
        case untilClose
        case done
    }

    static let maxHeadBytes = 256 * 1024
    static let maxFields = 256

    private var state = State.head
    private var isHead = false
    private var maxBytes = 0
    /// Head bytes seen so far (all heads, interim ones included).
    private var headBytes = 0
    /// How far the current head has been searched for its end.
    private var scanned = 0
    private var decoder = ChunkedDecoder()

    private(set) var status = 0
    private(set) var headers = HTTPHeaders()
    private(set) var body: [UInt8] = []
    private(set) var version = "1.1"
    /// Whether the connection may carry another exchange after this response.
    private(set) var keepAlive = false
    /// Whether any byte of the response arrived.
    private(set) var sawBytes = false

    /// Ready for a response to a request with `method`, limited to `maxBytes`.
    mutating func reset(method: HTTPMethod, maxBytes: Int) {
        self = H1ResponseParser()
        isHead = method == .head
        self.maxBytes = maxBytes
    }

    var isComplete: Bool {
        if case .done = state { return true }
        return false
    }

    /// Consumes what it can of `bytes`; returns how many it consumed. An incomplete head is not
    /// consumed: the caller keeps it and calls again with more bytes after it.
    mutating func parse(_ bytes: UnsafeRawBufferPointer) throws(ClientError) -> Int {
        if !bytes.isEmpty { sawBytes = true }
        var consumed = 0
        while consumed < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[consumed...])
            switch state {
            case .head:
                guard let length = try headLength(rest) else { return consumed }
                consumed += length
                try parseHead(UnsafeRawBufferPointer(rebasing: rest[..<length]))
            case .length(let remaining):
                let take = min(remaining, rest.count)
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[..<take]))
                consumed += take
                state = take == remaining ? .done : .length(remaining: remaining - take)
            case .chunked:
                let limits = HTTPParserLimits(
                    maxHeaderBytes: Self.maxHeadBytes, maxHeaderCount: Self.maxFields,
                    maxBodyBytes: maxBytes - headBytes)
                do {
                    let (used, done) = try decoder.decode(rest, into: &body, limits: limits)
                    consumed += used
                    if done { state = .done }
                } catch .bodyTooLarge {
                    throw .responseTooLarge(limit: maxBytes)
                } catch {
                    throw .transport("malformed chunked body")
                }
            case .untilClose:
                guard headBytes + body.count + rest.count <= maxBytes else {
                    throw .responseTooLarge(limit: maxBytes)
                }
                body.append(contentsOf: rest)
                consumed = bytes.count
            case .done:
                return consumed
            }
        }
        return consumed
    }

    /// The connection ended (EOF): completes a body read to the end, fails anything else.
    mutating func finish() throws(ClientError) {
        switch state {
        case .untilClose: state = .done
        case .done: break
        default: throw .transport(sawBytes ? "the connection closed mid-response" : "the connection closed")
        }
    }

    /// The finished response.
    func response(connectionsOpened: Int) -> ClientResponse {
        ClientResponse(
            status: status, headers: headers, body: body, httpVersion: version, connectionsOpened: connectionsOpened)
    }

    /// The length of the head at the start of `bytes`, CRLF CRLF included, or nil when it has not
    /// all arrived.
    private mutating func headLength(_ bytes: UnsafeRawBufferPointer) throws(ClientError) -> Int? {
        var index = max(0, scanned - 3)
        while index + 3 < bytes.count {
            if bytes[index + 3] != ByteClass.lf {
                index += bytes[index + 3] == ByteClass.cr ? 1 : 4
                continue
            }
            if bytes[index] == ByteClass.cr && bytes[index + 1] == ByteClass.lf && bytes[index + 2] == ByteClass.cr {
                scanned = 0
                return index + 4
            }
            index += 1
        }
        scanned = bytes.count
        if headBytes + bytes.count > maxBytes { throw .responseTooLarge(limit: maxBytes) }
        if bytes.count > Self.maxHeadBytes { throw .transport("response head too large") }
        return nil
    }

    private mutating func parseHead(_ head: UnsafeRawBufferPointer) throws(ClientError) {
        headBytes += head.count
        guard headBytes <= maxBytes else { throw .responseTooLarge(limit: maxBytes) }
        guard head.count <= Self.maxHeadBytes else { throw .transport("response head too large") }
        var lines = H1Lines(head)
        guard let statusLine = lines.next() else { throw .transport("malformed status line") }
        try parseStatusLine(statusLine)
        if (100..<200).contains(status) {
            guard status != 101 else { throw .transport("unexpected 101 Switching Protocols") }
            return  // interim: the final response follows
        }
        var fields = HTTPHeaders()
        fields.reserveCapacity(16)
        while let line = lines.next() {
            guard !line.isEmpty else { break }
            guard fields.count < Self.maxFields else { throw .transport("too many response header fields") }
            let (name, value) = try Self.field(line)
            fields.add(name, value)
        }
        headers = fields
        try frame()
    }

    private mutating func parseStatusLine(_ line: UnsafeRawBufferPointer) throws(ClientError) {
        // HTTP/1.x SP 3DIGIT [SP reason]
        guard line.count >= 12, line.starts(with: "HTTP/1.".utf8), line[8] == ByteClass.space,
            line.count == 12 || line[12] == ByteClass.space
        else { throw .transport("malformed status line") }
        switch line[7] {
        case UInt8(ascii: "1"): version = "1.1"
        case UInt8(ascii: "0"): version = "1.0"
        default: throw .transport("malformed status line")
        }
        var code = 0
        for index in 9..<12 {
            let digit = line[index]
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else {
                throw .transport("malformed status line")
            }
            code = code * 10 + Int(digit - UInt8(ascii: "0"))
        }
        guard code >= 100 else { throw .transport("malformed status line") }
        for byte in line[12...] where !ByteClass.fieldValue[Int(byte)] {
            throw .transport("malformed status line")
        }
        status = code
    }

    private static func field(_ line: UnsafeRawBufferPointer) throws(ClientError) -> (String, String) {
        guard let colon = line.firstIndex(of: ByteClass.colon), colon > 0,
            line[..<colon].allSatisfy({ ByteClass.token[Int($0)] })
        else { throw .transport("malformed response header field") }
        var start = colon + 1
        var end = line.count
        while start < end, line[start] == ByteClass.space || line[start] == ByteClass.tab { start += 1 }
        while end > start, line[end - 1] == ByteClass.space || line[end - 1] == ByteClass.tab { end -= 1 }
        guard line[start..<end].allSatisfy({ ByteClass.fieldValue[Int($0)] }) else {
            throw .transport("malformed response header field")
        }
        return (
            String(decoding: UnsafeRawBufferPointer(rebasing: line[..<colon]), as: UTF8.self),
            String(decoding: UnsafeRawBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
        )
    }

    /// Decides how the body is framed and whether the connection can be reused (RFC 9112 §6.3).
    /// One pass over the fields, no intermediate arrays or strings: this runs for every upstream
    /// response. List elements are split on commas; an element with no bytes at all is skipped (as
    /// `split` skips it), one of only spaces counts and trims to empty.
    private mutating func frame() throws(ClientError) {
        var close = false
        var codings = false
        var lastCoding: Substring?
        var lengthText: Substring?
        var lengths = false
        var conflictingLengths = false
        for field in headers.fields {
            switch Self.framingField(field.name) {
            case .connection:
                Self.forEachElement(field.value) { if Self.isToken($0, "close") { close = true } }
            case .contentEncoding:
                var unrequested = false
                Self.forEachElement(field.value) { coding in
                    if !coding.isEmpty && !Self.isToken(coding, "identity") { unrequested = true }
                }
                if unrequested { throw .transport("unrequested content coding") }
            case .transferEncoding:
                codings = true
                Self.forEachElement(field.value) { lastCoding = $0 }
            case .contentLength:
                lengths = true
                Self.forEachElement(field.value) { element in
                    if let seen = lengthText, seen != element { conflictingLengths = true }
                    lengthText = element
                }
            case nil:
                continue
            }
        }
        keepAlive = version == "1.1" && !close
        if isHead || status == 204 || status == 304 {
            state = .done
            return
        }
        if codings {
            if let lastCoding, Self.isToken(lastCoding, "chunked") {
                state = .chunked
                if lengths { keepAlive = false }
            } else {
                state = .untilClose
                keepAlive = false
            }
            return
        }
        guard lengths else {
            state = .untilClose
            keepAlive = false
            return
        }
        guard !conflictingLengths, let text = lengthText, !text.isEmpty, text.utf8.count <= 15,
            text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let length = Int(text)
        else { throw .transport("malformed Content-Length") }
        guard headBytes + length <= maxBytes else { throw .responseTooLarge(limit: maxBytes) }
        body.reserveCapacity(length)
        state = length == 0 ? .done : .length(remaining: length)
    }

    private enum FramingField { case connection, contentEncoding, transferEncoding, contentLength }

    private static func framingField(_ name: String) -> FramingField? {
        switch name.utf8.count {
        case 10 where HTTPHeaders.equalsIgnoringCase(name, "connection"): .connection
        case 16 where HTTPHeaders.equalsIgnoringCase(name, "content-encoding"): .contentEncoding
        case 17 where HTTPHeaders.equalsIgnoringCase(name, "transfer-encoding"): .transferEncoding
        case 14 where HTTPHeaders.equalsIgnoringCase(name, "content-length"): .contentLength
        default: nil
        }
    }

    /// Calls `body` with each comma-separated element of `value`, OWS trimmed, skipping elements
    /// with no bytes at all.
    private static func forEachElement(_ value: String, _ body: (Substring) -> Void) {
        let bytes = value.utf8
        var start = bytes.startIndex
        var index = start
        while index != bytes.endIndex {
            if bytes[index] == UInt8(ascii: ",") {
                if start != index { body(value[start..<index].trimmingOWS) }
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        if start != bytes.endIndex { body(value[start...].trimmingOWS) }
    }

    /// ASCII case-insensitive equality of a list element and a lowercase token.
    private static func isToken(_ element: Substring, _ token: StaticString) -> Bool {
        guard element.utf8.count == token.utf8CodeUnitCount else { return false }
        var index = 0
        for byte in element.utf8 {
            guard ByteClass.lowercased(byte) == token.utf8Start[index] else { return false }
            index += 1
        }
        return true
    }
}

/// The CRLF-separated lines of a head (without their CRLF).
private struct H1Lines {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    mutating func next() -> UnsafeRawBufferPointer? {
        guard index < bytes.count else { return nil }
        var end = index
        while end + 1 < bytes.count, !(bytes[end] == ByteClass.cr && bytes[end + 1] == ByteClass.lf) { end += 1 }
        guard end + 1 < bytes.count else { return nil }
        let line = UnsafeRawBufferPointer(rebasing: bytes[index..<end])
        index = end + 2
        return line
    }
}
