import Testing

extension EndToEndSuite {
    /// The relay against CloudKit as Apple serves it: TLS with HTTP/2 offered through ALPN
    /// (`CloudKitFront`, trusted through `RELAY_CLOUDKIT_CA_FILE`), the emulator behind it through the
    /// recording hop. Every tool works through the official SDK client, every call came over HTTP/2 on
    /// a few connections, and every one came from libcurl (its `Accept-Encoding`, which nginx passes
    /// on to the hop).
    @Suite(.timeLimit(.minutes(10))) struct UpstreamTLSTests {
        @Test func testEveryToolWorksThroughLibcurlOverTLSAndHTTP2() async throws {
            try await CloudKitFront.allToolsThroughFront(prefix: "upstream-tls", recordingHop: true) { cloudKit, hop in
                let requests = cloudKit.requests
                #expect(requests.filter { $0.path.hasPrefix("/database/") }.count > 9, "\(requests)")
                #expect(Set(requests.map(\.protocolName)) == ["HTTP/2.0"], "\(requests)")
                #expect(Set(requests.map(\.connection)).count <= 8, "\(requests)")
                let seen = hop?.requests ?? []
                let calls = seen.filter { $0.path.hasPrefix("/database/") }
                #expect(calls.count > 9, "\(seen)")
                #expect(calls.allSatisfy { $0.acceptEncoding.contains("gzip") }, "\(calls)")
            }
        }
    }
}
