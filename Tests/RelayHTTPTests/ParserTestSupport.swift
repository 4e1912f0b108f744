@testable import RelayHTTP

/// Feeds `input` to a parser in pieces of `pieceSize` bytes (nil = all at once), the way a
/// connection does, and returns every result after the first complete/invalid per request.
func parseRequests(
    _ input: String,
    limits: HTTPParserLimits = HTTPParserLimits(),
    pieceSize: Int? = nil
) -> [HTTPParseResult] {
    parseRequests(Array(input.utf8), limits: limits, pieceSize: pieceSize)
}

func parseRequests(_ input: [UInt8], limits: HTTPParserLimits = HTTPParserLimits(), pieceSize: Int? = nil)
    -> [HTTPParseResult]
{
    var parser = HTTPRequestParser(limits: limits)
    var pending: [UInt8] = []
    var results: [HTTPParseResult] = []
    var start = 0
    let step = pieceSize ?? max(input.count, 1)
    while start < input.count {
        let end = min(start + step, input.count)
        pending.append(contentsOf: input[start..<end])
        start = end
        loop: while true {
            let result = pending.withUnsafeBytes { parser.parse($0) }
            switch result {
            case .complete(_, _, let consumed):
                results.append(result)
                pending.removeFirst(consumed)
            case .incomplete(let consumed):
                pending.removeFirst(consumed)
                break loop
            case .invalid:
                results.append(result)
                return results
            }
        }
    }
    return results
}

/// The single parse error `input` produces, or nil when it parses.
func parseError(_ input: String, limits: HTTPParserLimits = HTTPParserLimits()) -> HTTPParseError? {
    for result in parseRequests(input, limits: limits) {
        if case .invalid(let error) = result { return error }
    }
    return nil
}

extension HTTPParseResult {
    var head: HTTPRequestHead? {
        if case .complete(let head, _, _) = self { return head }
        return nil
    }

    var body: [UInt8]? {
        if case .complete(_, let body, _) = self { return body }
        return nil
    }
}

/// Parses `bytes` with `parser` (a free function so `#expect` does not capture the parser).
func feed(_ parser: inout HTTPRequestParser, _ bytes: [UInt8]) -> HTTPParseResult {
    bytes.withUnsafeBytes { parser.parse($0) }
}
