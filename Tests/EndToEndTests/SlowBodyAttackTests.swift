import Foundation
import RelayHTTP
import RelayJSON
import RelayTestSupport
import Testing

extension EndToEndSuite {
    /// The slow-body attack of issue 12 against the real `mustdo-relay serve` with its defaults:
    /// 20,000 connections at once from eight loopback addresses (127.0.0.2–127.0.0.9), each sending
    /// `POST /token` with `Content-Length: 1000000` and then one byte every 3 s, reconnecting whenever
    /// it is answered. Meanwhile a person's client on 127.0.0.1 asks `/healthz` and makes a real tool
    /// call (a grant from the real OAuth flow, CloudKit played by the emulator), each on a new
    /// connection, as a new visitor would, and every answer must come within 1 s.
    ///
    /// What holds the attack off, and what makes this test fail if it goes: the per-address cap (the
    /// relay holds at most 8 × 256 of the attacker's connections and answers the rest 503 at accept;
    /// without it the attacker fills `maxConnections` and the person gets 503), and the body deadlines
    /// (the minimum rate cuts each held connection with 408 about 10 s after its head; without them
    /// the attacker's connections are never answered: `stuck` below).
    ///
    /// The attackers are two Python processes of 10,000 sockets each (the descriptor limit here may be
    /// 20,000 per process, which the test process could not hold besides everything else); each raises
    /// its own limit. A refused socket retries after 15–30 s: the test is about slow connections holding
    /// the relay, not about a flood of connection attempts at line rate, which no server-side cap stops.
    @Suite(.timeLimit(.minutes(10))) struct SlowBodyAttackTests {
        static let sources = (2...9).map { "127.0.0.\($0)" }
        static let perAddress = 256

        @Test func testTwentyThousandSlowBodiesCannotKeepAPersonOut() async throws {
            try DescriptorLimit.raiseSoftLimit()
            let relay = try await ServedRelay()
            var finished = false
            defer { if !finished { Task { [relay] in await relay.finish() } } }
            let driver = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let tokens = try await driver.connect(appleID: "alice@example.com")
            let person = Person(port: relay.port, token: tokens.access)
            #expect(try person.healthz().status == 200)
            #expect(try person.toolCall().status == 200)

            let python = try ChildProcess.tool("python3")
            let script = PythonScript.repository.appendingPathComponent("Tests/EndToEndTests/e2e/slow_bodies.py").path
            let attackers = try [Self.sources[0..<4], Self.sources[4..<8]].map { sources in
                try ChildProcess(
                    executable: python,
                    [
                        script, "--port", String(relay.port), "--sources", sources.joined(separator: ","),
                        "--connections", "10000", "--duration", "30", "--interval", "3", "--ramp", "3", "--max-held",
                        "20",
                    ])
            }
            for attacker in attackers {
                _ = try await attacker.waitForOutput(matching: "(ready)", timeout: .seconds(30))
            }

            var probes: [Person.Answer] = []
            var mostOpen = 0
            while attackers.contains(where: \.isRunning) {
                probes.append(try person.healthz())
                probes.append(try person.toolCall())
                mostOpen = max(mostOpen, try openConnections(relay))
                try await Task.sleep(for: .milliseconds(300))
            }
            var reports: [JSONValue] = []
            for attacker in attackers {
                _ = try await attacker.waitForExit(timeout: .seconds(30))
                let line = attacker.text.split(separator: "\n").last { $0.hasPrefix("{") }
                reports.append(try #require(line.flatMap { try? JSONValue(parsing: String($0)) }, "\(attacker.text)"))
            }

            // The person was served throughout.
            #expect(probes.count > 30, "too few probes during the attack")
            for probe in probes {
                #expect(probe.status == 200, "\(probe.what) during the attack: \(probe.status) \(probe.detail)")
                #expect(probe.seconds < 1, "\(probe.what) took \(probe.seconds) s during the attack")
            }
            // The attack was what it claims: 20,000 sockets at once, most refused at accept, the held ones cut.
            func total(_ path: (JSONValue) -> Int?) -> Int { reports.map { path($0) ?? 0 }.reduce(0, +) }
            #expect(total { $0["attempts"]?.intValue } >= 20_000)
            #expect(total { $0["answers"]?["503"]?.intValue } > 10_000, "\(reports)")
            #expect(
                total { $0["answers"]?["408"]?.intValue } >= Self.sources.count * Self.perAddress,
                "every held connection is cut with 408 at least once in 30 s: \(reports)")
            #expect(total { $0["stuck"]?.intValue } == 0, "connections held without an answer: \(reports)")
            #expect(total { $0["closed_without_answer"]?.intValue } == 0, "\(reports)")
            for report in reports {
                #expect(report["max_held_seconds"]?.doubleValue ?? 99 <= 20, "\(report)")
            }
            #expect(mostOpen <= Self.sources.count * Self.perAddress + 8, "the relay held more than the cap allows")
            let metrics = try relay.metrics()
            #expect(metrics.contains(#"relay_http_refused_connections_total{reason="per_address"}"#), "\(metrics)")
            #expect(metrics.contains(#"relay_http_request_timeouts_total{limit="body_rate"}"#), "\(metrics)")
            #expect(!metrics.contains(#"reason="capacity""#), "the connection limit was reached")
            #expect(!metrics.contains(#"reason="descriptors""#), "the relay ran out of descriptors")

            finished = true
            await relay.finish()
        }

        private func openConnections(_ relay: ServedRelay) throws -> Int {
            let line = try relay.metrics().split(separator: "\n").first { $0.hasPrefix("relay_http_open_connections ") }
            return Int(Double(line?.split(separator: " ").last ?? "") ?? 0)
        }
    }
}

/// A person's client: every request on a new connection from 127.0.0.1, timed.
private struct Person {
    let port: Int
    let token: String

    struct Answer {
        var what: String
        var status: Int
        var seconds: Double
        var detail: String
    }

    func healthz() throws -> Answer {
        try exchange("/healthz", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n") {
            $0 == "ok"
        }
    }

    /// `get_me`: a real tool call, which asks the emulator who the person is.
    func toolCall() throws -> Answer {
        let body = #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_me","arguments":{}}}"#
        let head =
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\n"
            + "Accept: application/json, text/event-stream\r\nAuthorization: Bearer \(token)\r\n"
            + "MCP-Protocol-Version: 2025-11-25\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
        return try exchange("tools/call get_me", head + body) { text in
            guard let reply = try? JSONValue(parsing: text) else { return false }
            return reply["result"]?["structuredContent"] != nil && reply["result"]?["isError"]?.boolValue != true
        }
    }

    private func exchange(_ what: String, _ request: String, accept: (String) -> Bool) throws -> Answer {
        let started = Date()
        let connection = try LoopbackConnection(port: port, receiveTimeout: 10)
        try connection.send(Array(request.utf8))
        let text = String(decoding: (try? connection.receiveToEnd()) ?? [], as: UTF8.self)
        let seconds = Date().timeIntervalSince(started)
        let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
        let body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
        return Answer(
            what: what, status: status == 200 && !accept(body) ? -200 : status, seconds: seconds,
            detail: String(body.prefix(300)))
    }
}
