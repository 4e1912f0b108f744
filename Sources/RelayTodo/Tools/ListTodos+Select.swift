import Foundation
import RelayJSON

extension ListTodos {
    /// The page for `request` from every Todo and Occurrence record the caller fetched (it may fetch more than
    /// needed: everything is filtered here). Soft-deleted to-dos never appear. One-offs match by the date of
    /// `dueAt` in the Account zone and by `status`; repeating to-dos (unless `includeRepeating` is false)
    /// match when their first occurrence is not after `to` and an `until` end is not before `from`, whatever
    /// the status filter, and carry their Occurrences that ring within the range on the person's clock (a
    /// snooze or the to-do's own zone can move a day; days the rule no longer has are left out). One-offs match
    /// by the day they ring: a pending one snoozed past its due time by the snooze. Entries are ordered by due
    /// time, then id, and cut into pages of `pageSize` (at most 200).
    package static func select(
        _ request: Request, todos: [Todo], occurrences: [Occurrence], account: Account, pageSize: Int = 200,
        seal: CursorSeal = .process
    ) -> Page {
        let rules = account.rules
        var entries: [(key: ListCursor, todo: Todo)] = []
        for todo in todos where !todo.isDeleted {
            // The day it rings on the person's clock: a pending one-off snoozed past its due time rings then.
            let day = (todo.isRepeating ? todo.dueAt : todo.ringsAt).map { rules.today(now: $0) }
            if let rule = todo.repeatRule {
                guard request.includeRepeating else { continue }
                if let to = request.to, let day, day > to { continue }
                if let from = request.from, case .until(let last) = rule.end, last < from { continue }
            } else {
                guard request.status == .all || todo.status.rawValue == request.status.rawValue else { continue }
                if request.from != nil || request.to != nil {
                    guard let day, request.from.map({ day >= $0 }) ?? true, request.to.map({ day <= $0 }) ?? true
                    else { continue }
                }
            }
            entries.append((ListCursor(todo: todo, filters: request.filterKey), todo))
        }
        entries.sort { $0.key < $1.key }
        if let cursor = request.cursor { entries.removeAll { !(cursor < $0.key) } }
        let size = min(max(pageSize, 1), 200)
        let page = entries.prefix(size)
        let nextCursor = entries.count > size ? page.last?.key.text(seal: seal) : nil

        let onPage = Dictionary(page.map { ($0.todo.id, $0.todo) }, uniquingKeysWith: { first, _ in first })
        var byTodo: [String: [Occurrence]] = [:]
        for occurrence in occurrences {
            guard let todo = onPage[occurrence.todoId] else { continue }
            // A day the repeat no longer rings on (its rule changed since) is not reported.
            if let schedule = todo.schedule(account: account), !schedule.contains(occurrence.date) { continue }
            // In range by the day it rings on the person's clock (a snooze, or the to-do's own zone, can move it).
            let ringDay =
                todo.ringsAt(on: occurrence.date, occurrence: occurrence, account: account)
                .map { rules.today(now: $0) } ?? occurrence.date
            if let from = request.from, ringDay < from { continue }
            if let to = request.to, ringDay > to { continue }
            byTodo[occurrence.todoId, default: []].append(occurrence)
        }
        return Page(
            items: page.map(\.todo).filter { !$0.isRepeating },
            repeating: page.map(\.todo).filter(\.isRepeating).map {
                RepeatingEntry(todo: $0, occurrences: (byTodo[$0.id] ?? []).sorted { $0.date < $1.date })
            },
            nextCursor: nextCursor)
    }

    /// The result's `structuredContent`: `{timeZone, items, repeating, nextCursor?, complete, warning?}`; `warning`
    /// (what could not be read, for the model to pass on) makes `complete` false.
    package static func result(_ page: Page, account: Account, warning: String? = nil) -> JSONValue {
        var object: JSONObject = [
            "timeZone": .string(account.rules.zoneName),
            "quietHours": account.quietHoursJSON,
            "items": .array(page.items.map { $0.json(account: account) }),
            "repeating": .array(
                page.repeating.map { entry in
                    guard case .object(var todo) = entry.todo.json(account: account) else { return .null }
                    todo["occurrences"] = .array(entry.occurrences.map { $0.json(account: account) })
                    return .object(todo)
                }),
        ]
        if let nextCursor = page.nextCursor { object["nextCursor"] = .string(nextCursor) }
        object["complete"] = .bool(warning == nil)
        if let warning { object["warning"] = .string(warning) }
        return .object(object)
    }
}
