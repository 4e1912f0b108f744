import Foundation
import RelayCloudKit
import RelayEmulator
import Testing

/// `deploy/cloudkit/schema.ckdb` is the single source of the relay's record types and fields: every field a
/// record codec writes is declared there with the type the codec sends, and the file declares nothing the codecs
/// do not know. Change a codec or the file alone and this fails (the emulator's default schema is held to the
/// same file by `SchemaLanguageTests`).
@Suite struct RecordSchemaFileTests {
    static func schemaFile() throws -> ContainerSchema {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(
            contentsOf: repository.appendingPathComponent("deploy/cloudkit/schema.ckdb"), encoding: .utf8)
        return try ContainerSchema(parsing: text)
    }

    static let moment = Date(cloudKitMilliseconds: 1_735_722_000_000)

    /// Each codec's record with every field set: field name → the type tag it goes upstream with.
    static let written: [String: Record] = [
        "Todo": TodoRecord(
            id: "t", title: "t", notes: "n", dueAt: moment, timeZone: "UTC", sound: "bell", repeatRule: "{}",
            status: .pending, snoozedUntil: moment, completedAt: moment, deletedAt: moment, source: .mcp,
            createdAt: moment, changedAt: moment
        ).record(),
        "Occurrence": OccurrenceRecord(
            todoId: "t", date: "2026-01-01", state: .snoozed, snoozedUntil: moment, changedAt: moment
        ).record(),
        "Account": AccountRecord(
            locale: "ja_JP", timeZone: "Asia/Tokyo", defaultTime: "09:00", quietHoursStart: "22:00",
            quietHoursEnd: "07:00", trialStartedAt: moment, subscribedUntil: moment, canAddTodos: true,
            changedAt: moment
        ).record(),
    ]

    @Test func everyCodecFieldIsInTheSchemaFileWithItsType() throws {
        let schema = try Self.schemaFile()
        let defaults = RecordSchema()
        #expect(
            Set(Self.written.keys) == [
                defaults.todo.recordType, defaults.occurrence.recordType, defaults.account.recordType,
            ])
        #expect(Set(schema.recordTypes.keys) == Set(Self.written.keys).union(["Users"]), "Users is CloudKit's own")
        for (type, record) in Self.written {
            #expect(record.recordType == type)
            let declared = try #require(schema.recordTypes[type]).declaredFields
            let schemaFields = Dictionary(uniqueKeysWithValues: declared.map { ($0.name, $0.type) })
            let codecFields = record.fields.mapValues { $0.json["type"]?.stringValue ?? "?" }
            #expect(
                Set(schemaFields.keys) == Set(codecFields.keys), "\(type): the codec and the file list other fields")
            for (name, tag) in codecFields {
                let type = try #require(schemaFields[name], "\(type).\(name) is not in deploy/cloudkit/schema.ckdb")
                #expect(type.wireTags.contains(tag), "\(name): the codec sends \(tag), the file says \(type)")
            }
        }
    }

    @Test func theRecordsTheCodecsWriteAreAcceptedByProductionWithTheFile() async throws {
        let harness = try Harness(schema: try Self.schemaFile())
        let token = try harness.signIn()
        let operations = Self.written.values.map { RecordOperation(.forceReplace, $0) }
        let saved = try await harness.client.modify(operations, token: token)
        #expect(saved.value.allSatisfy { $0.record != nil }, "\(saved.value)")
        // And a field the file lacks is refused: the test would catch a codec that grew one.
        var extra = Self.written["Todo"]!
        extra.fields["priority"] = .int64(1)
        let refused = try await harness.client.modify(
            [RecordOperation(.forceReplace, extra)], token: saved.nextToken(after: token))
        #expect(refused.value.first?.error?.kind == .badRequest)
        #expect(
            refused.value.first?.error?.reason
                == "Cannot create or modify field 'priority' in record 'Todo' in production schema")
    }
}
