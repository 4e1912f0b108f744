import RelayHTTP
import Testing

/// A reconnection to the same `host:port` resumes the last session (TLS 1.2 tickets arrive in the
/// handshake, TLS 1.3 tickets after it), seen by the client (`isResumed`) and by nginx
/// (`$ssl_session_reused` in `TLSServer`'s access log).
@Suite(.enabled(if: TLSServer.available, "needs nginx and openssl"))
struct TLSClientResumptionTests {
    struct Outcome: Sendable, Equatable {
        var resumed: [Bool]
        var cached: Int
    }

    @Test(arguments: ["TLSv1.2", "TLSv1.3"])
    func aSecondConnectionToTheSameOriginResumes(version: String) async throws {
        let server = try await TLSServer(http2: false, protocols: version)
        let (port, caFile) = (server.port, server.certificate)
        let outcome = try await onOwnThread {
            let context = try TLSClientContext(caFile: caFile, alpn: ["http/1.1"])
            var resumed: [Bool] = []
            for _ in 0..<3 {
                let driver = try TLSSocketDriver(
                    port: port, session: TLSClientSession(context: context, serverName: "localhost", port: port))
                try driver.handshake()
                try driver.send(keptRequest)
                _ = try driver.read(until: "\r\n\r\nok")  // TLS 1.3 tickets are read here
                resumed.append(driver.session.isResumed)
            }
            return Outcome(resumed: resumed, cached: context.cachedSessionCount)
        }
        #expect(outcome == Outcome(resumed: [false, true, true], cached: 1))
        // The third line may be written after the client read the third response.
        let reused = await server.log(lines: 3).map { $0.split(separator: " ")[2] }
        #expect(reused == [".", "r", "r"])
    }

    @Test func sessionsAreKeptPerNameAndPortAndPerContext() async throws {
        let server = try await TLSServer(http2: false)
        let (port, caFile) = (server.port, server.certificate)
        let resumed = try await onOwnThread {
            let context = try TLSClientContext(caFile: caFile, alpn: ["http/1.1"])
            func connect(_ context: TLSClientContext, _ name: String, cachePort: Int) throws -> Bool {
                // The socket always goes to the server; `cachePort` only names the origin.
                let driver = try TLSSocketDriver(
                    port: port, session: TLSClientSession(context: context, serverName: name, port: cachePort))
                try driver.handshake()
                try driver.send(keptRequest)
                _ = try driver.read(until: "\r\n\r\nok")
                return driver.session.isResumed
            }
            return [
                try connect(context, "localhost", cachePort: port),
                try connect(context, "127.0.0.1", cachePort: port),  // another name: full handshake
                try connect(context, "localhost", cachePort: port + 1),  // another port: full handshake
                try connect(TLSClientContext(caFile: caFile, alpn: ["http/1.1"]), "localhost", cachePort: port),
                try connect(context, "localhost", cachePort: port),
            ]
        }
        #expect(resumed == [false, false, false, false, true])
    }

    @Test func theCacheIsBounded() async throws {
        let server = try await TLSServer(http2: false)
        let (port, caFile) = (server.port, server.certificate)
        let (cached, resumedOldest, resumedNewest) = try await onOwnThread {
            let context = try TLSClientContext(caFile: caFile, alpn: ["http/1.1"], maxCachedSessions: 2)
            func connect(_ cachePort: Int) throws -> Bool {
                let driver = try TLSSocketDriver(
                    port: port, session: TLSClientSession(context: context, serverName: "localhost", port: cachePort))
                try driver.handshake()
                try driver.send(keptRequest)
                _ = try driver.read(until: "\r\n\r\nok")
                return driver.session.isResumed
            }
            for offset in 0..<3 { _ = try connect(port + offset) }
            let cached = context.cachedSessionCount
            let resumedNewest = try connect(port + 2)
            let resumedOldest = try connect(port)
            return (cached, resumedOldest, resumedNewest)
        }
        #expect(cached == 2)
        #expect(resumedNewest)
        #expect(!resumedOldest)
    }
}
