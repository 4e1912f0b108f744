/// The fuzz harness body, kept in the library so the fuzzer and the unit tests share it.
package enum ParserFuzzing {
    /// Parses `input` whole and again split into pieces; checks invariants that must hold for any
    /// input: consumed counts stay in range, a split never changes the outcome, and bodies obey
    /// the limits.
    package static func run(_ input: [UInt8]) {
        let limits = HTTPParserLimits(
            maxRequestLineBytes: 512, maxHeaderBytes: 1024, maxHeaderCount: 16, maxBodyBytes: 4096)
        let whole = parseAll(input, limits: limits, pieces: [input.count])
        if let first = input.first, input.count > 2 {
            let cut = Int(first) % input.count
            let split = parseAll(input, limits: limits, pieces: [cut, input.count - cut])
            precondition(whole == split, "split changed the outcome")
            let bytewise = parseAll(input, limits: limits, pieces: Array(repeating: 1, count: input.count))
            precondition(whole == bytewise, "byte-by-byte changed the outcome")
        }
    }

    /// Feeds `input` in the given piece sizes, the way a connection would, and returns what came out.
    static func parseAll(_ input: [UInt8], limits: HTTPParserLimits, pieces: [Int]) -> [String] {
        var parser = HTTPRequestParser(limits: limits)
        var pending: [UInt8] = []
        var outcomes: [String] = []
        var start = 0
        for size in pieces {
            pending.append(contentsOf: input[start..<(start + size)])
            start += size
            parsing: while true {
                let result = pending.withUnsafeBytes { parser.parse($0) }
                switch result {
                case .complete(let head, let body, let consumed):
                    precondition(consumed > 0 && consumed <= pending.count)
                    precondition(body.count <= limits.maxBodyBytes)
                    outcomes.append("\(head.method) \(head.target) \(head.headers.count) \(body.count)")
                    pending.removeFirst(consumed)
                case .incomplete(let consumed):
                    precondition(consumed >= 0 && consumed <= pending.count)
                    pending.removeFirst(consumed)
                    break parsing
                case .invalid(let error):
                    outcomes.append("invalid \(error)")
                    return outcomes
                }
            }
        }
        return outcomes
    }
}
