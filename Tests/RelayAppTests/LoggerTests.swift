import Foundation
import RelayJSON
import Testing

@testable import RelayApp

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
            let logger = Logger(minimumLevel: .info, fd: fd)
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
