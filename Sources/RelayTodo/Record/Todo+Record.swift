import Foundation
import RelayJSON

extension Todo {
    /// The CloudKit record type.
    public static let recordType = "Todo"

    /// A to-do from a `Todo` record's name and `fields` (wire form). Values this version does not know are
    /// read leniently: an unknown status is pending, an unknown source is app, an unknown sound is nil, a
    /// repeat rule is read member by member (`RepeatRule(recordValue:)`).
    public init(recordName: String, fields: JSONObject) {
        self.init(
            id: recordName, title: RecordFields.string(fields, "title") ?? "",
            notes: RecordFields.string(fields, "notes"), dueAt: RecordFields.timestamp(fields, "dueAt"),
            timeZone: RecordFields.string(fields, "timeZone"),
            sound: RecordFields.string(fields, "sound").flatMap(Sound.init(rawValue:)),
            repeatRule: RecordFields.string(fields, "repeatRule").flatMap(RepeatRule.init(recordValue:)),
            status: RecordFields.string(fields, "status").flatMap(TodoStatus.init(rawValue:)) ?? .pending,
            snoozedUntil: RecordFields.timestamp(fields, "snoozedUntil"),
            completedAt: RecordFields.timestamp(fields, "completedAt"),
            deletedAt: RecordFields.timestamp(fields, "deletedAt"),
            source: RecordFields.string(fields, "source").flatMap(TodoSource.init(rawValue:)) ?? .app,
            createdAt: RecordFields.timestamp(fields, "createdAt"),
            changedAt: RecordFields.timestamp(fields, "changedAt"))
    }

    /// The wire `fields` for `fields` (all by default). A field without a value is `{"value": null}` with its
    /// type, which an `update` operation needs to clear it; for `create` pass only the fields that have values
    /// (`recordFields(nonNil: true)`).
    public func recordFields(_ fields: Set<TodoField> = Set(TodoField.allCases), nonNil: Bool = false) -> JSONObject {
        var object = JSONObject()
        for field in fields.sorted() {
            let value: JSONValue
            switch field {
            case .title: value = RecordFields.string(title)
            case .notes: value = RecordFields.string(notes)
            case .dueAt: value = RecordFields.timestamp(dueAt)
            case .timeZone: value = RecordFields.string(timeZone)
            case .sound: value = RecordFields.string(sound?.rawValue)
            case .repeatRule: value = RecordFields.string(repeatRule?.recordValue)
            case .status: value = RecordFields.string(status.rawValue)
            case .snoozedUntil: value = RecordFields.timestamp(snoozedUntil)
            case .completedAt: value = RecordFields.timestamp(completedAt)
            case .deletedAt: value = RecordFields.timestamp(deletedAt)
            case .source: value = RecordFields.string(source.rawValue)
            case .createdAt: value = RecordFields.timestamp(createdAt)
            case .changedAt: value = RecordFields.timestamp(changedAt)
            }
            if nonNil && value["value"] == .null { continue }
            object[field.rawValue] = value
        }
        return object
    }
}
