/// Decodes a chunked request body (RFC 9112 §7.1) incrementally, refusing every malformed shape:
/// sizes that are not pure hex, oversized size lines, bare CR or LF, missing CRLF after data, folded
/// trailers. Trailer fields are checked and then dropped.
struct ChunkedDecoder {
    private enum State {
        case size
        case sizeExtension
        case sizeLineFeed
        case data(remaining: Int)
        case dataCarriageReturn
        case dataLineFeed
        case trailerStart
        case trailerLine
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
                if let digit = ByteClass.hexValue(byte) {
                    sizeDigits += 1
                    guard sizeDigits <= Self.maxSizeDigits else { throw .invalidChunkSize }
                    size = size << 4 | digit
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
                    state = .trailerLine
                } else {
                    throw .invalidHeaderName
                }
                try countTrailerByte(limits)
            case .trailerLine:
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
