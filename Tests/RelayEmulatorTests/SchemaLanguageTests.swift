import Foundation
import RelayEmulator
import Testing

/// The CloudKit Schema Language parser, and `deploy/cloudkit/schema.ckdb` as the single source of the relay's
/// record types: the emulator's default schema is that file's text, word for word.
@Suite struct SchemaLanguageTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func schemaFile() throws -> String {
        try String(
            contentsOf: repository.appendingPathComponent("deploy/cloudkit/schema.ckdb"), encoding: .utf8)
    }

    @Test func theDefaultSchemaIsTheSchemaFile() throws {
        let file = try Self.schemaFile()
        #expect(
            ContainerSchema.relayText + "\n" == file,
            "edit deploy/cloudkit/schema.ckdb and ContainerSchema+Relay.swift together")
        let parsed = try ContainerSchema(parsing: file)
        #expect(parsed == ContainerSchema.relay)
        // Laid out as cktool export-schema writes it: printing the parsed file gives the file back.
        #expect(parsed.text == file)
        #expect(Set(parsed.recordTypes.keys) == ["Account", "Occurrence", "Todo", "Users"])
        let todo = try #require(parsed.recordTypes["Todo"])
        #expect(todo.fields["___recordID"]?.queryable == true, "list_todos queries Todo with no filter")
        #expect(parsed.recordTypes["Occurrence"]?.fields["todoId"]?.queryable == true, "todoId IN […]")
        #expect(parsed.recordTypes["Occurrence"]?.fields["___recordID"]?.queryable == false)
        #expect(todo.fields["dueAt"]?.type == FieldType(.timestamp))
        #expect(parsed.recordTypes["Users"]?.fields["roles"]?.type == FieldType(.int64, list: true))
    }

    @Test func grammar() throws {
        let schema = try ContainerSchema(
            parsing: """
                // A line comment
                define schema
                    CREATE ROLE DeptManager;
                    -- another comment
                    RECORD TYPE Department (
                        "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                        "___recordID" REFERENCE QUERYABLE,
                        name STRING SEARCHABLE,
                        "grant" STRING,
                        phone LIST<STRING>,
                        place LOCATION,
                        secret ENCRYPTED BYTES,
                        score NUMBER PREFERRED AS DOUBLE,
                        /* a block
                           comment */
                        GRANT WRITE, CREATE, READ TO DeptManager,
                        GRANT READ TO "_world"
                    );
                """)
        let type = try #require(schema.recordTypes["Department"])
        #expect(schema.roles == ["DeptManager"])
        #expect(type.fields["___createTime"]?.sortable == true)
        #expect(type.fields["name"]?.searchable == true)
        #expect(type.fields["grant"]?.type == FieldType(.string))
        #expect(type.fields["phone"]?.type.wireTags == ["STRING_LIST"])
        #expect(type.fields["secret"]?.type.wireTags == ["BYTES", "ENCRYPTED_BYTES"])
        #expect(type.fields["score"]?.type.wireTags == ["DOUBLE"])
        #expect(type.fields["___modTime"]?.type == FieldType(.timestamp), "system fields are implicit")
        #expect(type.grants == ["GRANT WRITE, CREATE, READ TO DeptManager", "GRANT READ TO _world"])
        #expect(try ContainerSchema(parsing: schema.text) == schema)
    }

    @Test(arguments: [
        ("RECORD TYPE A ( x STRING );", "line 1: expected DEFINE"),
        ("DEFINE SCHEMA RECORD TYPE A ( x STRING )", "expected \";\""),
        ("DEFINE SCHEMA\nRECORD TYPE A (\n x BOOLEAN\n);", "line 3: expected a data type"),
        ("DEFINE SCHEMA RECORD TYPE A ( queryable STRING );", "reserved word"),
        ("DEFINE SCHEMA RECORD TYPE A ( x STRING, x INT64 );", "defined twice"),
        ("DEFINE SCHEMA RECORD TYPE A ( x STRING ); RECORD TYPE A ( y STRING );", "defined twice"),
        ("DEFINE SCHEMA RECORD TYPE A ( \"___recordID\" STRING );", "is REFERENCE"),
        ("DEFINE SCHEMA RECORD TYPE A ( \"___other\" STRING );", "not a CloudKit system field"),
        ("DEFINE SCHEMA RECORD TYPE A ( x STRING, GRANT READ TO Nobody );", "neither built in nor created"),
        ("DEFINE SCHEMA RECORD TYPE A ( x INT64 SEARCHABLE );", "SEARCHABLE needs a STRING"),
        ("DEFINE SCHEMA RECORD TYPE A ( x STRING, );", "expected a field name"),
        ("DEFINE SCHEMA RECORD TYPE A ( x STRING ); /* open", "never closed"),
        ("DEFINE SCHEMA RECORD TYPE \"_A\" ( x STRING );", "names starting with _"),
        ("DEFINE SCHEMA RECORD TYPE A ( x ENCRYPTED REFERENCE );", "cannot be ENCRYPTED"),
    ])
    func invalidSchemasAreRefusedWithTheLine(text: String, message: String) {
        do {
            _ = try ContainerSchema(parsing: text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.reason.contains(message), "\(error.reason)")
            #expect(error.reason.hasPrefix("schema line "), "\(error.reason)")
        }
    }

    @Test func commandLineLoadsASchemaFileAndTheOtherSwitches() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString).ckdb")
        defer { try? FileManager.default.removeItem(at: path) }
        try "DEFINE SCHEMA RECORD TYPE Note ( body STRING );".write(to: path, atomically: true, encoding: .utf8)
        let configuration = try #require(
            try EmulatorCommand.parse([
                "--schema", path.path, "--no-zone", "--schema-errors", "wholeRequest",
            ]))
        #expect(Set(configuration.schema.recordTypes.keys) == ["Note"])
        #expect(configuration.createsZoneAtSignIn == false)
        #expect(configuration.lenientSchema == false)
        #expect(configuration.settings.schemaErrors == "wholeRequest")
        #expect(try EmulatorCommand.parse(["--lenient-schema"])?.lenientSchema == true)
        #expect(try EmulatorCommand.parse([])?.schema == .relay)

        try "DEFINE SCHEMA RECORD TYPE Note ( body TEXT );".write(to: path, atomically: true, encoding: .utf8)
        #expect(throws: EmulatorError.self) { try EmulatorCommand.parse(["--schema", path.path]) }
        #expect(throws: EmulatorError.self) { try EmulatorCommand.parse(["--schema", "/nonexistent.ckdb"]) }
        #expect(throws: EmulatorError.self) { try EmulatorCommand.parse(["--schema-errors", "sometimes"]) }
    }
}
