import Foundation
import RelayEmulator
import RelayJSON
import Testing

/// Writes against the schema, as Apple's environments treat them: production refuses unknown record types,
/// unknown fields and values of the wrong type; development creates types and fields on first save.
@Suite struct EmulatorSchemaTests {
    static let zone: JSONValue = ["zoneName": "MustDo"]

    static func modify(_ operations: [JSONValue], atomic: Bool = false) -> JSONValue {
        ["zoneID": zone, "atomic": .bool(atomic), "operations": .array(operations)]
    }

    static func create(_ name: String, _ type: String, _ fields: JSONValue) -> JSONValue {
        [
            "operationType": "create",
            "record": ["recordName": .string(name), "recordType": .string(type), "fields": fields],
        ]
    }

    /// Every field the relay writes on a `Todo` (deploy/cloudkit/schema.ckdb), typed as the client sends them.
    static let fullTodo: JSONValue = [
        "title": ["value": "Buy milk", "type": "STRING"], "notes": ["value": "2 l", "type": "STRING"],
        "dueAt": ["value": 1_735_722_000_000, "type": "TIMESTAMP"],
        "timeZone": ["value": "Asia/Tokyo", "type": "STRING"],
        "sound": ["value": "bell", "type": "STRING"], "repeatRule": ["value": "{}", "type": "STRING"],
        "status": ["value": "pending", "type": "STRING"], "snoozedUntil": ["value": 1, "type": "TIMESTAMP"],
        "completedAt": ["value": 2, "type": "TIMESTAMP"], "deletedAt": ["value": 3, "type": "TIMESTAMP"],
        "source": ["value": "mcp", "type": "STRING"], "createdAt": ["value": 4, "type": "TIMESTAMP"],
        "changedAt": ["value": 5, "type": "TIMESTAMP"],
    ]

    @Test func productionAcceptsTheRelaysRecordsAndRefusesWhatTheSchemaLacks() async throws {
        let client = try EmulatorClient()
        let session = try Session(client)
        let reply = try await session.call(
            "records/modify",
            Self.modify([
                Self.create("t1", "Todo", Self.fullTodo),
                Self.create("n1", "Note", ["body": ["value": "x", "type": "STRING"]]),
                Self.create("t2", "Todo", ["title": ["value": "x"], "done": ["value": 1, "type": "INT64"]]),
                Self.create("t3", "Todo", ["title": ["value": 5, "type": "INT64"]]),
                Self.create("t4", "Todo", ["dueAt": ["value": "tomorrow"]]),
                Self.create("t5", "Todo", ["title": ["value": "untyped: the schema says STRING"]]),
            ]))
        #expect(reply.status == 200)
        let records = try #require(reply.json["records"]?.arrayValue)
        #expect(records[0]["recordChangeTag"] != nil)
        #expect(records[0]["fields"]?["dueAt"] == ["value": 1_735_722_000_000, "type": "TIMESTAMP"])
        let refusals = records[1...4].map { ($0["serverErrorCode"]?.stringValue, $0["reason"]?.stringValue) }
        #expect(refusals[0] == ("BAD_REQUEST", "Cannot create new type Note in production schema"))
        #expect(
            refusals[1] == ("BAD_REQUEST", "Cannot create or modify field 'done' in record 'Todo' in production schema")
        )
        #expect(
            refusals[2]
                == (
                    "BAD_REQUEST",
                    "invalid attempt to set value type INT64 for field 'title' for type 'Todo', defined to be: STRING"
                ))
        #expect(
            refusals[3] == (
                "BAD_REQUEST",
                "BadRequestException: Invalid value, expected type TIMESTAMP but actual value was a string"
            ))
        #expect(records[5]["fields"]?["title"]?["type"] == "STRING")
        // Nothing refused was written.
        let stored = try client.emulator.records(of: "alice@example.com").compactMap { $0["recordName"]?.stringValue }
        #expect(stored == ["t1", "t5"])
    }

    @Test func aSchemaRefusalCanFailTheWholeRequestOrAnAtomicBatch() async throws {
        let client = try EmulatorClient()
        let session = try Session(client)
        let bad = Self.create("t2", "Todo", ["done": ["value": 1, "type": "INT64"]])
        let atomic = try await session.call(
            "records/modify", Self.modify([Self.create("t1", "Todo", Self.fullTodo), bad], atomic: true))
        #expect(atomic.status == 400)
        #expect(atomic.json["records"]?[1]?["serverErrorCode"] == "BAD_REQUEST")
        #expect(atomic.json["records"]?[0]?["serverErrorCode"] == "ATOMIC_ERROR")

        client.emulator.updateSettings { $0.schemaErrors = "wholeRequest" }
        let whole = try await session.call(
            "records/modify", Self.modify([Self.create("t1", "Todo", Self.fullTodo), bad]))
        #expect(whole.status == 400)
        #expect(whole.json["serverErrorCode"] == "BAD_REQUEST")
        #expect(whole.json["reason"] == "Cannot create or modify field 'done' in record 'Todo' in production schema")
        #expect(try client.emulator.records(of: "alice@example.com").isEmpty)
    }

    @Test func developmentCreatesTypesAndFieldsOnFirstSave() async throws {
        let client = try EmulatorClient(environment: "development")
        let session = try Session(client)
        let reply = try await session.call(
            "records/modify",
            Self.modify([
                Self.create("n1", "Note", ["body": ["value": "x"], "tags": ["value": ["a"], "type": "STRING_LIST"]]),
                Self.create("t1", "Todo", ["done": ["value": 1]]),
                Self.create("t2", "Todo", ["empty": ["value": []]]),
                Self.create("t4", "Todo", ["not-a-name": ["value": 1]]),
                Self.create("x1", "_Hidden", ["body": ["value": "x"]]),
            ]))
        let records = try #require(reply.json["records"]?.arrayValue)
        #expect(records[0]["fields"]?["tags"] == ["value": ["a"], "type": "STRING_LIST"])
        #expect(records[1]["fields"]?["done"] == ["value": 1, "type": "INT64"])
        #expect(
            records[2]["reason"]
                == "cannot use an empty list to initialize a new field (field 'empty' in record type 'Todo' should be more precise)"
        )
        #expect(records[3]["reason"] == "BadRequestException: invalid field name 'not-a-name'")
        #expect(records[4]["reason"] == "BadRequestException: invalid record type name '_Hidden'")
        let development = client.emulator.schema(environment: "development")
        #expect(development.recordTypes["Note"]?.fields["tags"]?.type == FieldType(.string, list: true))
        #expect(development.recordTypes["Todo"]?.fields["done"]?.type == FieldType(.int64))
        #expect(development.recordTypes["Note"]?.fields["body"]?.queryable == false, "new fields have no index")
        #expect(client.emulator.schema(environment: "production") == .relay, "production never changes")
        // Once made, the field's type holds in development too.
        let again = try await session.call(
            "records/modify", Self.modify([Self.create("t3", "Todo", ["done": ["value": "yes", "type": "STRING"]])]))
        #expect(
            again.json["records"]?[0]?["reason"]
                == "invalid attempt to set value type STRING for field 'done' for type 'Todo', defined to be: INT64")
        // The control API shows each environment's schema as cktool would export it.
        let shown = try await client.control("/control/schema?environment=development")
        #expect(shown.json["schema"]?.stringValue?.contains("RECORD TYPE Note (") == true)
        let production = try await client.control("/control/schema")
        #expect(production.json["schema"]?.stringValue == ContainerSchema.relay.text)
    }

    @Test func whatDevelopmentCreatedSurvivesARestartWithAStateFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("emulator-\(UUID().uuidString).json")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let first = try EmulatorClient(EmulatorConfiguration(stateFile: path), environment: "development")
            let session = try Session(first)
            let saved = try await session.call(
                "records/modify", Self.modify([Self.create("n1", "Note", ["body": ["value": "x"]])]))
            #expect(saved.json["records"]?[0]?["recordChangeTag"] != nil)
            first.emulator.shutdown()
            await first.emulator.waitUntilStopped()
        }
        let second = try EmulatorClient(EmulatorConfiguration(stateFile: path), environment: "development")
        #expect(second.emulator.schema(environment: "development").recordTypes["Note"]?.fields["body"] != nil)
        #expect(second.emulator.schema(environment: "production") == .relay)
    }

    @Test func seededRecordsMustFitProductionsSchema() throws {
        let client = try EmulatorClient()
        #expect(throws: EmulatorError.self) {
            try client.emulator.seed(
                "alice@example.com",
                records: [["recordName": "x", "recordType": "Todo", "fields": ["done": ["value": 1]]]])
        }
        let lenient = try EmulatorClient(EmulatorConfiguration(lenientSchema: true))
        let seeded = try lenient.emulator.seed(
            "alice@example.com",
            records: [["recordName": "x", "recordType": "Thing", "fields": ["done": ["value": 1]]]])
        #expect(seeded.first?["fields"]?["done"] == ["value": 1, "type": "INT64"])
    }
}
