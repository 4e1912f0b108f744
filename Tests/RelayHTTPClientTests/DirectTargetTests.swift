import Testing

@testable import RelayHTTP

/// `DirectTarget` takes a URL apart byte by byte: which URLs the direct client takes, and the parts
/// it sends (`Host`, request target) and pools by (origin).
@Suite struct DirectTargetTests {
    @Test(arguments: [
        ("http://example.com", "example.com", 80, "example.com", "/", "http://example.com:80"),
        ("HTTPS://Example.COM/a?b=c#frag", "example.com", 443, "Example.COM", "/a?b=c", "https://example.com:443"),
        (
            "https://api.example.com:8443?x=1", "api.example.com", 8443, "api.example.com:8443", "/?x=1",
            "https://api.example.com:8443"
        ),
        ("http://127.0.0.1:9/p/q#", "127.0.0.1", 9, "127.0.0.1:9", "/p/q", "http://127.0.0.1:9"),
        ("http://[::1]:8080/x", "::1", 8080, "[::1]:8080", "/x", "http://[::1]:8080"),
        ("https://h.example#only-fragment", "h.example", 443, "h.example", "/", "https://h.example:443"),
    ])
    func takesPlainURLsApart(
        url: String, host: String, port: Int, authority: String, requestTarget: String, origin: String
    ) throws {
        let target = try #require(DirectTarget(url))
        #expect(target.host == host)
        #expect(target.port == port)
        #expect(target.authority == authority)
        #expect(target.requestTarget == requestTarget)
        #expect(target.origin == origin)
        #expect(target.scheme == (url.lowercased().hasPrefix("https") ? .https : .http))
    }

    /// Everything else stays with libcurl, which gives its own errors.
    @Test(arguments: [
        "ftp://example.com/", "http:/example.com", "http://", "http:///path", "http://user:pw@example.com/",
        "http://example.com:80@evil.example/", "http://exa mple.com/", "http://example.com/\u{e9}",
        "http://example.com/\t", "http://example.com:0/", "http://example.com:65536/", "http://example.com:8a/",
        "http://[::1/", "http://[::1]x/", "http://exa_mple.com/", "httpx://example.com/", "",
    ])
    func refusesOtherShapes(url: String) {
        #expect(DirectTarget(url) == nil)
    }

    /// A long query (the web auth token rides in CloudKit's query string) is kept byte for byte.
    @Test func aLongQueryIsKeptExactly() throws {
        let query = "ckWebAuthToken=" + String(repeating: "A%2Bb_", count: 200)
        let target = try #require(DirectTarget("https://api.example.com/database/1/x/records/lookup?" + query))
        #expect(target.requestTarget == "/database/1/x/records/lookup?" + query)
    }
}
