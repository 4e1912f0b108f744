import Foundation
import RelayJSON
import RelayTestSupport
import Testing

@testable import RelayService

extension EndToEndSuite {
    /// A flood of unauthenticated requests against `mustdo-relay serve` (a real process, its stderr the
    /// log): the log stays within `LogBudget` while the metrics count every request, and the summary
    /// lines account for every request not logged in full.
    @Suite(.timeLimit(.minutes(10))) struct LogVolumeTests {
        @Test func testAFloodOfRefusedRequestsWritesABoundedLogAndTheMetricsCountThemAll() async throws {
            let relay = try await ServedRelay()
            var finished = false
            defer { if !finished { Task { [relay] in await relay.finish() } } }
            let flood = 4000
            let connections = 8
            let started = Date()
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<connections {
                    group.addTask { [port = relay.port] in
                        try Self.refusedRequests(port: port, count: flood / connections)
                    }
                }
                var answered = 0
                for try await count in group { answered += count }
                #expect(answered == flood)
            }
            let metric = try await relay.waitForMetric(
                #"relay_http_requests_total{route="/mcp",status="401"} \#(flood)"#)
            #expect(!metric.isEmpty)
            try await relay.stopRelay()
            let elapsed = Date().timeIntervalSince(started)

            let budget = LogBudget.standard
            let windows = Int(elapsed / Double(budget.windowSeconds)) + 2
            let lines = relay.relay.text.split(separator: "\n").filter { $0.hasPrefix("{\"time\"") }
            var full = 0
            var summarised = 0
            for line in lines {
                let json = try JSONValue(parsing: Array(line.utf8))
                guard json["event"] == "http.request", json["route"] == "/mcp", json["status"] == 401 else { continue }
                if let suppressed = json["suppressed"]?.intValue {
                    summarised += suppressed
                    #expect(json["request_id"] == nil, "a summary line carries no request ID")
                } else {
                    full += 1
                }
            }
            #expect(full + summarised == flood, "every refused request is a full line or counted in a summary")
            #expect(full <= budget.linesPerKind * windows, "\(full) full lines in \(elapsed) s")
            #expect(summarised > 0)
            #expect(lines.count <= budget.maxLinesPerWindow * windows, "\(lines.count) log lines for \(flood) requests")
            finished = true
            await relay.finish()
        }

        struct ClosedEarly: Error { let answered: Int }

        /// Sends `count` unauthenticated POSTs to `/mcp` on one keep-alive connection, pipelined 50 at a
        /// time, and returns how many 401s came back.
        private static func refusedRequests(port: Int, count: Int) throws -> Int {
            let connection = try LoopbackConnection(port: port, receiveTimeout: 30)
            let request = Array(
                ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\n"
                    + "Accept: application/json\r\nContent-Length: 2\r\n\r\n{}").utf8)
            let marker = Array("HTTP/1.1 401 ".utf8)
            var answered = 0
            var pending: [UInt8] = []
            while answered < count {
                let batch = min(50, count - answered)
                try connection.send(Array([[UInt8]](repeating: request, count: batch).joined()))
                var seen = 0
                while seen < batch {
                    let chunk = try connection.receive()
                    guard !chunk.isEmpty else { throw ClosedEarly(answered: answered + seen) }
                    pending += chunk
                    while let range = pending.firstRange(of: marker) {
                        seen += 1
                        pending.removeSubrange(..<range.upperBound)
                    }
                }
                answered += seen
            }
            return answered
        }
    }
}
