import Foundation
import RelayJSON
import Testing

@testable import RelayService

/// The logger through a real file descriptor: every line arrives whole, in JSON, with the fixed key
/// order, from many threads at once; nothing after `close()`.
@Suite struct LoggerTests {
    private func withLogFile(_ body: (Int32) throws -> Void) throws -> [String] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("logger-\(UUID().uuidString)").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        defer {
            close(fd)
            try? FileManager.default.removeItem(atPath: path)
        }
        try body(fd)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.isEmpty || text.hasSuffix("\n"))
        return text.split(separator: "\n").map(String.init)
    }

    @Test func linesFromManyThreadsArriveWholeAndInOrderOfKeys() async throws {
        let lines = try withLogFile { fd in
            let logger = Logger(minimumLevel: .info, fd: fd, budget: nil)
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                for index in 0..<500 {
                    var event = LogEvent(.info, "http.request")
                    event.requestID = RequestID.random()
                    event.route = StaticOrRoute(name: "/mcp")
                    event.status = 200 + thread
                    event.count = index
                    logger.log(event)
                    logger.log(LogEvent(.debug, "below.minimum"))
                }
            }
            logger.close()
            logger.log(LogEvent(.error, "after.close"))
            #expect(logger.droppedLines == 1)
        }
        #expect(lines.count == 8 * 500)
        var seen = Set<String>()
        for line in lines {
            let value = try JSONValue(parsing: Array(line.utf8))
            guard case .object(let object) = value else {
                Issue.record("not an object: \(line)")
                continue
            }
            #expect(object.members.map(\.key) == ["time", "level", "event", "request_id", "route", "status", "count"])
            #expect(value["event"]?.stringValue == "http.request")
            #expect(value["level"]?.stringValue == "info")
            seen.insert("\(value["status"]!.intValue!)-\(value["count"]!.intValue!)")
        }
        #expect(seen.count == 8 * 500, "every event exactly once")
    }

    @Test func aLineIsWrittenSoonWithoutClose() async throws {
        let lines = try withLogFile { fd in
            let logger = Logger(minimumLevel: .info, fd: fd)
            logger.log(LogEvent(.warning, "store.slow"))
            // The writer lingers a few milliseconds after each write; a lone line must not wait for more.
            var size = 0
            for _ in 0..<200 where size == 0 {
                usleep(10_000)
                size = Int(lseek(fd, 0, SEEK_CUR))
            }
            #expect(size > 0)
            logger.close()
        }
        #expect(lines.count == 1)
    }

    @Test func aBudgetWritesEachKindUpToItsShareAndSummarisesTheRest() async throws {
        let budget = LogBudget(window: .seconds(3600), linesPerKind: 5, linesPerWindow: 12, maxKinds: 3)
        var logger: Logger?
        let lines = try withLogFile { fd in
            let log = Logger(minimumLevel: .info, fd: fd, budget: budget)
            logger = log
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for status in [401, 404, 405, 406, 415] {
                    for _ in 0..<100 {
                        var event = LogEvent(.info, "http.request")
                        event.requestID = RequestID.random()
                        event.route = StaticOrRoute(name: thread % 2 == 0 ? "/mcp" : "/token")
                        event.status = status
                        log.log(event)
                    }
                }
            }
            log.log(LogEvent(.debug, "below.minimum"))
            log.close()
        }
        let events = try lines.map { try JSONValue(parsing: Array($0.utf8)) }
        let full = events.filter { $0["suppressed"] == nil && $0["event"] == "http.request" }
        let summaries = events.filter { $0["suppressed"] != nil }
        #expect(full.count == budget.linesPerWindow)
        #expect(full.allSatisfy { $0["request_id"] != nil })
        #expect(summaries.allSatisfy { $0["request_id"] == nil })
        #expect(lines.count <= budget.maxLinesPerWindow)
        let counted = summaries.reduce(0) { $0 + ($1["suppressed"]?.intValue ?? 0) }
        #expect(full.count + counted == 4 * 5 * 100, "every line is written or counted, once")
        #expect(logger?.suppressedLines == counted)
        // Three kinds fit in the window's table; the seven others are counted in one overflow line.
        #expect(summaries.filter { $0["event"] == "log.suppressed" }.count == 1)
        var perKind: [String: Int] = [:]
        for event in full { perKind["\(event["route"]!)\(event["status"]!)", default: 0] += 1 }
        #expect(perKind.values.allSatisfy { $0 <= budget.linesPerKind })
    }

    @Test func aWindowsSummaryIsWrittenWhenTheWindowEndsEvenIfNothingElseIsLogged() async throws {
        let lines = try withLogFile { fd in
            let logger = Logger(
                minimumLevel: .info, fd: fd, budget: LogBudget(window: .seconds(1), linesPerKind: 2, linesPerWindow: 10)
            )
            for _ in 0..<50 { logger.log(LogEvent(.warning, "store.slow")) }
            var summary = false
            for _ in 0..<400 where !summary {
                usleep(10_000)
                let text = (try? String(contentsOfFile: "/proc/self/fd/\(fd)", encoding: .utf8)) ?? ""
                summary = text.contains(#""suppressed":48"#)
            }
            #expect(summary, "no summary line within 4 s of a 1 s window")
            logger.close()
        }
        #expect(lines.count == 3)
    }

    @Test func debugWritesEveryLine() async throws {
        let lines = try withLogFile { fd in
            let logger = Logger(minimumLevel: .debug, fd: fd, budget: LogBudget(linesPerKind: 1, linesPerWindow: 1))
            #expect(logger.budget == nil)
            for _ in 0..<500 { logger.log(LogEvent(.info, "http.request")) }
            logger.close()
        }
        #expect(lines.count == 500)
    }

    @Test func timestampsAreRFC3339UTCWithMilliseconds() throws {
        let stamp = InlineTimestamp(year: 2026, month: 1, day: 2, hour: 3, minute: 4, second: 5, millisecond: 6)
        #expect(stamp.description == "2026-01-02T03:04:05.006Z")
        let late = InlineTimestamp(year: 1999, month: 12, day: 31, hour: 23, minute: 59, second: 59, millisecond: 999)
        #expect(late.description == "1999-12-31T23:59:59.999Z")

        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let before = Date()
        let text = Logger.timestamp().description
        let parsed = try #require(formatter.date(from: text), "\(text)")
        #expect(abs(parsed.timeIntervalSince(before)) < 2)
        #expect(text.count == 24 && text.hasSuffix("Z"))
    }
}
