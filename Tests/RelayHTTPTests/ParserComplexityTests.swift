import RelayJSON
import Testing

@testable import RelayHTTP

/// The HTTP head parser, the chunked decoder, form decoding and the cookie and header-list parsers
/// do work linear in their input on adversarial shapes (issue 38): the cost per byte at ten times
/// the size stays within a generous bound of the cost per byte at the small size (`ComplexityCheck`,
/// the check the JSON fuzzer's shapes run under). The limits are raised far past the relay's so the
/// parser itself is measured, not the limit that would stop it first.
@Suite(.serialized) struct ParserComplexityTests {
    static let bound = 4.0
    static let wide = HTTPParserLimits(
        maxRequestLineBytes: 1 << 22, maxHeaderBytes: 1 << 22, maxHeaderCount: 1 << 20, maxBodyBytes: 1 << 24)

    static let heads: [ComplexityCheck.Shape] = [
        .init("many header fields") { size in
            head(fields: (0..<(size / 16)).map { "x-f\($0 % 1000): v\r\n" })
        },
        .init("many repeated fields") { size in head(fields: Array(repeating: "accept: a\r\n", count: size / 11)) },
        .init("one long field value") { size in
            head(fields: ["x-long: " + String(repeating: "v", count: size) + "\r\n"])
        },
        .init("long target") { size in
            Array(("GET /" + String(repeating: "a/", count: size / 2) + " HTTP/1.1\r\nHost: h\r\n\r\n").utf8)
        },
        .init("many tiny chunks") { size in
            Array(
                ("POST /t HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + String(repeating: "1\r\na\r\n", count: size / 6) + "0\r\n\r\n").utf8)
        },
    ]

    private static func head(fields: [String]) -> [UInt8] {
        Array(("GET / HTTP/1.1\r\nHost: h\r\n" + fields.joined() + "\r\n").utf8)
    }

    /// Parses whole, then in pieces of 512 bytes (a head trickling in): both must complete.
    private static func parseCost(_ input: [UInt8]) -> Int {
        var total = 0
        for pieceSize in [nil, 512] {
            let results = parseRequests(input, limits: wide, pieceSize: pieceSize)
            precondition(results.count == 1 && results[0].head != nil, "the shape must parse")
            total += results[0].head!.headers.count + (results[0].body?.count ?? 0)
        }
        return total
    }

    @Test(arguments: heads.map(\.name))
    func headParserCostPerByteIsFlat(_ name: String) throws {
        let shape = try #require(Self.heads.first { $0.name == name })
        let measurement = ComplexityCheck(smallSize: 20_000, factor: 10).measure(shape, Self.parseCost)
        #expect(measurement.ratio <= Self.bound, "\(measurement)")
    }

    static let forms: [ComplexityCheck.Shape] = [
        .init("many pairs") { size in Array(String(repeating: "a=1&", count: size / 4).utf8) },
        .init("many repeated names") { size in Array(String(repeating: "state=x&", count: size / 8).utf8) },
        .init("long escapes") { size in Array(("v=" + String(repeating: "%C3%A9+", count: size / 7)).utf8) },
        .init("empty pairs") { size in Array(String(repeating: "&", count: size).utf8) },
    ]

    @Test(arguments: forms.map(\.name))
    func formDecodingCostPerByteIsFlat(_ name: String) throws {
        let shape = try #require(Self.forms.first { $0.name == name })
        let measurement = ComplexityCheck(smallSize: 20_000, factor: 10).measure(shape) { input in
            guard let pairs = FormDecoding.pairs(bytes: input) else { return -1 }
            // What the OAuth endpoints do with a form: refuse repeated names, read one value.
            return pairs.count + FormParameters(pairs).repeatedNames.count + (FormParameters(pairs)["v"]?.count ?? 0)
        }
        #expect(measurement.ratio <= Self.bound, "\(measurement)")
    }

    static let headerValues: [ComplexityCheck.Shape] = [
        .init("many cookies") { size in Array(String(repeating: "a=1; ", count: size / 5).utf8) },
        .init("one long cookie") { size in Array(("s=\"" + String(repeating: "x", count: size) + "\"").utf8) },
        .init("many separators") { size in Array(String(repeating: ";", count: size).utf8) },
        .init("many list elements") { size in Array(String(repeating: "keep-alive, ", count: size / 12).utf8) },
        .init("whitespace runs") { size in Array((String(repeating: " \t", count: size / 2) + "x").utf8) },
    ]

    @Test(arguments: headerValues.map(\.name))
    func cookieAndHeaderListCostPerByteIsFlat(_ name: String) throws {
        let shape = try #require(Self.headerValues.first { $0.name == name })
        let measurement = ComplexityCheck(smallSize: 20_000, factor: 10).measure(shape) { input in
            let value = String(decoding: input, as: UTF8.self)
            let request = Request(
                method: .get, target: "/", headers: HTTPHeaders([("cookie", value), ("connection", value)]))
            return request.cookies.count + (request.cookie("s")?.count ?? 0)
                + (request.headers.contains("connection", token: "close") ? 1 : 0)
        }
        #expect(measurement.ratio <= Self.bound, "\(measurement)")
    }
}
