import Foundation
import RelayHTTP
import RelayTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `serve` and the process's descriptor limit: it raises its soft limit to the hard one, keeps
/// `maxConnections` below it with descriptors to spare so the 503 past the limit can be sent, and
/// refuses a `RELAY_HTTP_MAX_CONNECTIONS` that cannot fit. The limits are set for the child with
/// the shell's `ulimit` (soft only with `-S`; soft and hard together otherwise).
extension EndToEndSuite {
    @Suite(.timeLimit(.minutes(10))) struct DescriptorLimitTests {
        /// `mustdo-relay serve --config …` under `ulimit ARGUMENTS`.
        private func serve(
            _ service: ServiceDirectory, ulimit: String, environment: [String: String] = [:], check: Bool = false
        )
            throws -> ChildProcess
        {
            let binary = ChildProcess.productsDirectory.appendingPathComponent("mustdo-relay").path
            return try ChildProcess(
                executable: try ChildProcess.tool("sh"),
                [
                    "-c", "ulimit \(ulimit) && exec \"$0\" serve --config \"$1\" \(check ? "--check-config" : "")",
                    binary,
                    service.configFile,
                ],
                environment: environment)
        }

        @Test func testServeRaisesTheSoftLimitToTheHardOne() async throws {
            let service = try await ServiceDirectory()
            defer { service.remove() }
            let relay = try serve(service, ulimit: "-S -n 256")
            let limit = try await relay.waitForOutput(matching: #"descriptor limit (\d+),"#, timeout: .seconds(30))
            #expect(Int(limit) == DescriptorLimit.attainable(), "\(relay.text)")
            _ = try await relay.waitForOutput(matching: #"(\"event\":\"http.connection_limit\")"#)
            relay.signal(SIGTERM)
            let relayStatus = try await relay.waitForExit()
            #expect(relayStatus == 0, "\(relay.text)")
        }

        @Test func testTheDefaultLimitIsLoweredToFitAndThe503PastItIsSent() async throws {
            let service = try await ServiceDirectory()
            defer { service.remove() }
            // 1,200 descriptors: a quarter (300) kept for the rest of the process, 900 for connections.
            let relay = try serve(service, ulimit: "-n 1200")
            let port = Int(
                try await relay.waitForOutput(
                    matching: #"listening on http://127\.0\.0\.1:(\d+)"#, timeout: .seconds(30)))!
            let line = try await relay.waitForOutput(matching: #"(connections: [^\n]*)"#)
            #expect(line.contains("at most 900 (the default 20000 lowered to fit)"), "\(line)")
            #expect(line.contains("descriptor limit 1200, 300 kept"), "\(line)")
            _ = try await relay.waitForOutput(matching: #"(\"event\":\"http.max_connections_lowered\",\"count\":900)"#)

            // 900 connections from four addresses (225 each, under the per-address cap of 256), each with
            // a request answered so it is kept alive (60 s) rather than closed for an unfinished head (10 s)…
            var held: [LoopbackConnection] = []
            let request = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
            for index in 0..<900 {
                let connection = try LoopbackConnection(port: port, source: "127.0.0.\(2 + index % 4)")
                try connection.send(request)
                held.append(connection)
            }
            for connection in held {
                #expect(String(decoding: try connection.receive(), as: UTF8.self).hasPrefix("HTTP/1.1 200"))
            }
            // …and the next one is told to come back, not dropped for want of a descriptor.
            let extra = try LoopbackConnection(port: port, source: "127.0.0.6", receiveTimeout: 10)
            let answer = String(decoding: try extra.receiveToEnd(), as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 503 Service Unavailable"), "\(answer)")
            #expect(answer.contains("Retry-After: 1"), "\(answer)")
            held.removeAll()
            relay.signal(SIGTERM)
            let relayStatus = try await relay.waitForExit(timeout: .seconds(40))
            #expect(relayStatus == 0, "\(relay.text)")
        }

        @Test func testAConfiguredLimitThatCannotFitIsRefusedWithWhatToDo() async throws {
            let service = try await ServiceDirectory(extra: ["RELAY_HTTP_MAX_CONNECTIONS": "5000"])
            defer { service.remove() }
            let relay = try serve(service, ulimit: "-n 1200")
            let relayStatus = try await relay.waitForExit(timeout: .seconds(30))
            #expect(relayStatus == 1, "\(relay.text)")
            #expect(relay.text.contains("RELAY_HTTP_MAX_CONNECTIONS: 5000 connections do not fit"), "\(relay.text)")
            #expect(relay.text.contains("set it to at most 900"), "\(relay.text)")
            #expect(relay.text.contains("LimitNOFILE="), "\(relay.text)")

            let check = try serve(service, ulimit: "-n 1200", check: true)
            let checkStatus = try await check.waitForExit(timeout: .seconds(30))
            #expect(checkStatus == 1, "\(check.text)")
            #expect(check.text.contains("RELAY_HTTP_MAX_CONNECTIONS: 5000 connections do not fit"), "\(check.text)")

            let fits = try serve(service, ulimit: "-n 8000", check: true)
            let fitsStatus = try await fits.waitForExit(timeout: .seconds(30))
            #expect(fitsStatus == 0, "\(fits.text)")
        }
    }
}
