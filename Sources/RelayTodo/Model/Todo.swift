import Foundation

/// A `Todo` record (record name: lowercase UUID). A to-do is one-off when `repeatRule` is nil.
package struct Todo: Sendable, Equatable {
    /// The record name.
    package var id: String
    /// 1–200 characters.
    package var title: String
    /// Up to 4000 characters.
    package var notes: String?
    /// When the alarm rings; for a repeating to-do the first occurrence.
    package var dueAt: Date?
    /// The IANA zone whose wall clock repeats follow (the Account zone when created by the relay).
    package var timeZone: String?
    /// The alarm sound; nil when the record has none or one this version does not know.
    package var sound: Sound?
    /// The repeat rule; nil = one-off.
    package var repeatRule: RepeatRule?
    /// pending, done or skipped (one-off items; repeating items keep their state per Occurrence).
    package var status: TodoStatus
    /// A one-off's alarm is postponed to this instant.
    package var snoozedUntil: Date?
    /// When a one-off was marked done.
    package var completedAt: Date?
    /// Soft delete: set = deleted; the app purges later.
    package var deletedAt: Date?
    /// Who created it.
    package var source: TodoSource
    /// When it was created.
    package var createdAt: Date?
    /// When any field last changed; decides merges.
    package var changedAt: Date?

    /// A to-do with every field given; optional ones default to nil, status to pending, source to app.
    package init(
        id: String, title: String, notes: String? = nil, dueAt: Date? = nil, timeZone: String? = nil,
        sound: Sound? = nil, repeatRule: RepeatRule? = nil, status: TodoStatus = .pending,
        snoozedUntil: Date? = nil, completedAt: Date? = nil, deletedAt: Date? = nil, source: TodoSource = .app,
        createdAt: Date? = nil, changedAt: Date? = nil
    ) {
        self.id = id
        self.title = title
        self.notes = notes
        self.dueAt = dueAt
        self.timeZone = timeZone
        self.sound = sound
        self.repeatRule = repeatRule
        self.status = status
        self.snoozedUntil = snoozedUntil
        self.completedAt = completedAt
        self.deletedAt = deletedAt
        self.source = source
        self.createdAt = createdAt
        self.changedAt = changedAt
    }

    /// Whether it repeats.
    package var isRepeating: Bool { repeatRule != nil }

    /// Whether it is soft-deleted (tools treat it as not found).
    package var isDeleted: Bool { deletedAt != nil }

    /// The rules for this to-do's own zone (falls back to the Account zone), with the Account default time.
    package func rules(account: Account) -> TimeRules {
        guard let timeZone, timeZone != account.rules.zoneName else { return account.rules }
        let rules = TimeRules(zoneName: timeZone, defaultTime: account.rules.defaultTime)
        // An unknown name falls back to UTC inside TimeRules; the Account zone is the better guess.
        return rules.zoneName == timeZone ? rules : account.rules
    }
}

/// `Todo.status`.
package enum TodoStatus: String, Sendable, CaseIterable {
    /// Waiting to ring (also while snoozed).
    case pending
    /// Done.
    case done
    /// Skipped.
    case skipped
}

/// `Todo.source`.
package enum TodoSource: String, Sendable, CaseIterable {
    /// Created in the app.
    case app
    /// Created through MCP.
    case mcp
}

/// The fields of a `Todo` record (default CloudKit names; `TodoRecord.Schema` may rename them). A write changes
/// only the fields it means to, and the merge after a CONFLICT re-applies exactly those.
package enum TodoField: String, Sendable, CaseIterable, Comparable {
    case title, notes, dueAt, timeZone, sound, repeatRule, status, snoozedUntil, completedAt, deletedAt
    case source, createdAt, changedAt

    package static func < (lhs: TodoField, rhs: TodoField) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
