import Testing

extension EndToEndSuite {
    /// CloudKit over TLS whose ALPN offers HTTP/1.1 only (nginx without `http2`): the relay falls back
    /// to HTTP/1.1 and every tool still works through the official SDK client. `ProxyTests` covers the
    /// HTTP/2 front Apple actually serves; this is the fallback, should an endpoint or a proxy on the
    /// way stop offering HTTP/2.
    @Suite(.timeLimit(.minutes(10))) struct UpstreamHTTP1Tests {
        @Test func testEveryToolWorksWhenCloudKitOffersOnlyHTTP1() async throws {
            try await CloudKitFront.allToolsThroughFront(prefix: "upstream-h1", http2: false) { cloudKit, _ in
                let requests = cloudKit.requests
                #expect(requests.filter { $0.path.hasPrefix("/database/") }.count > 9, "\(requests)")
                #expect(Set(requests.map(\.protocolName)) == ["HTTP/1.1"], "\(requests)")
                // Still pooled: calls one after another reuse a kept-alive connection.
                #expect(Set(requests.map(\.connection)).count * 2 < requests.count, "\(requests)")
            }
        }
    }
}
