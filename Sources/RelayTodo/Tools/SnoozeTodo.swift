import Foundation
import RelayCloudKit
import RelayJSON
import RelayMCP

/// `snooze_todo`: postpones a one-off's alarm, or one day of a repeating to-do.
package enum SnoozeTodo {
    /// Validated arguments.
    package struct Request: Sendable, Equatable {
        /// The to-do.
        package var id: String
        /// When to ring again.
        package var until: TimeInput
        /// Repeating only: which day; nil = today in the to-do's zone. Ignored for one-offs.
        package var occurrenceDate: LocalDate?

        /// A request with every part given.
        package init(id: String, until: TimeInput, occurrenceDate: LocalDate? = nil) {
            self.id = id
            self.until = until
            self.occurrenceDate = occurrenceDate
        }
    }

    /// What snoozing means for the record(s).
    package enum Outcome: Sendable, Equatable {
        /// A one-off: save this change (`snoozedUntil`; a done or skipped one-off is reopened as pending).
        case updated(TodoChange)
        /// A repeating to-do: save this Occurrence (state snoozed, or skipped when the next occurrence rings
        /// first).
        case occurrence(Todo, Occurrence)
    }

    /// The outcome, the instant it rings again, and whether that was moved out of quiet hours.
    package struct Snoozed: Sendable, Equatable {
        /// What to save.
        package let outcome: Outcome
        /// When it rings again (after quiet hours).
        package let until: Date
        /// Set when `until` was moved.
        package let quietHoursAdjusted: QuietHoursAdjustment?
        /// For a skipped occurrence: the next occurrence, which rings instead.
        package let next: NextOccurrence?
        /// What the clock did to the time asked for (a time the clocks skip, or one they show twice).
        package var notices: [String] = []

        /// A result with every part given.
        package init(
            outcome: Outcome, until: Date, quietHoursAdjusted: QuietHoursAdjustment?, next: NextOccurrence? = nil
        ) {
            self.outcome = outcome
            self.until = until
            self.quietHoursAdjusted = quietHoursAdjusted
            self.next = next
        }

        /// Whether the occurrence was skipped instead of snoozed.
        package var skipped: Bool { next != nil }
    }

    /// A repeating to-do's occurrence: its day and when its alarm rings.
    package struct NextOccurrence: Sendable, Equatable {
        /// The day, in the to-do's zone.
        package let date: LocalDate
        /// The alarm.
        package let alarm: Date
    }

    /// Validates the arguments (no I/O, no Account needed).
    package static func parse(_ arguments: JSONValue?) throws(TodoError) -> Request {
        let object = try ArgumentObject(arguments, field: "", allowed: ["id", "until", "occurrenceDate"])
        let id = try object.id()
        guard let until = try object.time("until") else { throw .invalidArgument("until", "is required") }
        return Request(id: id, until: until, occurrenceDate: try object.date("occurrenceDate"))
    }

    /// Snoozes `current` (`nil` or soft-deleted → `NOT_FOUND`), as the app's snooze does: the alarm that rang
    /// stops and a new one rings at `until`.
    ///
    /// `until` is read in the Account zone and must be after `now` and after the alarm it postpones (the
    /// one-off's `dueAt`, or that day's alarm of a repeating to-do): a snooze never makes an alarm ring
    /// earlier (`INVALID_ARGUMENT` on `until`; `update_todo` moves `due`). Inside quiet hours it moves to their
    /// next end, as for a one-off, because a snooze is a single alarm even on a repeating to-do. A repeating
    /// to-do's day must be one it repeats on; when `until` is at or after the next occurrence's alarm, or is a
    /// later day without a time (`YYYY-MM-DD`: the app's "tomorrow" button), that day is marked skipped instead:
    /// the next occurrence already rings, so nothing rings twice.
    package static func apply(_ request: Request, current: Todo?, account: Account, now: Date) throws(TodoError)
        -> Snoozed
    {
        guard let todo = current, !todo.isDeleted else { throw .notFound(id: request.id) }
        let requested = account.rules.resolve(request.until)
        guard requested > now else {
            throw .invalidArgument("until", "must be in the future (get_me gives the current time)")
        }
        let date = todo.isRepeating ? try todo.occurrenceDay(request.occurrenceDate, account: account, now: now) : nil
        let snoozedAlarm = date.map { todo.alarm(on: $0, account: account) } ?? todo.dueAt
        if let snoozedAlarm, requested <= snoozedAlarm {
            let which = date.map { "the alarm of the occurrence on \($0)" } ?? "the to-do's due time"
            throw .invalidArgument(
                "until",
                "must be after the alarm it postpones (\(which)): a snooze never makes an alarm ring earlier. "
                    + "To ring earlier, change due with update_todo.")
        }
        let adjustment = account.quietHours?.adjust(requested, repeating: false, rules: account.rules)
        let until = adjustment?.actual ?? requested
        let notices = clockNotices(request.until, resolved: requested, rules: account.rules)
        if let date {
            // The app's "tomorrow" on a repeat: a day (no time) after the occurrence's skips it and schedules
            // nothing new, so the next occurrence rings once, at its own time.
            var tomorrowButton = false
            if case .date(let day) = request.until, day > date { tomorrowButton = true }
            if let nextDate = todo.schedule(account: account)?.next(after: date),
                let nextAlarm = todo.alarm(on: nextDate, account: account), until >= nextAlarm || tomorrowButton
            {
                let skipped = Occurrence(todoId: todo.id, date: date, state: .skipped, changedAt: now)
                return Snoozed(
                    outcome: .occurrence(todo, skipped), until: until, quietHoursAdjusted: adjustment,
                    next: NextOccurrence(date: nextDate, alarm: nextAlarm))
            }
            let occurrence = Occurrence(
                todoId: todo.id, date: date, state: .snoozed, snoozedUntil: until, changedAt: now)
            var snoozed = Snoozed(outcome: .occurrence(todo, occurrence), until: until, quietHoursAdjusted: adjustment)
            snoozed.notices = notices
            return snoozed
        }
        var snoozed = todo
        snoozed.snoozedUntil = until
        snoozed.status = .pending
        snoozed.completedAt = nil
        var result = Snoozed(
            outcome: .updated(TodoChange(from: todo, to: snoozed, now: now)), until: until,
            quietHoursAdjusted: adjustment)
        result.notices = notices
        return result
    }

    /// Issue 42: what the person's clock does to a wall-clock `until`, said as `add_todo` says it. A time the
    /// clocks skip (spring forward) rings at the first minute that exists; a time they show twice (fall back)
    /// rings the first time, and the notice names both so nobody waits for the second.
    static func clockNotices(_ input: TimeInput, resolved: Date, rules: TimeRules) -> [String] {
        let wanted: (LocalDate, LocalTime)
        switch input {
        case .wallClock(let date, let time): wanted = (date, time)
        case .date(let date): wanted = (date, rules.defaultTime)
        case .instant: return []
        }
        let (date, time) = wanted
        if rules.wallClock(at: resolved).time != time {
            return [
                "\(time) does not exist on \(date) in \(rules.zoneName) (the clocks go forward), so it rings at "
                    + "\(rules.wallClock(at: resolved).time) (\(rules.format(resolved))). Tell the user."
            ]
        }
        for shift in [3600.0, 1800.0] {
            let later = resolved.addingTimeInterval(shift)
            let wall = rules.wallClock(at: later)
            if wall.date == date, wall.time == time {
                return [
                    "\(time) happens twice on \(date) in \(rules.zoneName) (the clocks go back): it rings the first "
                        + "time, \(rules.format(resolved)), not at \(rules.format(later)). Tell the user."
                ]
            }
        }
        return []
    }

    /// The result's `structuredContent`: `{timeZone, todo, occurrence, snoozedUntil, message,
    /// quietHoursAdjusted?}`; `snoozedUntil` is null when the occurrence was skipped.
    package static func result(_ snoozed: Snoozed, account: Account) -> JSONValue {
        let todo: Todo
        let occurrence: Occurrence?
        switch snoozed.outcome {
        case .updated(let change): (todo, occurrence) = (change.todo, nil)
        case .occurrence(let repeating, let day): (todo, occurrence) = (repeating, day)
        }
        let rules = account.rules
        let message: String
        if let next = snoozed.next, let day = occurrence?.date {
            message =
                "Skipped the occurrence on \(day) instead of snoozing it, as \"tomorrow\" does in the MustDo app: "
                + "nothing new is scheduled, and the next occurrence rings at \(rules.format(next.alarm))."
        } else if let day = occurrence?.date {
            message = "The occurrence on \(day) rings again at \(rules.format(snoozed.until)); the repeat continues."
        } else if case .updated(let change) = snoozed.outcome, change.fields.contains(.status) {
            // The app's snooze reopens a finished one-off; the person must hear that it is pending again.
            message =
                "It was marked done or skipped; the snooze reopens it: it is pending again and rings at "
                + "\(rules.format(snoozed.until)). Tell the user."
        } else {
            message = "It rings again at \(rules.format(snoozed.until))."
        }
        var object: JSONObject = [
            "timeZone": .string(rules.zoneName), "todo": todo.json(account: account),
            "occurrence": occurrence?.json(account: account) ?? .null,
            "snoozedUntil": snoozed.skipped ? .null : .string(rules.format(snoozed.until)),
            "message": .string(message),
        ]
        if let adjustment = snoozed.quietHoursAdjusted {
            object["quietHoursAdjusted"] = adjustment.json(account: account)
        }
        if !snoozed.notices.isEmpty { object["notices"] = .array(snoozed.notices.map(JSONValue.string)) }
        return .object(object)
    }
}

extension SnoozeTodo {
    /// The tool's name, title, schemas and hints.
    package static let definition = ToolDefinition(
        name: "snooze_todo", title: "Snooze",
        description: """
            Postpones a to-do's alarm as the app's snooze does: it stops and rings again at until. until takes \
            the same forms as add_todo's due (YYYY-MM-DDTHH:mm in the user's time zone from get_me, YYYY-MM-DD \
            for the default time, or ISO 8601 with offset), must be in the future and after the alarm it \
            postpones: a snooze never makes it ring earlier (change due with update_todo for that). A one-off \
            to-do stays pending (a done one is reopened). For a repeating to-do only one day's occurrence is \
            snoozed: occurrenceDate (YYYY-MM-DD) picks a day it repeats on, default today in the to-do's time \
            zone. If until is at or after the next occurrence's alarm, or is a later day given as YYYY-MM-DD, \
            that day is marked skipped instead (as "tomorrow" in the app: the next occurrence rings anyway) and \
            snoozedUntil is null. A time inside the user's quiet hours is moved to their end and the result has \
            quietHoursAdjusted; a time the clocks skip or show twice (daylight saving) gives notices. Tell the \
            user the result's message and notices. The alarm's buttons in the app: "done" is \
            complete_todo; "10 minutes" and "1 hour" are snooze_todo with until = now (get_me) plus 10 minutes \
            or 1 hour, as YYYY-MM-DDTHH:mm; "tomorrow" is snooze_todo with until = tomorrow's date as \
            YYYY-MM-DD (a repeat: today's occurrence is skipped; a one-off: it rings tomorrow at the default \
            time). \
            \(UndoText.sentence)
            """,
        requiredScopes: [TodoScope.write],
        inputSchema: Schema.object(
            [
                ("id", Schema.id),
                ("until", Schema.timeInput("When the alarm rings again; must be in the future.")),
                ("occurrenceDate", Schema.date("Repeating to-dos: the day to snooze. Default: today.")),
            ],
            required: ["id", "until"], closed: true),
        outputSchema: Schema.object(
            [
                ("timeZone", Schema.timeZone),
                ("todo", Schema.todo),
                ("occurrence", Schema.nullable(Schema.occurrence)),
                ("snoozedUntil", Schema.string("When it rings again; null when the day was skipped.", nullable: true)),
                ("message", Schema.string("What happened, for the user.")),
                ("quietHoursAdjusted", Schema.quietHoursAdjusted),
                ("notices", Schema.notices),
                ("undo", UndoText.schema),
            ],
            required: ["timeZone", "todo", "occurrence", "snoozedUntil", "message", "undo"]),
        annotations: ToolAnnotations(
            readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false))
}

extension SnoozeTodo {
    /// `snooze_todo`: like `complete_todo`, with state snoozed and `snoozedUntil` (or skipped).
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let request = try parse(arguments)
        let snapshot = try await database.snapshot(id: request.id, occurrences: request.occurrenceNames(now: now))
        var snoozed = try apply(
            request, current: snapshot.todo.map(Todo.init(record:)), account: snapshot.account, now: now)
        var entries: [UndoHandle.Entry] = []
        switch snoozed.outcome {
        case .updated(let change):
            let (todo, entry) = try await database.saveExisting(change, snapshot)
            var saved = Snoozed(
                outcome: .updated(TodoChange(todo: todo, fields: change.fields)), until: snoozed.until,
                quietHoursAdjusted: snoozed.quietHoursAdjusted, next: snoozed.next)
            saved.notices = snoozed.notices
            snoozed = saved
            entries = entry.map { [$0] } ?? []
        case .occurrence(_, let occurrence):
            entries = [try await database.save(occurrence, base: snapshot.occurrences[occurrence.recordName])]
        }
        return result(snoozed, account: snapshot.account).adding(undo: database.undo(entries, now: now))
    }
}
