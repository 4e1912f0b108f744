import RelayJSON
import RelayStore

/// What a connection did to the person's to-dos, as the connections page and
/// `mustdo-relayctl grants activity` count it (issue 44). Only these names and numbers are kept:
/// never a to-do's title, content or record ID.
package enum ConnectionAction: String, Sendable, CaseIterable, Comparable {
    case added
    case completed
    case snoozed
    case deleted
    case updated
    case undone

    /// The action a successful call of a write tool counts as; nil for a tool that changes nothing.
    package init?(tool: String) {
        switch tool {
        case "add_todo", "add_todos": self = .added
        case "update_todo": self = .updated
        case "complete_todo", "complete_todos": self = .completed
        case "snooze_todo", "snooze_todos": self = .snoozed
        case "delete_todo", "delete_todos": self = .deleted
        case "undo": self = .undone
        default: return nil
        }
    }

    package static func < (lhs: ConnectionAction, rhs: ConnectionAction) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One UTC day of a connection's activity: how many of each action (missing: none).
package struct DayActivity: Sendable, Equatable {
    /// Days since 1970-01-01 (UTC).
    package var day: Int
    /// Count per action; an action that did not happen is absent.
    package var counts: [ConnectionAction: Int]

    /// A day's counts.
    package init(day: Int, counts: [ConnectionAction: Int]) {
        self.day = day
        self.counts = counts
    }

    /// The counts of `GRANT#…` / `ACT#<day>`; nil for any other item. Unknown names are ignored, so
    /// an older relay reads a newer one's items.
    init?(item: Item) {
        guard item.sk.hasPrefix(OAuthKeys.activityPrefix),
            let day = Int(item.sk.dropFirst(OAuthKeys.activityPrefix.count))
        else { return nil }
        self.day = day
        var counts: [ConnectionAction: Int] = [:]
        for action in ConnectionAction.allCases {
            if let count = item.attributes.int(action.rawValue), count > 0 { counts[action] = count }
        }
        self.counts = counts
    }

    /// The total of `action` over `days`.
    package static func total(_ action: ConnectionAction, in days: [DayActivity]) -> Int {
        days.reduce(0) { $0 + ($1.counts[action] ?? 0) }
    }
}
