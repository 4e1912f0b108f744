import Foundation
import RelayCloudKit
import RelayCrypto
import RelayJSON
import RelaySync

/// What one write (or one batch) changed, enough to put it back: the records it wrote, each with its change tag
/// after the write and the values the write replaced (issue 44). The relay keeps none of it: the handle goes to
/// the client sealed (`UndoSeal`: encrypted and authenticated, bound to the person, expiring) and comes back with
/// `undo`. It holds to-do content (a replaced title or notes), so it is never logged and never stored.
package struct UndoHandle: Sendable, Equatable {
    /// How long a handle can be used: a day, long enough for "undo that" in the same conversation, short enough
    /// that an old handle found in a transcript is useless.
    package static let lifetime: Duration = .seconds(24 * 3600)

    /// What undo does to one record.
    package enum Action: String, Sendable {
        /// Put the previous values of the fields the write changed back (an update, complete, snooze, delete, or an
        /// Occurrence that existed before).
        case restore = "r"
        /// Soft-delete a to-do the write added (`deletedAt`, as the app deletes).
        case remove = "a"
        /// Delete the Occurrence record the write created (the day had none before).
        case delete = "d"
    }

    /// One record the write changed.
    package struct Entry: Sendable, Equatable {
        /// The to-do the record belongs to (the record itself, or an Occurrence's `todoId`): results name it.
        package var todoId: String
        /// The record written.
        package var recordName: String
        /// Whether it is an `Occurrence` record (else a `Todo`).
        package var isOccurrence: Bool
        /// `recordChangeTag` after the write: undo writes only while the record still has it.
        package var changeTag: String
        /// What undo does.
        package var action: Action
        /// For `restore`: record field name → the value before the write (nil: the field was absent).
        package var previous: [String: RelayCloudKit.FieldValue?]
        /// `UndoDigest` of the record after the write, to name what changed since when undo is refused.
        package var digest: [UInt8]

        /// An entry with every part given.
        package init(
            todoId: String, recordName: String, isOccurrence: Bool, changeTag: String, action: Action,
            previous: [String: RelayCloudKit.FieldValue?] = [:], digest: [UInt8]
        ) {
            self.todoId = todoId
            self.recordName = recordName
            self.isOccurrence = isOccurrence
            self.changeTag = changeTag
            self.action = action
            self.previous = previous
            self.digest = digest
        }
    }

    /// When the handle stops working, in whole seconds since 1970.
    package var expires: Int64
    /// The records, in the order the call wrote them.
    package var entries: [Entry]

    /// A handle with every part given.
    package init(expires: Int64, entries: [Entry]) {
        self.expires = expires
        self.entries = entries
    }

    /// A handle for `entries` written at `now`.
    package init(entries: [Entry], now: Date) {
        self.init(expires: Int64(now.timeIntervalSince1970 + Self.lifetime.seconds), entries: entries)
    }

    /// The plaintext: compact JSON `{"v":1,"x":expires,"e":[{"i","n"?,"o"?,"g","a","p"?,"h"}]}`.
    var json: JSONValue {
        let entries: [JSONValue] = entries.map { entry in
            var object: JSONObject = ["i": .string(entry.todoId)]
            if entry.recordName != entry.todoId { object["n"] = .string(entry.recordName) }
            if entry.isOccurrence { object["o"] = true }
            object["g"] = .string(entry.changeTag)
            object["a"] = .string(entry.action.rawValue)
            if !entry.previous.isEmpty {
                object["p"] = .object(
                    JSONObject(entry.previous.sorted { $0.key < $1.key }.map { ($0.key, $0.value?.json ?? .null) }))
            }
            object["h"] = .string(Base64URL.encode(entry.digest))
            return .object(object)
        }
        return ["v": 1, "x": .int(Int(expires)), "e": .array(entries)]
    }

    /// Decodes the plaintext; nil when it is not one this version wrote.
    init?(json: JSONValue) {
        guard json["v"]?.intValue == 1, let expires = json["x"]?.intValue, let list = json["e"]?.arrayValue else {
            return nil
        }
        var entries: [Entry] = []
        for item in list {
            guard let todoId = item["i"]?.stringValue, let tag = item["g"]?.stringValue,
                let action = item["a"]?.stringValue.flatMap(Action.init(rawValue:)),
                let digest = item["h"]?.stringValue.flatMap(Base64URL.decode)
            else { return nil }
            var previous: [String: RelayCloudKit.FieldValue?] = [:]
            for (name, value) in item["p"]?.objectValue ?? [:] {
                if value.isNull {
                    previous[name] = .some(nil)
                } else {
                    guard let decoded = try? RelayCloudKit.FieldValue(json: value) else { return nil }
                    previous[name] = decoded
                }
            }
            entries.append(
                Entry(
                    todoId: todoId, recordName: item["n"]?.stringValue ?? todoId,
                    isOccurrence: item["o"]?.boolValue ?? false, changeTag: tag, action: action, previous: previous,
                    digest: digest))
        }
        self.init(expires: Int64(expires), entries: entries)
    }
}

/// A short fingerprint of each known field of a record, so a refused undo can say which fields changed since the
/// write without the handle carrying their values twice: 3 bytes of SHA-256 per field, in a fixed order.
enum UndoDigest {
    static let bytesPerField = 3

    /// The fingerprint of `record`'s fields `names`.
    static func of(_ record: Record, names: [String]) -> [UInt8] {
        var digest: [UInt8] = []
        digest.reserveCapacity(names.count * bytesPerField)
        for name in names {
            let value = record.fields[name].map { $0.json.bytes } ?? Array("-".utf8)
            digest += SHA256.hash(Array(name.utf8) + [0] + value).prefix(bytesPerField)
        }
        return digest
    }

    /// The names among `names` whose value in `record` differs from the one fingerprinted in `digest`.
    static func changed(_ record: Record, names: [String], since digest: [UInt8]) -> [String] {
        let now = of(record, names: names)
        guard now.count == digest.count else { return names }
        return names.indices.filter {
            now[($0 * bytesPerField)..<(($0 + 1) * bytesPerField)]
                != digest[($0 * bytesPerField)..<(($0 + 1) * bytesPerField)]
        }.map { names[$0] }
    }
}
