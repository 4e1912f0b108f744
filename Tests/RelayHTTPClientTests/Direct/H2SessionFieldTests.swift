import RelayHTTP
import Testing

/// What `H2Session.submit` puts in a HEADERS frame, against an nghttp2 server session in memory:
/// a field HTTP/2 cannot carry is refused before anything is sent (and the session goes on), names
/// go lower-cased, connection-specific fields and `host` are dropped, `content-length` is the body's.
@Suite struct H2SessionFieldTests {
    static let refused: [H2Request] = [
        H2Request(method: "", authority: "example.com"),
        H2Request(method: "G T", authority: "example.com"),
        H2Request(scheme: "", authority: "example.com"),
        H2Request(scheme: "ht tp", authority: "example.com"),
        H2Request(authority: ""),
        H2Request(authority: "exa mple.com"),
        H2Request(authority: "example.com", path: ""),
        H2Request(authority: "example.com", path: "nope"),
        H2Request(authority: "example.com", path: "/a b"),
        H2Request(authority: "example.com", path: "/caf\u{E9}"),
        H2Request(authority: "example.com", path: "/\u{7F}"),
        H2Request(authority: "example.com", headers: ["bad name": "x"]),
        H2Request(authority: "example.com", headers: ["X-Value": "a\r\nInjected: yes"]),
        H2Request(authority: "example.com", headers: ["X-Value": "a\u{0}b"]),
        // Dropped fields are checked all the same.
        H2Request(authority: "example.com", headers: ["Connection": "close\nInjected: yes"]),
    ]

    @Test(arguments: refused)
    func aFieldHTTP2CannotCarryIsRefusedAndTheSessionGoesOn(request: H2Request) throws {
        let pair = try H2Pair()
        do {
            _ = try pair.client.submit(request)
            Issue.record("sent: \(request.method) \(request.scheme) \(request.authority) \(request.path)")
        } catch {
            guard case .invalidRequest = error else { throw error }
        }
        try pair.exchange()
        #expect(pair.server.requests.isEmpty)
        let id = try pair.client.submit(H2Request(authority: "example.com", path: "/after"))
        try pair.exchange()
        #expect(pair.server.requests[id]?.field(":path") == "/after")
        #expect(pair.server.requests[id]?.fields.count == 4)
    }

    @Test func theFieldsThatGoOut() throws {
        let pair = try H2Pair()
        let token = String(repeating: "Ab0-_", count: 200)
        let request = H2Request(
            method: "POST", authority: "api.example.com:8443", path: "/records/lookup?ckWebAuthToken=\(token)&x=%20",
            headers: [
                "Content-Type": "application/json", "X-Apple-Thing": "Mixed Case\tvalue", "Host": "elsewhere",
                "Connection": "keep-alive", "Keep-Alive": "5", "Transfer-Encoding": "chunked", "Upgrade": "h2c",
                "Proxy-Connection": "x", "TE": "gzip", "Content-Length": "999",
            ],
            body: Array("{}".utf8))
        let id = try pair.client.submit(request)
        try pair.exchange()
        let fields = try #require(pair.server.requests[id]).fields
        #expect(
            fields.map(\.name) == [
                ":method", ":scheme", ":authority", ":path", "content-type", "x-apple-thing", "content-length",
            ])
        #expect(
            fields.map(\.value) == [
                "POST", "https", "api.example.com:8443", "/records/lookup?ckWebAuthToken=\(token)&x=%20",
                "application/json", "Mixed Case\tvalue", "2",
            ])
        // `te: trailers` is the one `te` HTTP/2 allows; `*` is a path for OPTIONS.
        let options = try pair.client.submit(
            H2Request(method: "OPTIONS", authority: "example.com", path: "*", headers: ["TE": "trailers"]))
        try pair.exchange()
        #expect(pair.server.requests[options]?.field(":path") == "*")
        #expect(pair.server.requests[options]?.field("te") == "trailers")
    }

    /// RFC 7541 §7.1.3: a secret goes as a never-indexed literal, kept out of both sides' HPACK
    /// tables. Read back as nghttp2's server decoder reports each field's representation.
    @Test func secretsAreNeverIndexedAndTheRestIs() throws {
        let pair = try H2Pair()
        let token = String(repeating: "Ab0+/=", count: 200)
        let withQuery = try pair.client.submit(
            H2Request(
                method: "POST", authority: "api.example.com", path: "/records/lookup?ckWebAuthToken=\(token)",
                headers: [
                    "Content-Type": "application/json", "Authorization": "Bearer secret", "Cookie": "s=1",
                    "Proxy-Authorization": "Basic eDp5",
                ],
                body: Array("{}".utf8)))
        let plain = try pair.client.submit(H2Request(authority: "api.example.com", path: "/plain"))
        try pair.exchange()
        let sensitive = try #require(pair.server.requests[withQuery])
        #expect(sensitive.neverIndexed == [":path", "authorization", "cookie", "proxy-authorization"])
        #expect(sensitive.field(":path") == "/records/lookup?ckWebAuthToken=\(token)")
        #expect(try #require(pair.server.requests[plain]).neverIndexed.isEmpty)
    }
}
