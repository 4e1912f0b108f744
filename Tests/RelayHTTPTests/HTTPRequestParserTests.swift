import Foundation
import Testing

@testable import RelayHTTP

@Suite struct HTTPRequestParserTests {
    @Test func parsesASimpleGet() throws {
        let input = "GET /healthz?x=1 HTTP/1.1\r\nHost: relay.example\r\nUser-Agent:  curl/8 \r\n\r\n"
        let results = parseRequests(input)
        #expect(results.count == 1)
        guard case .complete(let head, let body, let consumed) = results[0] else {
            Issue.record("not complete: \(results)")
            return
        }
        #expect(head.method == .get)
        #expect(head.target == "/healthz?x=1")
        #expect(head.version == .http11)
        #expect(head.headers["host"] == "relay.example")
        #expect(head.headers["user-agent"] == "curl/8")
        #expect(head.keepAlive)
        #expect(body.isEmpty)
        #expect(consumed == input.utf8.count)
    }

    @Test func headerNamesAreLowercasedAndLookupIgnoresCase() {
        let head = parseRequests("GET / HTTP/1.1\r\nHOST: a\r\nX-Custom-Thing: v\r\n\r\n").first?.head
        #expect(head?.headers.fields.map(\.name) == ["host", "x-custom-thing"])
        #expect(head?.headers["X-CUSTOM-THING"] == "v")
    }

    /// Long names and values requests repeat (kept as literals) read back exactly as the parser
    /// stores any field: names lowercased, values as sent, near misses untouched.
    @Test func repeatedLongNamesAndValuesReadBackAsSent() {
        let fields = [
            ("MCP-Protocol-Version", "2025-11-25"), ("mcp-protocol-versioN", "x"), ("mcp-protocol-versiom", "y"),
            ("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream"),
            ("X-Accept", "Application/JSON"), ("X-Near", "application/jsoN"), ("X-Longer", "application/json "),
            ("X-Forwarded-Proto", "https"), ("X-Some-Very-Long-Field", "application/x-www-form-urlencoded"),
        ]
        let input =
            "POST / HTTP/1.1\r\nHost: a\r\n" + fields.map { "\($0.0): \($0.1)\r\n" }.joined()
            + "Content-Length: 0\r\n\r\n"
        let head = parseRequests(input).first?.head
        #expect(
            head?.headers.fields.map(\.name)
                == ["host"] + fields.map { $0.0.lowercased() } + ["content-length"])
        // Trailing whitespace is not part of a value (RFC 9112 §5.1), so "X-Longer" reads back trimmed.
        #expect(
            head?.headers.fields.map(\.value)
                == ["a"] + fields.map { $0.1.trimmingCharacters(in: .whitespaces) } + ["0"])
    }

    @Test func anIncompleteHeadConsumesNothingUntilItEnds() {
        var parser = HTTPRequestParser()
        let part = Array("GET / HTTP/1.1\r\nHost: a\r\n".utf8)
        let result1 = feed(&parser, part)
        #expect(result1 == .incomplete(consumed: 0))
        #expect(parser.hasPartialRequest)
        let whole = part + Array("\r\n".utf8)
        let result = feed(&parser, whole)
        #expect(result.head?.target == "/")
        #expect(!parser.hasPartialRequest)
    }

    @Test(arguments: [1, 2, 3, 7, 64])
    func splittingTheInputNeverChangesTheResult(pieceSize: Int) {
        let input =
            "POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"
            + "POST /b HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nT: v\r\n\r\n"
            + "GET /c HTTP/1.1\r\nHost: a\r\n\r\n"
        func summary(_ results: [HTTPParseResult]) -> [String] {
            results.map {
                "\($0.head?.method.rawValue ?? "-") \($0.head?.target ?? "-") \($0.body.map { String(decoding: $0, as: UTF8.self) } ?? "-")"
            }
        }
        let whole = parseRequests(input)
        let pieces = parseRequests(input, pieceSize: pieceSize)
        #expect(summary(whole) == summary(pieces))
        #expect(pieces.map { $0.head?.target } == ["/a", "/b", "/c"])
        #expect(pieces.map { $0.body.map { String(decoding: $0, as: UTF8.self) } } == ["hello", "abcde", ""])
    }

    @Test func parsesThreePipelinedRequestsFromOneBuffer() {
        let results = parseRequests((1...3).map { "GET /\($0) HTTP/1.1\r\nHost: a\r\n\r\n" }.joined())
        #expect(results.compactMap { $0.head?.target } == ["/1", "/2", "/3"])
    }

    @Test func skipsBlankLinesBeforeARequest() {
        let results = parseRequests("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(results.first?.head?.target == "/")
    }

    @Test func keepAliveFollowsVersionAndConnectionHeader() {
        #expect(parseRequests("GET / HTTP/1.1\r\nHost: a\r\n\r\n").first?.head?.keepAlive == true)
        #expect(parseRequests("GET / HTTP/1.1\r\nHost: a\r\nConnection: Close\r\n\r\n").first?.head?.keepAlive == false)
        #expect(parseRequests("GET / HTTP/1.0\r\n\r\n").first?.head?.keepAlive == false)
        #expect(parseRequests("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").first?.head?.keepAlive == true)
        #expect(
            parseRequests("GET / HTTP/1.1\r\nHost: a\r\nConnection: x, close\r\n\r\n").first?.head?.keepAlive == false)
    }

    @Test func expectContinueIsRequestedOnceBeforeTheBody() {
        var parser = HTTPRequestParser()
        let head = Array("PUT /x HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n".utf8)
        let result2 = feed(&parser, head)
        #expect(result2 == .incomplete(consumed: head.count))
        let first = parser.takeContinueRequest()
        let second = parser.takeContinueRequest()
        #expect(first && !second)
        let body = Array("abc".utf8)
        let result3 = feed(&parser, body)
        #expect(result3.body == body)
    }

    @Test func noContinueWhenTheBodyAlreadyArrived() {
        var parser = HTTPRequestParser()
        let input = Array("PUT /x HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc".utf8)
        let result4 = feed(&parser, input)
        #expect(result4.body == Array("abc".utf8))
        let requested = parser.takeContinueRequest()
        #expect(!requested)
    }

    @Test func chunkExtensionsAndTrailersAreAcceptedAndDropped() {
        let result = parseRequests(
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\nA;name=\"v\"\r\n0123456789\r\n0\r\nX-Sum: 1\r\n\r\n"
        ).first
        #expect(result?.body == Array("0123456789".utf8))
        #expect(result?.head?.headers["x-sum"] == nil)
    }

    @Test func wellFormedTrailerFieldsOfEveryShapeAreAccepted() {
        // No space after the colon, an empty value, spaces and tabs around a value, obs-text, and a
        // name that only starts like a forbidden one.
        let trailers = "X-Sum:1\r\nX-Empty:\r\nX-Padded: \t v \t\r\nX-Text: caf\u{e9}\r\nContent-Lengthy: 1\r\n\r\n"
        for pieceSize in [1, 7, 1000] {
            let result = parseRequests(
                "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n" + trailers
                    + "GET /next HTTP/1.1\r\nHost: a\r\n\r\n",
                pieceSize: pieceSize)
            #expect(result.count == 2)
            #expect(result.first?.body == Array("ok".utf8))
            #expect(result.last?.head?.target == "/next")
        }
    }

    @Test func allowsTheExactLimits() {
        let limits = HTTPParserLimits(maxRequestLineBytes: 64, maxHeaderBytes: 128, maxHeaderCount: 3, maxBodyBytes: 4)
        let line = "GET /" + String(repeating: "a", count: 64 - 16) + " HTTP/1.1\r\n"
        #expect(line.utf8.count == 64)
        #expect(parseError(line + "Host: a\r\n\r\n", limits: limits) == nil)
        #expect(
            parseError("POST / HTTP/1.1\r\nHost: a\r\nA: 1\r\nContent-Length: 4\r\n\r\nabcd", limits: limits) == nil)
    }
}
