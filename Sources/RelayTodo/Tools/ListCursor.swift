import Foundation

/// A position in `list_todos` order (due time, then id), carried to the client as an opaque string so a
/// later page starts after the last entry shown even if records were added or removed in between. It also
/// carries the filters of the call that made it: a page is only meaningful for the same filters, so a cursor
/// sent with others is refused instead of answered with a page of something else (or an empty one).
package struct ListCursor: Sendable, Equatable, Comparable {
    /// `dueAt` in milliseconds since 1970; `Int.max` for a to-do without a due time (sorted last).
    let dueMilliseconds: Int
    /// The record name.
    let id: String
    /// `ListTodos.Request.filterKey` of the call that made it.
    let filters: String

    /// The position of `todo` in a listing with `filters`.
    init(todo: Todo, filters: String) {
        dueMilliseconds = todo.dueAt.map { Int(($0.timeIntervalSince1970 * 1000).rounded(.down)) } ?? Int.max
        id = todo.id
        self.filters = filters
    }

    /// Decodes a `nextCursor`; nil when it is not one (including one made by an older version).
    package init?(_ text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard text.utf8.count <= 800, let data = Data(base64Encoded: base64),
            let plain = String(data: data, encoding: .utf8)
        else { return nil }
        let parts = plain.split(separator: "|", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "v2", let milliseconds = Int(parts[1]), !parts[3].isEmpty else {
            return nil
        }
        dueMilliseconds = milliseconds
        filters = String(parts[2])
        id = String(parts[3])
    }

    /// The opaque string (base64url of `v2|<ms>|<filters>|<id>`).
    package var text: String {
        Data("v2|\(dueMilliseconds)|\(filters)|\(id)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    package static func < (lhs: ListCursor, rhs: ListCursor) -> Bool {
        (lhs.dueMilliseconds, lhs.id) < (rhs.dueMilliseconds, rhs.id)
    }
}
