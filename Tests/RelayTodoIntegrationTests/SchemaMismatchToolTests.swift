import Foundation
import RelayEmulator
import RelayJSON
import Testing

/// What happens when production's schema lacks something the relay needs, as it would after a schema change
/// that was never deployed: the tool fails cleanly (an error result, nothing written, nothing logged with
/// content), whichever way CloudKit answers the refusal. `mustdo-relayctl cloudkit check` exists to catch this
/// before launch.
@Suite struct SchemaMismatchToolTests {
    static func without(_ field: String, in type: String) -> ContainerSchema {
        var schema = ContainerSchema.relay
        schema.recordTypes[type]?.fields[field] = nil
        return schema
    }

    @Test(arguments: ["perRecord", "wholeRequest"])
    func aFieldProductionLacksFailsTheWriteCleanly(schemaErrors: String) async throws {
        var settings = EmulatorSettings()
        settings.schemaErrors = schemaErrors
        let harness = try ToolHarness(settings: settings, schema: Self.without("source", in: "Todo"))
        let alice = try harness.connect()
        let reply = try await harness.call("add_todo", ["title": "Buy milk"], as: alice)
        #expect(reply.isError, "\(reply)")
        #expect(reply.errorCode == "INTERNAL_ERROR", "\(reply)")
        #expect(!reply.text.contains("Buy milk"))
        #expect(try harness.stored(alice, "Todo").isEmpty)
        // Logged with the kind (and status), never Apple's reason, which may quote values.
        #expect(harness.reportedErrors.count == 1)
        #expect(harness.reportedErrors.allSatisfy { $0.hasPrefix("add_todo: CloudKit badRequest") })
        #expect(!harness.reportedErrors.joined().contains("source"))
    }

    /// Production without `deletedAt` SORTABLE (every listing query sorts by it), and more records than one page
    /// of the change feed holds, so the query is needed.
    @Test func aMissingIndexFailsTheListingCleanly() async throws {
        var schema = ContainerSchema.relay
        schema.recordTypes["Todo"]?.fields["deletedAt"]?.sortable = false
        let harness = try ToolHarness(schema: schema)
        let alice = try harness.connect()
        for index in 0..<250 { try harness.seedAppTodo(alice, "t\(index)") }
        let reply = try await harness.call("list_todos", as: alice)
        #expect(reply.isError, "\(reply)")
        #expect(reply.errorCode == "INTERNAL_ERROR", "\(reply)")
        #expect(harness.reportedErrors == ["list_todos: CloudKit badRequest (HTTP 400 BAD_REQUEST)"])
    }
}
