import Foundation
import Testing

@testable import RelayTodo

@Suite struct AccountTests {
    let now = instant("2026-06-15T12:00:00Z")

    @Test func missingRecordMeansDefaults() {
        let account = Account.defaults
        #expect(account.rules.zoneName == "UTC")
        #expect(account.rules.defaultTime == clock("09:00"))
        #expect(account.quietHours == nil)
        #expect(account.locale == nil)
        #expect(account.canAddTodos(now: now))
    }

    @Test func malformedFieldsFallBackToDefaults() {
        let account = Account(locale: "", timeZone: "Not/AZone", defaultTime: "9:00")
        #expect(account.rules.zoneName == "UTC")
        #expect(account.rules.defaultTime == clock("09:00"))
        #expect(account.locale == nil)
        #expect(Account(locale: "ja_JP").prefersJapanese)
        #expect(!Account(locale: "en_US").prefersJapanese)
    }

    @Test func entitlementHint() {
        let day: TimeInterval = 86400
        // Trial not started: allowed.
        #expect(Account(subscribedUntil: now.addingTimeInterval(-day)).canAddTodos(now: now))
        // Trial running (day 29) / ended (day 30 exactly, day 31).
        #expect(Account(trialStartedAt: now.addingTimeInterval(-29 * day)).canAddTodos(now: now))
        #expect(!Account(trialStartedAt: now.addingTimeInterval(-30 * day)).canAddTodos(now: now))
        #expect(!Account(trialStartedAt: now.addingTimeInterval(-31 * day)).canAddTodos(now: now))
        // Subscription in the future / just lapsed, after the trial.
        let lapsedTrial = now.addingTimeInterval(-90 * day)
        #expect(Account(trialStartedAt: lapsedTrial, subscribedUntil: now.addingTimeInterval(60)).canAddTodos(now: now))
        #expect(!Account(trialStartedAt: lapsedTrial, subscribedUntil: now).canAddTodos(now: now))
        #expect(
            !Account(trialStartedAt: lapsedTrial, subscribedUntil: now.addingTimeInterval(-1)).canAddTodos(now: now))
        // The app's own hint.
        #expect(Account(trialStartedAt: lapsedTrial, canAddTodos: 1).canAddTodos(now: now))
        #expect(!Account(trialStartedAt: lapsedTrial, canAddTodos: 0).canAddTodos(now: now))
        // The device decides with StoreKit: an explicit hint wins over the dates either way.
        #expect(!Account(trialStartedAt: now, canAddTodos: 0).canAddTodos(now: now))
        #expect(!Account(subscribedUntil: now.addingTimeInterval(day), canAddTodos: 0).canAddTodos(now: now))
        #expect(!Account(canAddTodos: 0).canAddTodos(now: now))
        #expect(Account(canAddTodos: 1).canAddTodos(now: now))
        // Without a hint and without dates (a record without entitlement fields, or none at all): allowed.
        #expect(Account(timeZone: "Asia/Tokyo").canAddTodos(now: now))
    }

    @Test func onlyAddingIsGated() throws {
        let lapsed = Account(trialStartedAt: now.addingTimeInterval(-90 * 86400), canAddTodos: 0)
        #expect(!lapsed.canAddTodos(now: now))
        let later = now.addingTimeInterval(3600)
        _ = try UpdateTodo.apply(UpdateTodo.Request(id: "a", title: "t"), current: oneOff(), account: lapsed, now: now)
        _ = try CompleteTodo.apply(
            CompleteTodo.Request(id: "a"), current: oneOff(), existing: nil, account: lapsed, now: now)
        _ = try SnoozeTodo.apply(
            SnoozeTodo.Request(id: "a", until: .instant(later)), current: oneOff(), account: lapsed, now: now)
        _ = try DeleteTodo.apply(DeleteTodo.Request(id: "a"), current: oneOff(), now: now)
        let error = expectError { () throws(TodoError) in
            try AddTodo.apply(AddTodo.Request(title: "t"), account: lapsed, now: now, newID: "n")
        }
        #expect(error?.code == .paymentRequired)
    }
}

/// Issue 42, point 5: a `canAddTodos` other than 0/1 is not a verdict.
@Suite struct CanAddTodosHintTests {
    @Test(arguments: [2, -1, 7])
    func otherValuesAreIgnoredWithAWarning(value: Int) {
        let account = Account(timeZone: "UTC", canAddTodos: value)
        #expect(account.canAddTodosHint == nil)
        #expect(account.warnings.contains { $0.contains("canAddTodos as \(value)") && $0.contains("neither 0 nor 1") })
    }

    @Test func zeroAndOneAreTheAppsVerdict() {
        #expect(Account(timeZone: "UTC", canAddTodos: 0).canAddTodosHint == false)
        #expect(Account(timeZone: "UTC", canAddTodos: 1).canAddTodosHint == true)
        #expect(Account(timeZone: "UTC", canAddTodos: 1).warnings.isEmpty)
    }
}
