/// Decodes a chunked request body (RFC 9112 §7.1) incrementally, refusing every malformed shape:
/// sizes that are not pure hex, oversized size lines, bare CR or LF, missing CRLF after data.
///
/// Trailer fields (RFC 9112 §7.1.2) follow the header-field syntax exactly (RFC 9110 §5): a token
/// name, a colon with no whitespace before it, a value of field bytes; no folding, no line without a
/// colon. They count against the head's byte and field limits, and are then dropped. Fields that
/// steer framing, routing, authentication, connection handling or the content's format are refused
/// outright (`ChunkedDecoder.forbiddenTrailers`, from RFC 9110 §6.5.1): this server never merges a
/// trailer into the head, but a proxy in front of it might, and no client has a reason to send them.
struct ChunkedDecoder {
    private enum State {
        case size
        case sizeExtension
        case sizeLineFeed
        case data(remaining: Int)
        case dataCarriageReturn
        case dataLineFeed
        case trailerStart
        case trailerName
        case trailerValue
        case trailerLineFeed(endsSection: Bool)
        case done
    }

    private static let maxSizeLineBytes = 1024
    private static let maxSizeDigits = 15

    private var state = State.size
    private var size = 0
    private var sizeDigits = 0
    private var sizeLineBytes = 0
    private var trailerBytes = 0
    private var trailerFields = 0
    /// The current trailer field's name, lowercased (bounded by the head's byte limit).
    private var trailerName: [UInt8] = []

    /// Trailer fields refused with 400 (lowercase): framing (`content-length`, `transfer-encoding`,
    /// `trailer`), routing (`host`), connection handling and request modifiers (`connection`,
    /// `keep-alive`, `proxy-connection`, `te`, `upgrade`, `expect`), authentication (`authorization`,
    /// `proxy-authorization`, `cookie`) and the content's format (`content-type`, `content-encoding`,
    /// `content-range`).
    static let forbiddenTrailers: Set<String> = [
        "content-length", "transfer-encoding", "trailer", "host", "connection", "keep-alive", "proxy-connection",
        "te", "upgrade", "expect", "authorization", "proxy-authorization", "cookie", "content-type",
        "content-encoding", "content-range",
    ]

    /// Consumes what it can from `bytes`, appending data to `body`. Returns the bytes consumed and
    /// whether the terminating empty line has been read.
    mutating func decode(
        _ bytes: UnsafeRawBufferPointer,
        into body: inout [UInt8],
        limits: HTTPParserLimits
    ) throws(HTTPParseError) -> (consumed: Int, done: Bool) {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch state {
            case .size:
                if let digit = PercentEncoding.hexValue(byte) {
                    sizeDigits += 1
                    guard sizeDigits <= Self.maxSizeDigits else { throw .invalidChunkSize }
                    size = size << 4 | Int(digit)
                } else if sizeDigits > 0 && byte == UInt8(ascii: ";") {
                    state = .sizeExtension
                } else if sizeDigits > 0 && byte == ByteClass.cr {
                    state = .sizeLineFeed
                } else if byte == ByteClass.lf {
                    throw .bareLineFeed
                } else {
                    throw .invalidChunkSize
                }
                try countSizeLineByte()
            case .sizeExtension:
                if byte == ByteClass.cr {
                    state = .sizeLineFeed
                } else if byte == ByteClass.lf {
                    throw .bareLineFeed
                } else if !ByteClass.fieldValue[Int(byte)] {
                    throw .invalidChunkSize
                }
                try countSizeLineByte()
            case .sizeLineFeed:
                guard byte == ByteClass.lf else { throw .bareCarriageReturn }
                if size == 0 {
                    state = .trailerStart
                } else {
                    guard body.count + size <= limits.maxBodyBytes else { throw .bodyTooLarge }
                    state = .data(remaining: size)
                }
                size = 0
                sizeDigits = 0
                sizeLineBytes = 0
            case .data(let remaining):
                let take = min(remaining, bytes.count - index)
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + take)]))
                index += take
                state = take == remaining ? .dataCarriageReturn : .data(remaining: remaining - take)
                continue
            case .dataCarriageReturn:
                guard byte == ByteClass.cr else { throw .invalidChunkTerminator }
                state = .dataLineFeed
            case .dataLineFeed:
                guard byte == ByteClass.lf else { throw .invalidChunkTerminator }
                state = .size
            case .trailerStart:
                if byte == ByteClass.cr {
                    state = .trailerLineFeed(endsSection: true)
                } else if byte == ByteClass.space || byte == ByteClass.tab {
                    throw .obsoleteLineFolding
                } else if byte == ByteClass.lf {
                    throw .bareLineFeed
                } else if ByteClass.token[Int(byte)] {
                    trailerFields += 1
                    guard trailerFields <= limits.maxHeaderCount else { throw .tooManyHeaders }
                    trailerName.removeAll(keepingCapacity: true)
                    trailerName.append(ByteClass.lowercased(byte))
                    state = .trailerName
                } else {
                    throw .invalidHeaderName
                }
                try countTrailerByte(limits)
            case .trailerName:
                if ByteClass.token[Int(byte)] {
                    trailerName.append(ByteClass.lowercased(byte))
                } else if byte == ByteClass.colon {
                    // Whitespace before the colon, or a line without one, falls to the branches below.
                    let name = String(decoding: trailerName, as: UTF8.self)
                    guard !Self.forbiddenTrailers.contains(name) else { throw .forbiddenTrailerField }
                    state = .trailerValue
                } else if byte == ByteClass.lf {
                    throw .bareLineFeed
                } else {
                    throw .invalidHeaderName
                }
                try countTrailerByte(limits)
            case .trailerValue:
                if byte == ByteClass.cr {
                    state = .trailerLineFeed(endsSection: false)
                } else if byte == ByteClass.lf {
                    throw .bareLineFeed
                } else if !ByteClass.fieldValue[Int(byte)] {
                    throw .invalidHeaderValue
                }
                try countTrailerByte(limits)
            case .trailerLineFeed(let endsSection):
                guard byte == ByteClass.lf else { throw .bareCarriageReturn }
                if endsSection {
                    state = .done
                    return (index + 1, true)
                }
                state = .trailerStart
            case .done:
                return (index, true)
            }
            index += 1
        }
        if case .done = state { return (index, true) }
        return (index, false)
    }

    private mutating func countSizeLineByte() throws(HTTPParseError) {
        sizeLineBytes += 1
        if sizeLineBytes > Self.maxSizeLineBytes { throw .invalidChunkSize }
    }

    private mutating func countTrailerByte(_ limits: HTTPParserLimits) throws(HTTPParseError) {
        trailerBytes += 1
        if trailerBytes > limits.maxHeaderBytes { throw .headersTooLarge }
    }
}
