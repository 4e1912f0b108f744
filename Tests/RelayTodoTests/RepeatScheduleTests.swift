import Foundation
import Testing

@testable import RelayTodo

/// The days each rule rings on, checked against dates worked out by hand from a calendar.
@Suite struct RepeatScheduleTests {
    func schedule(_ rule: RepeatRule, _ start: String) -> RepeatSchedule {
        RepeatSchedule(rule: rule, start: day(start))
    }

    /// Every occurrence from `from` to `to`, by asking `contains` of each day.
    func days(_ schedule: RepeatSchedule, _ from: String, _ to: String) -> [String] {
        var found: [String] = []
        var date = day(from)
        while date <= day(to) {
            if schedule.contains(date) { found.append(date.description) }
            date = date.adding(days: 1)
        }
        return found
    }

    /// `next` walked from the day before the start agrees with `contains`.
    func walk(_ schedule: RepeatSchedule, until to: String) -> [String] {
        var found: [String] = []
        var date = schedule.start.adding(days: -1)
        while let next = schedule.next(after: date), next <= day(to) {
            found.append(next.description)
            date = next
        }
        return found
    }

    @Test func dailyEveryThirdDay() {
        let every3 = schedule(RepeatRule(kind: .daily, interval: 3), "2026-03-09")
        #expect(days(every3, "2026-03-01", "2026-03-20") == ["2026-03-09", "2026-03-12", "2026-03-15", "2026-03-18"])
        #expect(every3.previous(before: day("2026-03-14")) == day("2026-03-12"))
        #expect(every3.next(after: day("2026-03-12")) == day("2026-03-15"))
        #expect(every3.previous(before: day("2026-03-09")) == nil)
        #expect(every3.last == nil)
    }

    @Test func everyOtherWeekCountsSundayToSaturdayWeeksFromTheStart() {
        // 2026-03-09 is a Monday.
        let rule = RepeatRule(kind: .weekly, interval: 2, weekdays: [.monday, .wednesday])
        let plan = schedule(rule, "2026-03-09")
        let expected = ["2026-03-09", "2026-03-11", "2026-03-23", "2026-03-25", "2026-04-06", "2026-04-08"]
        #expect(days(plan, "2026-03-01", "2026-04-10") == expected)
        #expect(walk(plan, until: "2026-04-10") == expected)
        #expect(plan.next(after: day("2026-03-11")) == day("2026-03-23"))
        #expect(plan.previous(before: day("2026-03-23")) == day("2026-03-11"))
        // Saturday 2026-03-14 and Sunday 2026-03-15 are in different weeks: week 0 ends on the Saturday.
        let weekend = schedule(RepeatRule(kind: .weekly, interval: 2, weekdays: [.sunday, .saturday]), "2026-03-14")
        #expect(days(weekend, "2026-03-08", "2026-03-29") == ["2026-03-14", "2026-03-22", "2026-03-28"])
    }

    @Test func weeklyWithoutWeekdaysUsesTheStartsWeekday() {
        let tuesdays = schedule(RepeatRule(kind: .weekly), "2026-03-10")
        #expect(days(tuesdays, "2026-03-01", "2026-03-31") == ["2026-03-10", "2026-03-17", "2026-03-24", "2026-03-31"])
    }

    /// A record the app wrote may start on a day the rule does not list: the start still counts, once.
    @Test func anUnalignedStartIsTheFirstOccurrence() {
        let rule = RepeatRule(kind: .weekly, weekdays: [.monday, .wednesday], end: .count(3))
        let plan = schedule(rule, "2026-03-10")
        #expect(days(plan, "2026-03-01", "2026-03-31") == ["2026-03-10", "2026-03-11", "2026-03-16"])
        #expect(!plan.contains(day("2026-03-09")))
        #expect(plan.last == day("2026-03-16"))
    }

    @Test func monthlyOnThe31stUsesTheLastDayOfShorterMonths() {
        let plan = schedule(RepeatRule(kind: .monthly), "2026-01-31")
        #expect(
            walk(plan, until: "2026-06-30") == [
                "2026-01-31", "2026-02-28", "2026-03-31", "2026-04-30", "2026-05-31", "2026-06-30",
            ])
        #expect(schedule(RepeatRule(kind: .monthly), "2028-01-30").next(after: day("2028-01-30")) == day("2028-02-29"))
        let everyOther = schedule(RepeatRule(kind: .monthly, interval: 2), "2026-01-31")
        #expect(walk(everyOther, until: "2026-06-30") == ["2026-01-31", "2026-03-31", "2026-05-31"])
    }

    @Test func theFifthMondayIsSkippedInMonthsWithoutOne() {
        // March 2026 has Mondays 2, 9, 16, 23, 30; April and May have four; June has 1, 8, 15, 22, 29.
        let rule = RepeatRule(kind: .monthly, monthly: .weekdayOrdinal(ordinal: 5, weekday: .monday))
        let plan = schedule(rule, "2026-03-30")
        #expect(plan.next(after: day("2026-03-30")) == day("2026-06-29"))
        #expect(plan.previous(before: day("2026-06-29")) == day("2026-03-30"))
        #expect(!plan.contains(day("2026-04-27")))
        #expect(walk(plan, until: "2026-12-31") == ["2026-03-30", "2026-06-29", "2026-08-31", "2026-11-30"])
    }

    @Test func lastAndFirstWeekdaysOfTheMonth() {
        let lastFriday = schedule(
            RepeatRule(kind: .monthly, monthly: .weekdayOrdinal(ordinal: -1, weekday: .friday)), "2026-01-30")
        #expect(walk(lastFriday, until: "2026-04-30") == ["2026-01-30", "2026-02-27", "2026-03-27", "2026-04-24"])
        let firstMonday = RepeatRule(kind: .monthly, monthly: .weekdayOrdinal(ordinal: 1, weekday: .monday))
        #expect(
            walk(schedule(firstMonday, "2026-03-02"), until: "2026-05-31") == [
                "2026-03-02", "2026-04-06", "2026-05-04",
            ])
    }

    @Test func the29thOfFebruaryIsThe28thInOtherYears() {
        let plan = schedule(RepeatRule(kind: .yearly), "2028-02-29")
        #expect(
            walk(plan, until: "2032-12-31") == ["2028-02-29", "2029-02-28", "2030-02-28", "2031-02-28", "2032-02-29"])
        let leapOnly = schedule(RepeatRule(kind: .yearly, interval: 4), "2096-02-29")
        // 2100 is not a leap year.
        #expect(walk(leapOnly, until: "2104-12-31") == ["2096-02-29", "2100-02-28", "2104-02-29"])
    }

    @Test func endsByDateAndByCount() {
        let until = schedule(RepeatRule(kind: .daily, interval: 2, end: .until(day("2026-03-08"))), "2026-03-01")
        #expect(days(until, "2026-02-01", "2026-04-01") == ["2026-03-01", "2026-03-03", "2026-03-05", "2026-03-07"])
        #expect(until.last == day("2026-03-07"))
        #expect(until.next(after: day("2026-03-07")) == nil)
        #expect(until.previous(before: day("9999-12-31")) == day("2026-03-07"))
        let count = schedule(RepeatRule(kind: .weekly, weekdays: [.tuesday, .thursday], end: .count(3)), "2026-03-03")
        #expect(days(count, "2026-03-01", "2026-04-01") == ["2026-03-03", "2026-03-05", "2026-03-10"])
        #expect(count.last == day("2026-03-10"))
        #expect(count.next(after: day("2026-03-10")) == nil)
        let once = schedule(RepeatRule(kind: .yearly, end: .count(1)), "2026-12-25")
        #expect(days(once, "2026-01-01", "2028-12-31") == ["2026-12-25"])
    }

    @Test func theCalendarEndsIn9999() {
        #expect(schedule(RepeatRule(kind: .yearly), "9998-06-01").next(after: day("9999-06-01")) == nil)
        #expect(schedule(RepeatRule(kind: .daily), "9999-12-30").next(after: day("9999-12-31")) == nil)
        #expect(schedule(RepeatRule(kind: .monthly), "9999-11-15").next(after: day("9999-12-15")) == nil)
        #expect(schedule(RepeatRule(kind: .weekly), "9999-12-27").next(after: day("9999-12-27")) == nil)
        let rare = RepeatRule(kind: .monthly, interval: 99, monthly: .weekdayOrdinal(ordinal: 5, weekday: .monday))
        _ = schedule(rare, "2026-03-30").next(after: day("2026-03-30"))
        #expect(
            schedule(RepeatRule(kind: .daily), "2026-01-01").previous(before: day("9999-12-31")) == day("9999-12-30"))
    }

    @Test func aNewFirstOccurrenceMovesToTheFirstListedDay() {
        let mondayWednesday = RepeatRule(kind: .weekly, weekdays: [.monday, .wednesday])
        #expect(RepeatSchedule.alignedStart(mondayWednesday, from: day("2026-03-10")) == day("2026-03-11"))
        #expect(RepeatSchedule.alignedStart(mondayWednesday, from: day("2026-03-09")) == day("2026-03-09"))
        #expect(RepeatSchedule.alignedStart(mondayWednesday, from: day("2026-03-12")) == day("2026-03-16"))
        let firstMonday = RepeatRule(kind: .monthly, monthly: .weekdayOrdinal(ordinal: 1, weekday: .monday))
        #expect(RepeatSchedule.alignedStart(firstMonday, from: day("2026-03-05")) == day("2026-04-06"))
        let fifthMonday = RepeatRule(kind: .monthly, monthly: .weekdayOrdinal(ordinal: 5, weekday: .monday))
        #expect(RepeatSchedule.alignedStart(fifthMonday, from: day("2026-04-01")) == day("2026-06-29"))
        for rule in [RepeatRule(kind: .daily), RepeatRule(kind: .weekly), RepeatRule(kind: .monthly)] {
            #expect(RepeatSchedule.alignedStart(rule, from: day("2026-03-10")) == day("2026-03-10"))
        }
    }

    /// Each occurrence rings at the first occurrence's wall-clock time in the to-do's zone, across DST.
    @Test func alarmsKeepTheWallClockTime() throws {
        var todo = repeating(rule: RepeatRule(kind: .daily), due: "2026-03-01T02:30:00-05:00")
        todo.timeZone = "America/New_York"
        let account = Account(timeZone: "Asia/Tokyo")
        #expect(todo.alarm(on: day("2026-03-07"), account: account) == instant("2026-03-07T02:30:00-05:00"))
        // 02:30 does not exist on the 8th: the first minute that does.
        #expect(todo.alarm(on: day("2026-03-08"), account: account) == instant("2026-03-08T03:00:00-04:00"))
        #expect(todo.alarm(on: day("2026-03-09"), account: account) == instant("2026-03-09T02:30:00-04:00"))
        var london = repeating(rule: RepeatRule(kind: .daily), due: "2026-10-20T01:30:00+01:00")
        london.timeZone = "Europe/London"
        // 01:30 happens twice on 25 October: the earlier one (BST).
        #expect(london.alarm(on: day("2026-10-25"), account: account) == instant("2026-10-25T01:30:00+01:00"))
        #expect(london.alarm(on: day("2026-10-26"), account: account) == instant("2026-10-26T01:30:00+00:00"))
        // The schedule starts on the due date in the to-do's zone, not the account's.
        let schedule = try #require(london.schedule(account: account))
        #expect(schedule.start == day("2026-10-20"))
    }
}
