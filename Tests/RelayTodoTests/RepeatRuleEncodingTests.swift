import RelayJSON
import Testing

@testable import RelayTodo

@Suite struct RepeatRuleEncodingTests {
    @Test func canonicalRecordStrings() {
        #expect(
            RepeatRule(kind: .weekly, interval: 2, weekdays: [.wednesday, .monday]).recordValue
                == #"{"kind":"weekly","interval":2,"weekdays":[2,4],"end":{"kind":"never"}}"#)
        #expect(
            RepeatRule(kind: .monthly, monthly: .weekdayOrdinal(ordinal: -1, weekday: .friday), end: .count(5))
                .recordValue
                == #"{"kind":"monthly","interval":1,"weekdays":[],"monthly":{"mode":"weekdayOrdinal","ordinal":-1,"weekday":6},"end":{"kind":"count","count":5}}"#
        )
        #expect(
            RepeatRule(kind: .monthly).recordValue
                == #"{"kind":"monthly","interval":1,"weekdays":[],"monthly":{"mode":"dayOfMonth"},"end":{"kind":"never"}}"#
        )
        #expect(
            RepeatRule(kind: .yearly, end: .until(day("2030-03-03"))).recordValue
                == #"{"kind":"yearly","interval":1,"weekdays":[],"end":{"kind":"until","until":"2030-03-03"}}"#)
    }

    @Test func recordStringsRoundTrip() throws {
        let rules = [
            RepeatRule(kind: .daily, interval: 3, end: .count(10)),
            RepeatRule(kind: .weekly, weekdays: [.sunday, .saturday], end: .until(day("2026-12-31"))),
            RepeatRule(kind: .monthly, interval: 2, monthly: .weekdayOrdinal(ordinal: 2, weekday: .tuesday)),
            RepeatRule(kind: .yearly, interval: 4),
        ]
        for rule in rules {
            #expect(RepeatRule(recordValue: rule.recordValue) == rule)
            #expect(try RepeatRule.parse(rule.json) == rule)
        }
    }

    @Test func recordStringsFromTheAppAreReadLeniently() {
        // Out-of-range or unknown members take defaults rather than turning the to-do into a one-off.
        #expect(RepeatRule(recordValue: #"{"kind":"daily","interval":0,"colour":"red"}"#) == RepeatRule(kind: .daily))
        #expect(
            RepeatRule(recordValue: #"{"kind":"weekly","weekdays":[2,9]}"#)
                == RepeatRule(kind: .weekly, weekdays: [.monday]))
        #expect(
            RepeatRule(recordValue: #"{"kind":"monthly","monthly":{"mode":"weekdayOrdinal","ordinal":9,"weekday":2}}"#)
                == RepeatRule(kind: .monthly))
        #expect(
            RepeatRule(recordValue: #"{"kind":"daily","end":{"kind":"count","count":5000}}"#)
                == RepeatRule(kind: .daily))
        #expect(
            RepeatRule(recordValue: #"{"kind":"daily","end":{"kind":"until","until":"2026-12-31","x":1}}"#)
                == RepeatRule(kind: .daily, end: .until(day("2026-12-31"))))
        #expect(RepeatRule(recordValue: "") == nil)
        #expect(RepeatRule(recordValue: "weekly") == nil)
        #expect(RepeatRule(recordValue: #"{"kind":"none"}"#) == nil)
        #expect(RepeatRule(recordValue: #"{"kind":"fortnightly"}"#) == nil)
    }
}
