import Foundation

/// A position in `list_todos` order (due time, then id), carried to the client as an opaque string so a
/// later page starts after the last entry shown even if records were added or removed in between.
public struct ListCursor: Sendable, Equatable, Comparable {
    /// `dueAt` in milliseconds since 1970; `Int.max` for a to-do without a due time (sorted last).
    let dueMilliseconds: Int
    /// The record name.
    let id: String

    /// The position of `todo`.
    init(todo: Todo) {
        dueMilliseconds = todo.dueAt.map { Int(($0.timeIntervalSince1970 * 1000).rounded(.down)) } ?? Int.max
        id = todo.id
    }

    /// Decodes a `nextCursor`; nil when it is not one.
    public init?(_ text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard text.utf8.count <= 700, let data = Data(base64Encoded: base64),
            let plain = String(data: data, encoding: .utf8)
        else { return nil }
        let parts = plain.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "v1", let milliseconds = Int(parts[1]), !parts[2].isEmpty else {
            return nil
        }
        dueMilliseconds = milliseconds
        id = String(parts[2])
    }

    /// The opaque string (base64url of `v1|<ms>|<id>`).
    public var text: String {
        Data("v1|\(dueMilliseconds)|\(id)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func < (lhs: ListCursor, rhs: ListCursor) -> Bool {
        (lhs.dueMilliseconds, lhs.id) < (rhs.dueMilliseconds, rhs.id)
    }
}
