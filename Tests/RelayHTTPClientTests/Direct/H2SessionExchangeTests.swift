import CNghttp2
import RelayHTTP
import Testing

/// `H2Session` against an nghttp2 server session in memory: requests and responses end to end.
@Suite struct H2SessionExchangeTests {
    /// Long field names CloudKit sends on every answer come back as the literal names (not a heap
    /// string each); names that only look alike (same length, another byte) are kept as sent.
    @Test func longFieldNamesComeBackAsSent() throws {
        let pair = try H2Pair()
        let fields = [
            ("x-apple-cloudkit-web-auth-token", "rotated+/="),
            ("access-control-expose-headers", "X-Apple-Request-UUID"),
            ("x-apple-request-uuid", "u-1"), ("x-apple-request-uuie", "near miss"),
            ("x-some-other-long-field-name", "kept"), ("date", "Thu, 03 Dec 2026 23:08:40 GMT"),
        ]
        pair.server.onRequest = { server, stream, _ in server.respond(stream, fields: fields, body: [1]) }
        let id = try pair.client.submit(H2Request(authority: "example.com"))
        try pair.exchange()
        let response = try #require(pair.response(id))
        #expect(response.headers.fields.map(\.name) == fields.map(\.0) + ["content-length"])
        #expect(response.headers.fields.map(\.value) == fields.map(\.1) + ["1"])
        #expect(response.headers["X-Apple-CloudKit-Web-Auth-Token"] == "rotated+/=")
    }

    /// Values that repeat from response to response (`date`, `content-type`…) are reused when their
    /// bytes match and read back as sent when they change, stream after stream on one connection.
    @Test func repeatingFieldValuesComeBackAsSent() throws {
        let pair = try H2Pair()
        let answers: [[(String, String)]] = [
            [("date", "Thu, 03 Dec 2026 23:08:40 GMT"), ("content-type", "application/json; charset=UTF-8")],
            [("date", "Thu, 03 Dec 2026 23:08:40 GMT"), ("content-type", "application/json; charset=UTF-8")],
            [("date", "Thu, 03 Dec 2026 23:08:41 GMT"), ("content-type", "application/json; charset=UTF-16")],
            [("date", "Thu, 03 Dec 2026 23:08:41 GMT"), ("content-type", "text/plain")],
            [("date", "short"), ("content-type", "application/json; charset=UTF-8")],
        ]
        var next = 0
        pair.server.onRequest = { server, stream, _ in
            server.respond(stream, fields: answers[next], body: [1])
            next += 1
        }
        for fields in answers {
            let id = try pair.client.submit(H2Request(authority: "example.com"))
            try pair.exchange()
            let response = try #require(pair.response(id))
            #expect(response.headers.fields.map(\.value) == fields.map(\.1) + ["1"])
        }
    }

    @Test func requestAndResponseGoEndToEnd() throws {
        let pair = try H2Pair()
        pair.server.onRequest = { server, stream, _ in
            server.respond(
                stream, status: 201, fields: [("content-type", "text/plain"), ("x-one", "1")], body: Array("made".utf8))
        }
        let body = Array(#"{"a":1}"#.utf8)
        let id = try pair.client.submit(
            H2Request(
                method: "POST", authority: "example.com:8443", path: "/records/query?x=1",
                headers: ["Content-Type": "application/json", "X-Apple-Token": "t"], body: body))
        try pair.exchange()
        let request = try #require(pair.server.requests[id])
        #expect(
            request.fields.map(\.name) == [
                ":method", ":scheme", ":authority", ":path", "content-type", "x-apple-token", "content-length",
            ])
        #expect(request.field(":method") == "POST")
        #expect(request.field(":scheme") == "https")
        #expect(request.field(":authority") == "example.com:8443")
        #expect(request.field(":path") == "/records/query?x=1")
        #expect(request.field("content-length") == "7")
        #expect(request.body == body)
        let response = try #require(pair.response(id))
        #expect(response.status == 201)
        #expect(response.headers == ["content-type": "text/plain", "x-one": "1", "content-length": "4"])
        #expect(response.text == "made")
        #expect(response.httpVersion == "2")
        guard case .head(id, 201, let headers) = pair.events.first else {
            Issue.record("no head event first: \(pair.events)")
            return
        }
        #expect(headers["x-one"] == "1")
        #expect(pair.client.isAlive)
    }

    @Test func connectionSpecificFieldsAreDroppedAndNamesLowerCased() throws {
        let pair = try H2Pair()
        let id = try pair.client.submit(
            H2Request(
                authority: "example.com",
                headers: [
                    "Connection": "keep-alive", "Keep-Alive": "timeout=5", "Proxy-Connection": "x",
                    "Transfer-Encoding": "chunked", "Upgrade": "h2c", "Host": "evil.example", "TE": "gzip",
                    "Content-Length": "99", "X-Kept": "Yes", "te": "trailers",
                ]))
        try pair.exchange()
        let request = try #require(pair.server.requests[id])
        #expect(request.fields.map(\.name) == [":method", ":scheme", ":authority", ":path", "x-kept", "te"])
        #expect(request.field(":authority") == "example.com")
        #expect(request.field("x-kept") == "Yes")
        #expect(request.field("te") == "trailers")
    }

    @Test func fieldsHTTP2CannotCarryAreRefused() throws {
        let pair = try H2Pair(server: FakeH2Server(settings: [(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 10)]))
        let bad: [H2Request] = [
            H2Request(authority: "example.com", headers: [":path": "/x"]),
            H2Request(authority: "example.com", headers: ["x-a b": "1"]),
            H2Request(authority: "example.com", headers: ["x-a": "1\r\nx-b: 2"]),
            H2Request(authority: "example.com", headers: ["x-a": "nul\u{0}"]),
            H2Request(method: "GET /", authority: "example.com"),
            H2Request(authority: "example.com", path: "no-slash"),
            H2Request(authority: "exa mple.com"),
        ]
        for request in bad {
            #expect(throws: ClientError.self) { try pair.client.submit(request) }
        }
        try pair.exchange()
        #expect(pair.server.requests.isEmpty)
        #expect(pair.client.availableStreams == 10)
    }

    @Test func manyConcurrentStreamsEachGetTheirOwnResponse() throws {
        let pair = try H2Pair(server: FakeH2Server(settings: [(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100)]))
        pair.server.onRequest = { server, stream, request in
            server.respond(
                stream, fields: [("x-path", request.field(":path")!)],
                body: h2TestBody(3_000 + Int(stream), seed: Int(stream)))
        }
        var ids: [Int32] = []
        for index in 0..<60 {
            ids.append(try pair.client.submit(H2Request(authority: "example.com", path: "/item/\(index)")))
        }
        #expect(pair.client.availableStreams == 40)
        try pair.exchange()
        for (index, id) in ids.enumerated() {
            let response = try #require(pair.response(id))
            #expect(response.headers["x-path"] == "/item/\(index)")
            #expect(response.body == h2TestBody(3_000 + Int(id), seed: Int(id)))
        }
        #expect(pair.client.availableStreams == 100)
    }

    @Test func bodiesLargerThanTheWindowsKeepMovingBothWays() throws {
        // 3 MiB down, over a 1 MiB stream window: only the client's WINDOW_UPDATEs let it finish.
        // 300 KB up, over the server's default 64 KiB window: the body source must resume.
        let pair = try H2Pair()
        let upload = h2TestBody(300_000, seed: 1)
        let download = h2TestBody(3 << 20, seed: 2)
        pair.server.onRequest = { server, stream, _ in server.respond(stream, body: download) }
        let id = try pair.client.submit(H2Request(method: "PUT", authority: "example.com", body: upload))
        try pair.exchange()
        #expect(pair.server.requests[id]?.body == upload)
        let response = try #require(pair.response(id))
        #expect(response.body == download)
    }

    @Test func aHeaderBlockLargerThanAFrameComesInContinuations() throws {
        let pair = try H2Pair()
        let fields = (0..<40).map { ("x-field-\($0)", String(repeating: "v\($0 % 10)", count: 500)) }
        pair.server.onRequest = { server, stream, _ in server.respond(stream, fields: fields) }
        let id = try pair.client.submit(H2Request(authority: "example.com"))
        try pair.exchange()
        #expect(pair.serverFrameTypes.contains(0x9))  // CONTINUATION
        let response = try #require(pair.response(id))
        #expect(response.headers == HTTPHeaders(fields))
        #expect(response.body.isEmpty)
    }

    @Test func huffmanCodedAndDynamicallyIndexedFieldsDecode() throws {
        let pair = try H2Pair()
        let value = "a-value-long-enough-to-be-worth-indexing-0123456789"
        pair.server.onRequest = { server, stream, _ in
            server.respond(stream, fields: [("x-repeated", value)], body: [1])
        }
        let first = try pair.client.submit(H2Request(authority: "example.com"))
        try pair.exchange()
        let afterFirst = pair.serverBytes.count
        let second = try pair.client.submit(H2Request(authority: "example.com"))
        try pair.exchange()
        #expect(pair.response(first)?.headers["x-repeated"] == value)
        #expect(pair.response(second)?.headers["x-repeated"] == value)
        // Huffman: the value's plain bytes never went over the wire. Dynamic table: the second
        // response (HEADERS + DATA) is a few index bytes, far less than the value itself.
        #expect(!pair.serverBytes.contains(value.utf8))
        #expect(pair.serverBytes.count - afterFirst < value.utf8.count)
    }

    @Test func interimHeadsAreSkipped() throws {
        let pair = try H2Pair()
        pair.server.onRequest = { server, stream, _ in
            server.informational(stream, status: 103, fields: [("link", "</a.css>; rel=preload")])
            server.respond(stream, status: 200, fields: [("x-final", "1")], body: Array("ok".utf8))
        }
        let id = try pair.client.submit(H2Request(authority: "example.com"))
        try pair.exchange()
        let response = try #require(pair.response(id))
        #expect(response.status == 200)
        #expect(response.headers == ["x-final": "1", "content-length": "2"])
        #expect(pair.events.count == 2)  // one head (the final one), one complete
    }
}

extension Array where Element == UInt8 {
    fileprivate func contains(_ needle: String.UTF8View) -> Bool {
        let needle = Array(needle)
        guard needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
