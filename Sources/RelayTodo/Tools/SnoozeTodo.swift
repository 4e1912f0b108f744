import Foundation
import RelayJSON

/// `snooze_todo`: postpones a one-off's alarm, or one day of a repeating to-do.
public enum SnoozeTodo {
    /// Validated arguments.
    public struct Request: Sendable, Equatable {
        /// The to-do.
        public var id: String
        /// When to ring again.
        public var until: TimeInput
        /// Repeating only: which day; nil = today in the to-do's zone. Ignored for one-offs.
        public var occurrenceDate: LocalDate?

        /// A request with every part given.
        public init(id: String, until: TimeInput, occurrenceDate: LocalDate? = nil) {
            self.id = id
            self.until = until
            self.occurrenceDate = occurrenceDate
        }
    }

    /// What snoozing means for the record(s).
    public enum Outcome: Sendable, Equatable {
        /// A one-off: save this change (`snoozedUntil`; a done or skipped one-off is reopened as pending).
        case updated(TodoChange)
        /// A repeating to-do: save this Occurrence (state snoozed).
        case occurrence(Todo, Occurrence)
    }

    /// The outcome, the instant it rings again, and whether that was moved out of quiet hours.
    public struct Snoozed: Sendable, Equatable {
        /// What to save.
        public let outcome: Outcome
        /// When it rings again.
        public let until: Date
        /// Set when `until` was moved.
        public let quietHoursAdjusted: QuietHoursAdjustment?
    }

    /// Validates the arguments (no I/O, no Account needed).
    public static func parse(_ arguments: JSONValue?) throws(TodoError) -> Request {
        let object = try ArgumentObject(arguments, field: "", allowed: ["id", "until", "occurrenceDate"])
        let id = try object.id()
        guard let until = try object.time("until") else { throw .invalidArgument("until", "is required") }
        return Request(id: id, until: until, occurrenceDate: try object.date("occurrenceDate"))
    }

    /// Snoozes `current` (`nil` or soft-deleted → `NOT_FOUND`). `until` is read in the Account zone and must
    /// be after `now` (`INVALID_ARGUMENT` on `until`); inside quiet hours it moves to their next end, as for a
    /// one-off, because a snooze is a single alarm even on a repeating to-do.
    public static func apply(_ request: Request, current: Todo?, account: Account, now: Date) throws(TodoError)
        -> Snoozed
    {
        guard let todo = current, !todo.isDeleted else { throw .notFound(id: request.id) }
        let requested = account.rules.resolve(request.until)
        guard requested > now else {
            throw .invalidArgument("until", "must be in the future (get_me gives the current time)")
        }
        let adjustment = account.quietHours?.adjust(requested, repeating: false, rules: account.rules)
        let until = adjustment?.actual ?? requested
        if todo.isRepeating {
            let date = request.occurrenceDate ?? todo.rules(account: account).today(now: now)
            let occurrence = Occurrence(
                todoId: todo.id, date: date, state: .snoozed, snoozedUntil: until, changedAt: now)
            return Snoozed(outcome: .occurrence(todo, occurrence), until: until, quietHoursAdjusted: adjustment)
        }
        var snoozed = todo
        snoozed.snoozedUntil = until
        snoozed.status = .pending
        snoozed.completedAt = nil
        return Snoozed(
            outcome: .updated(TodoChange(from: todo, to: snoozed, now: now)), until: until,
            quietHoursAdjusted: adjustment)
    }

    /// The result's `structuredContent`: `{timeZone, todo, occurrence, snoozedUntil, quietHoursAdjusted?}`.
    public static func result(_ snoozed: Snoozed, account: Account) -> JSONValue {
        let todo: Todo
        let occurrence: Occurrence?
        switch snoozed.outcome {
        case .updated(let change): (todo, occurrence) = (change.todo, nil)
        case .occurrence(let repeating, let day): (todo, occurrence) = (repeating, day)
        }
        var object: JSONObject = [
            "timeZone": .string(account.rules.zoneName), "todo": todo.json(account: account),
            "occurrence": occurrence?.json(account: account) ?? .null,
            "snoozedUntil": .string(account.rules.format(snoozed.until)),
        ]
        if let adjustment = snoozed.quietHoursAdjusted {
            object["quietHoursAdjusted"] = adjustment.json(account: account)
        }
        return .object(object)
    }
}
