import Foundation
import Testing

@testable import RelayTodo

@Suite struct TimeInputTests {
    func parse(_ text: String) throws(TodoError) -> TimeInput { try TimeInput(parsing: text, field: "due") }

    @Test func acceptsTheThreeForms() throws {
        #expect(try parse("2026-03-09") == .date(day("2026-03-09")))
        #expect(try parse("2026-03-09T07:30") == .wallClock(day("2026-03-09"), clock("07:30")))
        #expect(try parse("2026-03-09T07:30Z") == .instant(instant("2026-03-09T07:30:00Z")))
        #expect(try parse("2026-03-09T07:30:15Z") == .instant(instant("2026-03-09T07:30:15Z")))
        #expect(try parse("2026-03-09T07:30:00-05:00") == .instant(instant("2026-03-09T12:30:00Z")))
        #expect(try parse("2026-03-09T07:30+0900") == .instant(instant("2026-03-08T22:30:00Z")))
        #expect(try parse("2026-03-09T07:30+09") == .instant(instant("2026-03-08T22:30:00Z")))
        #expect(try parse("2026-03-09t07:30:00z") == .instant(instant("2026-03-09T07:30:00Z")))
        #expect(try parse("2026-03-09T05:30+05:30") == .instant(instant("2026-03-09T00:00:00Z")))
    }

    @Test func keepsFractionsOfASecond() throws {
        guard case .instant(let date) = try parse("2026-03-09T07:30:15.250Z") else {
            Issue.record("not an instant")
            return
        }
        #expect(abs(date.timeIntervalSince(instant("2026-03-09T07:30:15Z")) - 0.25) < 0.0001)
        guard case .instant(let nanos) = try parse("2026-03-09T07:30:15.123456789+01:00") else {
            Issue.record("not an instant")
            return
        }
        #expect(abs(nanos.timeIntervalSince(instant("2026-03-09T06:30:15Z")) - 0.123456789) < 0.00001)
    }

    @Test func rejectsEverythingElseNamingTheField() {
        let bad = [
            "", "tomorrow", "9:00", "07:30", "2026-03-09 07:30", "2026-03-09T7:30", "2026-03-09T07:30:00",
            "2026-03-09T07:30:00.5", "2026-03-09T24:00", "2026-03-09T07:60Z", "2026-02-30", "2026-02-30T09:00",
            "2026-03-09T07:30:60Z", "2026-03-09T07:30+24:00", "2026-03-09T07:30+09:60", "2026-03-09T07:30+9",
            "2026-03-09T07:30:00.Z", "2026-03-09T07:30:00.1234567890Z", "2026-03-09T07:30ZZ", "20260309",
            "2026-03-09T07:30:00+09:00[Asia/Tokyo]", "1773041400",
        ]
        for text in bad {
            let error = expectError { () throws(TodoError) in try TimeInput(parsing: text, field: "until") }
            #expect(error?.code == .invalidArgument, "\(text)")
            #expect(error?.field == "until", "\(text)")
        }
    }
}
