import RelayJSON
import Testing

@testable import RelayTodo

@Suite struct RepeatRuleParsingTests {
    func parse(_ text: String) throws(TodoError) -> RepeatRule? { try RepeatRule.parse(json(text)) }

    @Test func theDocumentedExamples() throws {
        #expect(try parse(#"{"kind":"daily"}"#) == RepeatRule(kind: .daily))
        #expect(try parse(#"{"kind":"daily","interval":3}"#) == RepeatRule(kind: .daily, interval: 3))
        #expect(
            try parse(#"{"kind":"weekly","weekdays":[4,2,2]}"#)
                == RepeatRule(kind: .weekly, weekdays: [.monday, .wednesday]))
        #expect(try parse(#"{"kind":"weekly","interval":2}"#) == RepeatRule(kind: .weekly, interval: 2))
        #expect(try parse(#"{"kind":"monthly"}"#) == RepeatRule(kind: .monthly))
        #expect(
            try parse(#"{"kind":"monthly","monthly":{"mode":"weekdayOrdinal","ordinal":1,"weekday":2}}"#)
                == RepeatRule(kind: .monthly, monthly: .weekdayOrdinal(ordinal: 1, weekday: .monday)))
        #expect(
            try parse(#"{"kind":"monthly","monthly":{"mode":"weekdayOrdinal","ordinal":-1,"weekday":6}}"#)
                == RepeatRule(kind: .monthly, monthly: .weekdayOrdinal(ordinal: -1, weekday: .friday)))
        #expect(try parse(#"{"kind":"monthly","monthly":{}}"#) == RepeatRule(kind: .monthly))
        #expect(try parse(#"{"kind":"yearly"}"#) == RepeatRule(kind: .yearly))
        #expect(
            try parse(#"{"kind":"daily","end":{"kind":"count","count":10}}"#)
                == RepeatRule(kind: .daily, end: .count(10)))
        #expect(
            try parse(#"{"kind":"weekly","weekdays":[2],"end":{"kind":"until","until":"2026-12-31"}}"#)
                == RepeatRule(kind: .weekly, weekdays: [.monday], end: .until(day("2026-12-31"))))
        #expect(
            try parse(#"{"kind":"daily","interval":2.0,"end":{"kind":"never"},"monthly":null}"#)
                == RepeatRule(kind: .daily, interval: 2))
    }

    @Test func noneAndNullMeanNoRepeat() throws {
        #expect(try parse("null") == nil)
        #expect(try parse(#"{"kind":"none"}"#) == nil)
        #expect(try parse(#"{"kind":"none","interval":1}"#) == nil)
    }

    @Test func boundaries() throws {
        #expect(try parse(#"{"kind":"daily","interval":1}"#)?.interval == 1)
        #expect(try parse(#"{"kind":"daily","interval":99}"#)?.interval == 99)
        #expect(try parse(#"{"kind":"daily","end":{"kind":"count","count":1}}"#)?.end == .count(1))
        #expect(try parse(#"{"kind":"daily","end":{"kind":"count","count":999}}"#)?.end == .count(999))
        #expect(try parse(#"{"kind":"weekly","weekdays":[1,7]}"#)?.weekdays == [.sunday, .saturday])
        for ordinal in [1, 2, 3, 4, 5, -1] {
            #expect(
                try parse(#"{"kind":"monthly","monthly":{"mode":"weekdayOrdinal","ordinal":\#(ordinal),"weekday":1}}"#)
                    != nil)
        }
    }

    @Test(arguments: [
        (#"[]"#, "repeat"),
        (#""daily""#, "repeat"),
        (#"{}"#, "repeat.kind"),
        (#"{"kind":"hourly"}"#, "repeat.kind"),
        (#"{"kind":3}"#, "repeat.kind"),
        (#"{"kind":"daily","every":2}"#, "repeat.every"),
        (#"{"kind":"daily","interval":0}"#, "repeat.interval"),
        (#"{"kind":"daily","interval":100}"#, "repeat.interval"),
        (#"{"kind":"daily","interval":1.5}"#, "repeat.interval"),
        (#"{"kind":"daily","interval":"2"}"#, "repeat.interval"),
        (#"{"kind":"none","interval":0}"#, "repeat.interval"),
        (#"{"kind":"weekly","weekdays":2}"#, "repeat.weekdays"),
        (#"{"kind":"weekly","weekdays":[0]}"#, "repeat.weekdays[0]"),
        (#"{"kind":"weekly","weekdays":[2,8]}"#, "repeat.weekdays[1]"),
        (#"{"kind":"weekly","weekdays":["Mon"]}"#, "repeat.weekdays[0]"),
        (#"{"kind":"daily","weekdays":[2]}"#, "repeat.weekdays"),
        (#"{"kind":"weekly","monthly":{"mode":"dayOfMonth"}}"#, "repeat.monthly"),
        (#"{"kind":"monthly","monthly":"first"}"#, "repeat.monthly"),
        (#"{"kind":"monthly","monthly":{"mode":"nth"}}"#, "repeat.monthly.mode"),
        (#"{"kind":"monthly","monthly":{"mode":"weekdayOrdinal","weekday":2}}"#, "repeat.monthly.ordinal"),
        (#"{"kind":"monthly","monthly":{"mode":"weekdayOrdinal","ordinal":0,"weekday":2}}"#, "repeat.monthly.ordinal"),
        (#"{"kind":"monthly","monthly":{"mode":"weekdayOrdinal","ordinal":6,"weekday":2}}"#, "repeat.monthly.ordinal"),
        (#"{"kind":"monthly","monthly":{"mode":"weekdayOrdinal","ordinal":-2,"weekday":2}}"#, "repeat.monthly.ordinal"),
        (#"{"kind":"monthly","monthly":{"mode":"weekdayOrdinal","ordinal":1}}"#, "repeat.monthly.weekday"),
        (#"{"kind":"monthly","monthly":{"mode":"weekdayOrdinal","ordinal":1,"weekday":8}}"#, "repeat.monthly.weekday"),
        (#"{"kind":"monthly","monthly":{"ordinal":1,"weekday":2}}"#, "repeat.monthly.ordinal"),
        (#"{"kind":"monthly","monthly":{"mode":"dayOfMonth","day":5}}"#, "repeat.monthly.day"),
        (#"{"kind":"daily","end":"never"}"#, "repeat.end"),
        (#"{"kind":"daily","end":{}}"#, "repeat.end.kind"),
        (#"{"kind":"daily","end":{"kind":"forever"}}"#, "repeat.end.kind"),
        (#"{"kind":"daily","end":{"kind":"until"}}"#, "repeat.end.until"),
        (#"{"kind":"daily","end":{"kind":"until","until":"2026-13-01"}}"#, "repeat.end.until"),
        (#"{"kind":"daily","end":{"kind":"until","until":"2026-12-31T00:00"}}"#, "repeat.end.until"),
        (#"{"kind":"daily","end":{"kind":"until","until":"2026-12-31","count":3}}"#, "repeat.end.count"),
        (#"{"kind":"daily","end":{"kind":"count"}}"#, "repeat.end.count"),
        (#"{"kind":"daily","end":{"kind":"count","count":0}}"#, "repeat.end.count"),
        (#"{"kind":"daily","end":{"kind":"count","count":1000}}"#, "repeat.end.count"),
        (#"{"kind":"daily","end":{"kind":"count","count":5,"until":"2026-12-31"}}"#, "repeat.end.until"),
        (#"{"kind":"daily","end":{"kind":"never","count":5}}"#, "repeat.end.count"),
    ])
    func invalidRulesNameTheField(text: String, field: String) {
        expectInvalid(field) { () throws(TodoError) in try parse(text) }
    }
}
