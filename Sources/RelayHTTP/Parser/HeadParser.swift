/// Parses a complete request head (request line through the empty line) in one pass and applies the
/// framing rules of RFC 9112 §6 that keep request smuggling out.
struct HeadParser {
    let limits: HTTPParserLimits

    struct Result {
        var head: HTTPRequestHead
        var framing: BodyFraming
        var expectsContinue: Bool
    }

    /// `bytes` runs from the request line to the end of the empty line; every line ends in CRLF
    /// (the scanner already refused bare CR and bare LF).
    func parse(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> Result {
        guard let firstLF = bytes.firstIndex(of: ByteClass.lf), firstLF > 1 else { throw .malformedRequestLine }
        let (method, target, version) = try parseRequestLine(UnsafeRawBufferPointer(rebasing: bytes[0..<(firstLF - 1)]))

        var headers = HTTPHeaders()
        // Room for a typical request's fields at once, not growth at 1, 2, 4 and 8.
        headers.reserveCapacity(12)
        var framingHeaders = FramingHeaders()
        var lineStart = firstLF + 1
        var index = lineStart
        while index < bytes.count {
            if bytes[index] == ByteClass.lf {
                let line = lineStart..<(index - 1)
                lineStart = index + 1
                if line.isEmpty { break }  // the empty line ending the head
                guard headers.count < limits.maxHeaderCount else { throw .tooManyHeaders }
                let (name, value) = try parseField(UnsafeRawBufferPointer(rebasing: bytes[line]))
                framingHeaders.note(name, value)
                headers.add(name, value)
            }
            index += 1
        }
        return try framingHeaders.result(
            method: method, target: target, version: version, headers: headers, limits: limits)
    }

    private func parseRequestLine(
        _ line: UnsafeRawBufferPointer
    ) throws(HTTPParseError) -> (HTTPMethod, String, HTTPVersion) {
        var index = 0
        while index < line.count, ByteClass.token[Int(line[index])] { index += 1 }
        guard index > 0, index < line.count, line[index] == ByteClass.space else { throw .malformedRequestLine }
        let method = HTTPMethod(bytes: UnsafeRawBufferPointer(rebasing: line[0..<index]))
        let targetStart = index + 1
        index = targetStart
        while index < line.count, ByteClass.isTargetByte(line[index]) { index += 1 }
        guard index > targetStart, index < line.count, line[index] == ByteClass.space else {
            throw .malformedRequestLine
        }
        let target = String(decoding: UnsafeRawBufferPointer(rebasing: line[targetStart..<index]), as: UTF8.self)
        let version = try parseVersion(UnsafeRawBufferPointer(rebasing: line[(index + 1)...]))
        return (method, target, version)
    }

    private func parseVersion(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> HTTPVersion {
        // HTTP-version = "HTTP" "/" DIGIT "." DIGIT
        guard bytes.count == 8, bytes.starts(with: "HTTP/".utf8), bytes[6] == UInt8(ascii: "."),
            (48...57).contains(bytes[5]), (48...57).contains(bytes[7])
        else { throw .malformedRequestLine }
        switch (bytes[5], bytes[7]) {
        case (49, 49): return .http11
        case (49, 48): return .http10
        default: throw .unsupportedVersion
        }
    }

    private func parseField(_ line: UnsafeRawBufferPointer) throws(HTTPParseError) -> (String, String) {
        guard let first = line.first else { throw .invalidHeaderName }
        if first == ByteClass.space || first == ByteClass.tab { throw .obsoleteLineFolding }
        var index = 0
        var hasUppercase = false
        while index < line.count, ByteClass.token[Int(line[index])] {
            hasUppercase = hasUppercase || (line[index] >= 65 && line[index] <= 90)
            index += 1
        }
        // No whitespace is allowed between the name and the colon (RFC 9112 §5.1).
        guard index > 0, index < line.count, line[index] == ByteClass.colon else { throw .invalidHeaderName }
        let nameBytes = UnsafeRawBufferPointer(rebasing: line[0..<index])
        let name =
            FieldLiterals.match(nameBytes, in: Self.knownLongNames, foldingCase: true)
            ?? (hasUppercase
                ? String(unsafeUninitializedCapacity: nameBytes.count) { buffer in
                    for (position, byte) in nameBytes.enumerated() { buffer[position] = ByteClass.lowercased(byte) }
                    return nameBytes.count
                }
                : String(decoding: nameBytes, as: UTF8.self))

        var start = index + 1
        var end = line.count
        while start < end, line[start] == ByteClass.space || line[start] == ByteClass.tab { start += 1 }
        while end > start, line[end - 1] == ByteClass.space || line[end - 1] == ByteClass.tab { end -= 1 }
        for position in start..<end where !ByteClass.fieldValue[Int(line[position])] {
            throw .invalidHeaderValue
        }
        let valueBytes = UnsafeRawBufferPointer(rebasing: line[start..<end])
        let value =
            FieldLiterals.match(valueBytes, in: Self.knownLongValues) ?? String(decoding: valueBytes, as: UTF8.self)
        return (name, value)
    }

    /// Field names longer than a small string (15 bytes) that MCP clients, browsers and proxies send
    /// on most requests: the literal, not a new string per request. Matched without regard to case.
    private static let knownLongNames: [String] = [
        "mcp-protocol-version", "x-forwarded-proto", "x-forwarded-host", "upgrade-insecure-requests",
        "cf-connecting-ip", "access-control-request-method", "access-control-request-headers",
        "sec-ch-ua-platform", "sec-ch-ua-mobile",
    ]

    /// Values longer than a small string that requests carry over and over (`Content-Type`,
    /// `Accept` of the MCP clients and the consent form): the literal when the bytes are exactly it.
    private static let knownLongValues: [String] = [
        "application/json", "application/json, text/event-stream", "text/event-stream",
        "application/x-www-form-urlencoded", "application/json; charset=utf-8",
    ]
}

/// The header fields that decide framing and connection handling, collected during the one pass.
private struct FramingHeaders {
    var hostCount = 0
    var contentLengths: [String] = []
    var transferEncodings: [String] = []
    var expectation: String?
    var connectionClose = false
    var connectionKeepAlive = false

    mutating func note(_ name: String, _ value: String) {
        switch name {
        case "host": hostCount += 1
        case "content-length": contentLengths.append(value)
        case "transfer-encoding": transferEncodings.append(value)
        case "expect": expectation = value
        case "connection":
            for token in value.split(separator: ",") {
                let token = String(token.trimmingOWS)
                if HTTPHeaders.equalsIgnoringCase(token, "close") { connectionClose = true }
                if HTTPHeaders.equalsIgnoringCase(token, "keep-alive") { connectionKeepAlive = true }
            }
        default: break
        }
    }

    func result(
        method: HTTPMethod,
        target: String,
        version: HTTPVersion,
        headers: HTTPHeaders,
        limits: HTTPParserLimits
    ) throws(HTTPParseError) -> HeadParser.Result {
        if hostCount > 1 { throw .repeatedHost }
        if hostCount == 0 && version == .http11 { throw .missingHost }
        if !contentLengths.isEmpty && !transferEncodings.isEmpty { throw .contentLengthWithTransferEncoding }
        if contentLengths.count > 1 { throw .repeatedContentLength }
        if transferEncodings.count > 1 { throw .repeatedTransferEncoding }

        var framing = BodyFraming.none
        if let length = contentLengths.first {
            guard !length.isEmpty, length.utf8.count <= 18, length.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                let value = Int(length)
            else { throw .invalidContentLength }
            guard value <= limits.maxBodyBytes else { throw .bodyTooLarge }
            framing = value == 0 ? .none : .length(value)
        } else if let encoding = transferEncodings.first {
            if version == .http10 { throw .transferEncodingOnHTTP10 }
            guard HTTPHeaders.equalsIgnoringCase(encoding, "chunked") else { throw .unsupportedTransferEncoding }
            framing = .chunked
        }

        var expectsContinue = false
        if let expectation {
            guard HTTPHeaders.equalsIgnoringCase(expectation, "100-continue") else { throw .unsupportedExpectation }
            expectsContinue = framing != .none && version == .http11
        }
        let keepAlive = version == .http11 ? !connectionClose : connectionKeepAlive && !connectionClose
        let head = HTTPRequestHead(
            method: method, target: target, version: version, headers: headers, keepAlive: keepAlive)
        return HeadParser.Result(head: head, framing: framing, expectsContinue: expectsContinue)
    }
}
