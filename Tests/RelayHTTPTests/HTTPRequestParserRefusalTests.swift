import Testing

@testable import RelayHTTP

/// Every shape the parser must refuse, with the error (and so the status) it must produce.
@Suite struct HTTPRequestParserRefusalTests {
    static let smuggling: [(String, HTTPParseError)] = [
        (
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
            .contentLengthWithTransferEncoding
        ),
        (
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
            .contentLengthWithTransferEncoding
        ),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", .repeatedContentLength),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", .repeatedContentLength),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3, 3\r\n\r\nabc", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +3\r\n\r\nabc", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x10\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\n", .invalidContentLength),
        (
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
            .repeatedTransferEncoding
        ),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", .unsupportedTransferEncoding),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\n\r\n", .unsupportedTransferEncoding),
        ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", .transferEncodingOnHTTP10),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n 5\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000000\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n;x\r\n", .invalidChunkSize),
        (
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n",
            .invalidChunkTerminator
        ),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n", .bareLineFeed),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\rabc\r\n", .bareCarriageReturn),
        (
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n folded: x\r\n\r\n",
            .obsoleteLineFolding
        ),
    ]

    /// Trailer sections (after `0\r\n`) refused as the head's fields would be, plus the forbidden fields.
    static let trailers: [(String, HTTPParseError)] = [
        ("X-Sum\r\n\r\n", .invalidHeaderName),
        ("X-Sum 1\r\n\r\n", .invalidHeaderName),
        ("X-Sum : 1\r\n\r\n", .invalidHeaderName),
        ("X-Sum\t: 1\r\n\r\n", .invalidHeaderName),
        (": 1\r\n\r\n", .invalidHeaderName),
        ("X(y): 1\r\n\r\n", .invalidHeaderName),
        ("X-\u{e9}: 1\r\n\r\n", .invalidHeaderName),
        ("X: 1\r\nNoColon\r\n\r\n", .invalidHeaderName),
        ("X: a\u{0}b\r\n\r\n", .invalidHeaderValue),
        ("X: a\u{1}b\r\n\r\n", .invalidHeaderValue),
        ("X: a\u{7f}b\r\n\r\n", .invalidHeaderValue),
        ("X: a\rb\r\n\r\n", .bareCarriageReturn),
        ("X: 1\nY: 2\r\n\r\n", .bareLineFeed),
        ("X\n\r\n", .bareLineFeed),
        ("X: 1\r\n\tfolded\r\n\r\n", .obsoleteLineFolding),
        ("Transfer-Encoding: chunked\r\n\r\n", .forbiddenTrailerField),
        ("Content-Length: 5\r\n\r\n", .forbiddenTrailerField),
        ("content-length:5\r\n\r\n", .forbiddenTrailerField),
        ("X: 1\r\nHOST: b\r\n\r\n", .forbiddenTrailerField),
        ("Trailer: X\r\n\r\n", .forbiddenTrailerField),
        ("Authorization: Bearer x\r\n\r\n", .forbiddenTrailerField),
        ("Content-Type: text/plain\r\n\r\n", .forbiddenTrailerField),
        ("Connection: close\r\n\r\n", .forbiddenTrailerField),
        ("Expect: 100-continue\r\n\r\n", .forbiddenTrailerField),
    ]

    static func chunkedWithTrailers(_ trailers: String) -> String {
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n" + trailers
    }

    static let malformedHeads: [(String, HTTPParseError)] = [
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n", .obsoleteLineFolding),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n\tb\r\n\r\n", .obsoleteLineFolding),
        ("GET / HTTP/1.1\r\nHost: a\r\nBad Header: x\r\n\r\n", .invalidHeaderName),
        ("GET / HTTP/1.1\r\nHost: a\r\nX-A : b\r\n\r\n", .invalidHeaderName),
        ("GET / HTTP/1.1\r\nHost: a\r\n: b\r\n\r\n", .invalidHeaderName),
        ("GET / HTTP/1.1\r\nHost: a\r\nX(y): z\r\n\r\n", .invalidHeaderName),
        ("GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", .invalidHeaderName),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\u{0}b\r\n\r\n", .invalidHeaderValue),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\u{1}b\r\n\r\n", .invalidHeaderValue),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\u{7f}b\r\n\r\n", .invalidHeaderValue),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n", .bareCarriageReturn),
        ("GET / HTTP/1.1\r\nHost: a\nX: b\r\n\r\n", .bareLineFeed),
        ("GET / HTTP/1.1\nHost: a\n\n", .bareLineFeed),
        ("GET / HTTP/1.1\r\n\r\n", .missingHost),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .repeatedHost),
        ("GET  / HTTP/1.1\r\nHost: a\r\n\r\n", .malformedRequestLine),
        ("GET / HTTP/1.1 x\r\nHost: a\r\n\r\n", .malformedRequestLine),
        ("GET / http/1.1\r\nHost: a\r\n\r\n", .malformedRequestLine),
        ("GET /a\u{7f} HTTP/1.1\r\nHost: a\r\n\r\n", .malformedRequestLine),
        ("GET /é HTTP/1.1\r\nHost: a\r\n\r\n", .malformedRequestLine),
        ("G(T / HTTP/1.1\r\nHost: a\r\n\r\n", .malformedRequestLine),
        (" GET / HTTP/1.1\r\nHost: a\r\n\r\n", .malformedRequestLine),
        ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", .unsupportedVersion),
        ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", .unsupportedVersion),
        ("GET / HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\n\r\n", .unsupportedExpectation),
    ]

    @Test(arguments: smuggling)
    func refusesSmugglingShapes(input: String, expected: HTTPParseError) {
        #expect(parseError(input) == expected)
        #expect(expected.status == .badRequest || expected.status == .notImplemented)
    }

    @Test(arguments: malformedHeads)
    func refusesMalformedHeads(input: String, expected: HTTPParseError) {
        #expect(parseError(input) == expected)
    }

    @Test(arguments: smuggling + malformedHeads)
    func refusalsDoNotDependOnHowBytesArrive(input: String, expected: HTTPParseError) {
        let bytewise = parseRequests(input, pieceSize: 1).last
        #expect(bytewise == .invalid(expected))
    }

    @Test func refusesOversizeRequestLineHeadersFieldsAndBodies() {
        let limits = HTTPParserLimits(maxRequestLineBytes: 64, maxHeaderBytes: 128, maxHeaderCount: 3, maxBodyBytes: 4)
        let longTarget = "GET /" + String(repeating: "a", count: 60) + " HTTP/1.1\r\nHost: a\r\n\r\n"
        #expect(parseError(longTarget, limits: limits) == .requestLineTooLong)
        #expect(HTTPParseError.requestLineTooLong.status.code == 414)
        let bigHeader = "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "v", count: 120) + "\r\n\r\n"
        #expect(parseError(bigHeader, limits: limits) == .headersTooLarge)
        #expect(HTTPParseError.headersTooLarge.status.code == 431)
        #expect(
            parseError("GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: limits) == .tooManyHeaders)
        #expect(HTTPParseError.tooManyHeaders.status.code == 431)
        #expect(parseError("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n", limits: limits) == .bodyTooLarge)
        #expect(HTTPParseError.bodyTooLarge.status.code == 413)
        let chunked = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
        #expect(parseError(chunked, limits: limits) == .bodyTooLarge)
    }

    @Test func refusesAnOversizeRequestLineBeforeItEnds() {
        // The limit applies while the line is still arriving: a client cannot stream an endless line.
        let limits = HTTPParserLimits(maxRequestLineBytes: 64)
        let endless = "GET /" + String(repeating: "a", count: 100)
        #expect(parseRequests(endless, limits: limits, pieceSize: 10).last == .invalid(.requestLineTooLong))
    }

    @Test func refusesEndlessTrailers() {
        let limits = HTTPParserLimits(maxHeaderBytes: 64)
        let input =
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
            + String(repeating: "X: y\r\n", count: 20)
        #expect(parseError(input, limits: limits) == .headersTooLarge)
    }

    @Test(arguments: trailers)
    func refusesMalformedAndForbiddenTrailers(trailers: String, expected: HTTPParseError) {
        let input = Self.chunkedWithTrailers(trailers)
        #expect(parseError(input) == expected)
        #expect(parseRequests(input, pieceSize: 1).last == .invalid(expected))
        #expect(expected.status == .badRequest)
    }

    @Test func trailerFieldsCountAgainstTheFieldLimit() {
        let limits = HTTPParserLimits(maxHeaderCount: 3)
        #expect(parseError(Self.chunkedWithTrailers("A: 1\r\nB: 2\r\nC: 3\r\n\r\n"), limits: limits) == nil)
        #expect(
            parseError(Self.chunkedWithTrailers("A: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n"), limits: limits)
                == .tooManyHeaders)
    }

    @Test func aFailedParserStaysFailed() {
        var parser = HTTPRequestParser()
        let bad = Array("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n".utf8)
        let result1 = feed(&parser, bad)
        #expect(result1 == .invalid(.repeatedHost))
        let good = Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
        let result2 = feed(&parser, good)
        #expect(result2 == .invalid(.repeatedHost))
    }

    @Test func fuzzHarnessInvariantsHoldOnTheSeedShapes() {
        for (input, _) in Self.smuggling + Self.malformedHeads
            + Self.trailers.map({ (Self.chunkedWithTrailers($0.0), $0.1) })
        {
            ParserFuzzing.run(Array(input.utf8))
        }
        ParserFuzzing.run(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
    }
}
