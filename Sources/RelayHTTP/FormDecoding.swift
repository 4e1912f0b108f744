/// `application/x-www-form-urlencoded` decoding (WHATWG URL §5.1), used for query strings and
/// form bodies. Malformed percent-escapes and invalid UTF-8 make the whole input invalid rather
/// than silently producing something else.
package enum FormDecoding {
    /// The name/value pairs in order, or nil when the input is malformed.
    package static func pairs(_ encoded: some StringProtocol) -> [(name: String, value: String)]? {
        pairs(bytes: Array(encoded.utf8))
    }

    /// The name/value pairs of an encoded byte string (a form body), or nil when malformed.
    package static func pairs(bytes encoded: [UInt8]) -> [(name: String, value: String)]? {
        var result: [(name: String, value: String)] = []
        for part in encoded.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let pieces = part.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(pieces[0]) else { return nil }
            let value = pieces.count > 1 ? decode(pieces[1]) : ""
            guard let value else { return nil }
            result.append((name: name, value: value))
        }
        return result
    }

    /// Percent-decodes one component, turning `+` into a space unless `plusAsSpace` is false
    /// (path segments keep `+`).
    package static func decode(_ bytes: some Collection<UInt8>, plusAsSpace: Bool = true) -> String? {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+") where plusAsSpace:
                output.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(PercentEncoding.hexValue),
                    let low = iterator.next().flatMap(PercentEncoding.hexValue)
                else { return nil }
                output.append(high << 4 | low)
            default:
                output.append(byte)
            }
        }
        return String(validating: output, as: UTF8.self)
    }

    /// Percent-encodes a component for a query string or form body (everything but unreserved).
    package static func encode(_ string: String) -> String { PercentEncoding.encode(string) }

    /// Encodes pairs as `a=1&b=2`.
    package static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
    }
}

/// Decoded form or query parameters, keeping repeats so callers can refuse them.
package struct FormParameters: Sendable {
    /// Every pair in order.
    package let pairs: [(name: String, value: String)]

    /// Parameters from pairs.
    package init(_ pairs: [(name: String, value: String)]) { self.pairs = pairs }

    /// The first value of `name`.
    package subscript(name: String) -> String? { pairs.first { $0.name == name }?.value }

    /// Every value of `name`.
    package func values(_ name: String) -> [String] { pairs.filter { $0.name == name }.map(\.value) }

    /// Names that appear more than once (OAuth refuses repeated parameters).
    package var repeatedNames: Set<String> {
        var seen = Set<String>()
        var repeated = Set<String>()
        for pair in pairs where !seen.insert(pair.name).inserted { repeated.insert(pair.name) }
        return repeated
    }
}

extension Request {
    /// The decoded query; a malformed query throws a 400 `HTTPError`.
    package func query() throws(HTTPError) -> FormParameters {
        guard let raw = rawQuery else { return FormParameters([]) }
        guard let pairs = FormDecoding.pairs(raw) else {
            throw HTTPError(.badRequest, message: "The query string is malformed.")
        }
        return FormParameters(pairs)
    }

    /// The decoded `application/x-www-form-urlencoded` body; anything else throws a 4xx `HTTPError`.
    package func formBody() throws(HTTPError) -> FormParameters {
        guard hasContentType("application/x-www-form-urlencoded") else {
            throw HTTPError(.unsupportedMediaType, message: "Expected application/x-www-form-urlencoded.")
        }
        guard let pairs = FormDecoding.pairs(bytes: body) else {
            throw HTTPError(.badRequest, message: "The form body is malformed.")
        }
        return FormParameters(pairs)
    }
}
