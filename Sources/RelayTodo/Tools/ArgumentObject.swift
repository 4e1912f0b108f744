import RelayCloudKit
import RelayJSON

/// A JSON object of tool arguments being validated. Every error is `INVALID_ARGUMENT` naming the member
/// by its dotted path. JSON `null` counts as "not given" except where a tool gives null a meaning
/// (`update_todo`'s `notes` and `repeat`), which it checks itself with `isNull(_:)`.
struct ArgumentObject {
    let members: JSONObject
    /// The path of this object (`repeat.end`), or "" for the top-level arguments.
    let field: String

    /// Checks that `value` is an object (or absent, for top-level arguments) whose members are all `allowed`.
    init(_ value: JSONValue?, field: String, allowed: Set<String>) throws(TodoError) {
        self.field = field
        switch value {
        case .none where field.isEmpty, .null? where field.isEmpty: members = JSONObject()
        case .object(let object)?: members = object
        default:
            throw field.isEmpty
                ? TodoError(code: .invalidArgument, message: "arguments must be a JSON object")
                : .invalidArgument(field, "must be an object")
        }
        for key in members.keys where !allowed.contains(key) {
            let known = allowed.sorted().joined(separator: ", ")
            throw .invalidArgument(
                path(key), known.isEmpty ? "this tool takes no arguments" : "unknown; expected \(known)")
        }
    }

    /// The dotted path of member `key`.
    func path(_ key: String) -> String { field.isEmpty ? key : "\(field).\(key)" }

    /// Member `key` as given (nil when absent).
    subscript(key: String) -> JSONValue? { members[key] }

    /// Whether `key` is present with value null.
    func isNull(_ key: String) -> Bool { members[key]?.isNull == true }

    /// A string member, nil when absent or null.
    func string(_ key: String) throws(TodoError) -> String? {
        guard let value = members[key], !value.isNull else { return nil }
        guard let string = value.stringValue else { throw .invalidArgument(path(key), "must be a string") }
        return string
    }

    /// A required string member.
    func requiredString(_ key: String) throws(TodoError) -> String {
        guard let string = try string(key) else { throw .invalidArgument(path(key), "is required") }
        return string
    }

    /// A string member of 1…`maxLength` Unicode scalars after trimming surrounding white space, without control
    /// or bidi-override characters (`refusedCharacter`); `multiline` text (notes) may hold line breaks and tabs.
    func text(_ key: String, maxLength: Int, allowEmpty: Bool = false, multiline: Bool = false) throws(TodoError)
        -> String?
    {
        guard let raw = try string(key) else { return nil }
        let trimmed = raw.trimmingWhitespace()
        if trimmed.isEmpty && !allowEmpty { throw .invalidArgument(path(key), "must not be empty") }
        if trimmed.unicodeScalars.count > maxLength {
            throw .invalidArgument(path(key), "must be at most \(maxLength) characters")
        }
        for (index, scalar) in trimmed.unicodeScalars.enumerated() where refusedCharacter(scalar, multiline: multiline)
        {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            let allowed = multiline ? "line breaks and tabs are fine" : "use plain text on one line"
            throw .invalidArgument(
                path(key),
                "must not contain control or text-direction characters (\(code) at character \(index + 1)); \(allowed)")
        }
        // Issue 42: text a person cannot see (tag characters outside a flag emoji carry hidden ASCII; zero-width
        // characters alone show nothing) would be stored and read by the model but never seen in the app.
        if Self.hasHiddenTags(trimmed) {
            throw .invalidArgument(path(key), "must not contain invisible tag characters (U+E0000–U+E007F)")
        }
        if !trimmed.isEmpty, !trimmed.unicodeScalars.contains(where: Self.isVisible) {
            throw .invalidArgument(path(key), "must contain a visible character")
        }
        return trimmed
    }

    /// Whether `scalar` shows something: not white space, not a format character (zero-width space and joiners,
    /// bidi marks), not a variation selector or a tag.
    static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        if properties.isWhitespace || properties.generalCategory == .format || properties.isVariationSelector {
            return false
        }
        return !(0xE0000...0xE007F).contains(scalar.value) && scalar.value != 0x3164 && scalar.value != 0x115F
    }

    /// Tag characters anywhere but in an emoji tag sequence (U+1F3F4, tags, U+E007F: the flags of Scotland and
    /// Wales), where they belong.
    static func hasHiddenTags(_ text: String) -> Bool {
        var inFlag = false
        for scalar in text.unicodeScalars {
            if scalar.value == 0x1F3F4 {
                inFlag = true
            } else if (0xE0000...0xE007F).contains(scalar.value) {
                guard inFlag else { return true }
                if scalar.value == 0xE007F { inFlag = false }
            } else {
                inFlag = false
            }
        }
        return false
    }

    /// An integer member within `range`.
    func int(_ key: String, in range: ClosedRange<Int>) throws(TodoError) -> Int? {
        guard let value = members[key], !value.isNull else { return nil }
        guard let number = value.intValue, range.contains(number) else {
            throw .invalidArgument(path(key), "must be an integer \(range.lowerBound)–\(range.upperBound)")
        }
        return number
    }

    /// A boolean member.
    func bool(_ key: String) throws(TodoError) -> Bool? {
        guard let value = members[key], !value.isNull else { return nil }
        guard let flag = value.boolValue else { throw .invalidArgument(path(key), "must be true or false") }
        return flag
    }

    /// An array member.
    func array(_ key: String) throws(TodoError) -> [JSONValue]? {
        guard let value = members[key], !value.isNull else { return nil }
        guard let list = value.arrayValue else { throw .invalidArgument(path(key), "must be an array") }
        return list
    }

    /// A `YYYY-MM-DD` member.
    func date(_ key: String) throws(TodoError) -> LocalDate? {
        guard let text = try string(key) else { return nil }
        guard let date = LocalDate(text) else {
            throw .invalidArgument(path(key), "must be a date as YYYY-MM-DD")
        }
        try Self.checkYear(date, path(key))
        return date
    }

    /// The first year a tool date may name: CloudKit timestamps count from 1970, and a year such as 0001 is a
    /// model's mistake, not a to-do (issue 42).
    static let firstYear = 1970

    static func checkYear(_ date: LocalDate, _ field: String) throws(TodoError) {
        guard date.year >= firstYear else {
            throw .invalidArgument(field, "must be a date from \(firstYear) on (YYYY-MM-DD)")
        }
    }

    /// A time input member (`due`, `until`).
    func time(_ key: String) throws(TodoError) -> TimeInput? {
        guard let text = try string(key) else { return nil }
        let input = try TimeInput(parsing: text, field: path(key))
        switch input {
        case .date(let date), .wallClock(let date, _): try Self.checkYear(date, path(key))
        case .instant(let instant):
            guard instant.timeIntervalSince1970 >= 0 else {
                throw .invalidArgument(path(key), "must be a time from \(Self.firstYear) on")
            }
        }
        return input
    }

    /// A member that must be one of the cases of `T`.
    func choice<T: RawRepresentable & CaseIterable>(_ key: String, of type: T.Type) throws(TodoError) -> T?
    where T.RawValue == String {
        guard let text = try string(key) else { return nil }
        guard let value = T(rawValue: text) else {
            let names = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw .invalidArgument(path(key), "must be one of \(names)")
        }
        return value
    }

    /// The longest to-do id: an Occurrence's record name, `<id>|YYYY-MM-DD`, must fit CloudKit's 255 too.
    static let maxIDLength = RecordName.maxLength - "|YYYY-MM-DD".utf8.count

    /// The `id` member, checked against CloudKit's record-name rules (`RecordName`) before anything goes upstream:
    /// the one check every tool that takes an `id` uses, so a bad id is always `INVALID_ARGUMENT` on `id`. The
    /// message names the tools that give ids (`source`).
    func id(from source: String = "list_todos or add_todo") throws(TodoError) -> String {
        let id = try requiredString("id")
        if let problem = RecordName.problem(id, maxLength: Self.maxIDLength) {
            throw .invalidArgument(path("id"), "\(problem); use a to-do id from \(source)")
        }
        return id
    }
}

/// Whether `scalar` must not reach the phone's alarm screen: C0 and C1 controls and DEL (a title or note is
/// shown as plain text; NUL or a bell has no meaning there), and the bidi embeddings, overrides and isolates
/// (U+202A–U+202E, U+2066–U+2069) that can make shown text read differently from what was stored. Text that
/// is `multiline` (notes) keeps tab, line feed, carriage return and the Unicode line and paragraph separators.
func refusedCharacter(_ scalar: Unicode.Scalar, multiline: Bool) -> Bool {
    switch scalar.value {
    case 0x09, 0x0A, 0x0D, 0x2028, 0x2029: !multiline
    case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
}

extension String {
    /// The string without leading and trailing white space and newlines.
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[first...last])
    }
}
