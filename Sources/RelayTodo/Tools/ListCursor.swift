import Foundation
import RelayCrypto

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

    /// Decodes a `nextCursor` made under `seal`; nil when it is not one: an edited one, another person's (or
    /// another deployment's), or one made by an older version.
    package init?(_ text: String, seal: CursorSeal = .process) {
        let halves = text.split(separator: ".", omittingEmptySubsequences: false)
        guard text.utf8.count <= 800, halves.count == 2, let payload = Self.unbase64url(halves[0]),
            let tag = Self.unbase64url(halves[1]), tag == seal.tag(payload),
            let plain = String(data: Data(payload), encoding: .utf8)
        else { return nil }
        let parts = plain.split(separator: "|", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "v3", let milliseconds = Int(parts[1]), !parts[3].isEmpty else {
            return nil
        }
        dueMilliseconds = milliseconds
        filters = String(parts[2])
        id = String(parts[3])
    }

    /// The opaque string: base64url of `v3|<ms>|<filters>|<id>`, a dot, and the seal's tag over it (so an edited
    /// cursor, or one of another person, is refused instead of skipping or repeating entries).
    package func text(seal: CursorSeal = .process) -> String {
        let payload = Array("v3|\(dueMilliseconds)|\(filters)|\(id)".utf8)
        return Self.base64url(payload) + "." + Self.base64url(seal.tag(payload))
    }

    static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func unbase64url(_ text: Substring) -> [UInt8]? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            return nil
        }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }

    package static func < (lhs: ListCursor, rhs: ListCursor) -> Bool {
        (lhs.dueMilliseconds, lhs.id) < (rhs.dueMilliseconds, rhs.id)
    }
}

/// What makes a `list_todos` cursor the relay's and the person's: an HMAC-SHA256 key shared by every instance
/// (derived from the user-ID key, `TodoTools.tools(cursorKey:)`) and the person it was made for.
package struct CursorSeal: Sendable {
    let key: SymmetricKey
    let owner: String

    /// A seal for `owner` under `key`.
    package init(key: SymmetricKey, owner: String) {
        self.key = key
        self.owner = owner
    }

    /// A key of this process only, for tools made without one (tests, the local server: one process).
    package static let processKey = SymmetricKey.random()
    /// The process key, with no owner.
    package static let process = CursorSeal(key: processKey, owner: "")

    /// The first 16 bytes of HMAC-SHA256 over the purpose, the owner and `payload`.
    func tag(_ payload: [UInt8]) -> [UInt8] {
        let message = Array("mustdo list_todos cursor\u{0}\(owner)\u{0}".utf8) + payload
        return Array(HMACSHA256.authenticationCode(for: message, key: key).prefix(16))
    }
}
