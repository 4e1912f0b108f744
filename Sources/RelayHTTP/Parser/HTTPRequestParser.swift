/// What one call to `HTTPRequestParser.parse` found.
package enum HTTPParseResult: Sendable, Equatable {
    /// A whole request; `consumed` bytes of the input belong to it.
    case complete(HTTPRequestHead, body: [UInt8], consumed: Int)
    /// More bytes are needed. The first `consumed` bytes were taken (body bytes, skipped blank
    /// lines); pass the rest again, followed by whatever arrives next.
    case incomplete(consumed: Int)
    /// The request is refused; answer `error.status` and close the connection.
    case invalid(HTTPParseError)
}

/// An incremental HTTP/1.1 request parser: bytes in, result out. It never reads a socket and never
/// looks at a byte twice while waiting for the end of a head, so a head trickled in one byte at a
/// time costs linear work.
package struct HTTPRequestParser: Sendable {
    private enum State {
        case head
        case body(HeadParser.Result, remaining: Int)
        case chunked(HeadParser.Result, ChunkedDecoder)
        case failed(HTTPParseError)
    }

    /// The limits this parser enforces.
    package let limits: HTTPParserLimits
    private var state = State.head
    private var scanned = 0
    private var lineStart = 0
    private var requestLineEnded = false
    private var body: [UInt8] = []
    private var continueRequested = false
    /// The rest of the current body is read and not kept (`dropBody`).
    private var droppingBody = false
    /// Bytes of the current body taken so far (chunk framing included): the server's minimum
    /// transfer rate is measured on it.
    package private(set) var bodyBytesReceived = 0

    /// A parser with the given limits.
    package init(limits: HTTPParserLimits = HTTPParserLimits()) { self.limits = limits }

    /// True once a head is parsed and its body is still being read (the body-idle timeout applies).
    package var isReadingBody: Bool {
        switch state {
        case .body, .chunked: true
        default: false
        }
    }

    /// The head of the request whose body is being read, if any.
    package var pendingHead: HTTPRequestHead? {
        switch state {
        case .body(let parsed, _), .chunked(let parsed, _): parsed.head
        default: nil
        }
    }

    /// Reads the rest of the current body without keeping it: the request still completes (its
    /// framing is honoured, so the connection stays usable), with an empty body. For a request the
    /// server will refuse whatever it says. A `Content-Length` body is consumed without being
    /// buffered; a chunked one is still decoded under `maxBodyBytes` (its limit needs the count).
    package mutating func dropBody() {
        guard isReadingBody else { return }
        droppingBody = true
        if case .body = state { body = [] }
    }

    /// True when part of a request has been seen (the header-read timeout applies).
    package var hasPartialRequest: Bool { scanned > 0 || isReadingBody }

    /// Returns true once when the client asked for `100 Continue` and no body byte has arrived yet.
    package mutating func takeContinueRequest() -> Bool {
        defer { continueRequested = false }
        return continueRequested
    }

    /// Parses `bytes`, which must start with the bytes a previous `.incomplete` left unconsumed.
    package mutating func parse(_ bytes: UnsafeRawBufferPointer) -> HTTPParseResult {
        do throws(HTTPParseError) {
            return try step(bytes)
        } catch {
            state = .failed(error)
            return .invalid(error)
        }
    }

    private mutating func step(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> HTTPParseResult {
        switch state {
        case .failed(let error):
            throw error
        case .head:
            var skipped = 0
            if scanned == 0 {
                // RFC 9112 §2.2: ignore empty lines before a request line (stray CRLF after a body).
                while skipped + 1 < bytes.count, bytes[skipped] == ByteClass.cr, bytes[skipped + 1] == ByteClass.lf {
                    skipped += 2
                }
                if skipped == bytes.count - 1, bytes[skipped] == ByteClass.cr { return .incomplete(consumed: skipped) }
            }
            let rest = UnsafeRawBufferPointer(rebasing: bytes[skipped...])
            guard let headEnd = try scanHead(rest) else { return .incomplete(consumed: skipped) }
            let parsed = try HeadParser(limits: limits).parse(UnsafeRawBufferPointer(rebasing: rest[0..<headEnd]))
            resetScan()
            let afterHead = skipped + headEnd
            switch parsed.framing {
            case .none:
                return finish(parsed, consumed: afterHead)
            case .length(let length):
                state = .body(parsed, remaining: length)
            case .chunked:
                state = .chunked(parsed, ChunkedDecoder())
            }
            continueRequested = parsed.expectsContinue && afterHead == bytes.count
            return try stepBody(UnsafeRawBufferPointer(rebasing: bytes[afterHead...]), alreadyConsumed: afterHead)
        case .body, .chunked:
            return try stepBody(bytes, alreadyConsumed: 0)
        }
    }

    private mutating func stepBody(
        _ bytes: UnsafeRawBufferPointer,
        alreadyConsumed: Int
    ) throws(HTTPParseError) -> HTTPParseResult {
        if !bytes.isEmpty { continueRequested = false }
        switch state {
        case .body(let parsed, let remaining):
            let take = min(remaining, bytes.count)
            bodyBytesReceived += take
            if !droppingBody { body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<take])) }
            if take == remaining { return finish(parsed, consumed: alreadyConsumed + take) }
            state = .body(parsed, remaining: remaining - take)
            return .incomplete(consumed: alreadyConsumed + take)
        case .chunked(let parsed, var decoder):
            let (consumed, done) = try decoder.decode(bytes, into: &body, limits: limits)
            bodyBytesReceived += consumed
            if done { return finish(parsed, consumed: alreadyConsumed + consumed) }
            state = .chunked(parsed, decoder)
            return .incomplete(consumed: alreadyConsumed + consumed)
        default:
            return .incomplete(consumed: alreadyConsumed)
        }
    }

    /// Looks for the empty line that ends the head, resuming where the last call stopped.
    /// Returns the head's length once found.
    private mutating func scanHead(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> Int? {
        var index = scanned
        defer { scanned = index }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == ByteClass.lf {
                guard index > 0, bytes[index - 1] == ByteClass.cr else { throw .bareLineFeed }
                requestLineEnded = true
                let lineLength = index + 1 - lineStart
                lineStart = index + 1
                if lineLength == 2 {
                    index += 1
                    return index
                }
            } else if byte == ByteClass.cr {
                guard index + 1 < bytes.count else { break }
                guard bytes[index + 1] == ByteClass.lf else { throw .bareCarriageReturn }
            }
            index += 1
            if !requestLineEnded && index >= limits.maxRequestLineBytes { throw .requestLineTooLong }
            if index >= limits.maxHeaderBytes { throw .headersTooLarge }
        }
        return nil
    }

    private mutating func finish(_ parsed: HeadParser.Result, consumed: Int) -> HTTPParseResult {
        let result = HTTPParseResult.complete(parsed.head, body: droppingBody ? [] : body, consumed: consumed)
        state = .head
        body = []
        bodyBytesReceived = 0
        continueRequested = false
        droppingBody = false
        return result
    }

    private mutating func resetScan() {
        scanned = 0
        lineStart = 0
        requestLineEnded = false
    }
}
