import Foundation
import RelayCloudKit
import RelayEmulator
import RelayJSON
import Testing

/// Every tool that takes an `id` checks it against CloudKit's record-name rules before calling CloudKit: a name
/// CloudKit would refuse (not ASCII, too long for it and its Occurrences, starting with `_`, empty) is an
/// `INVALID_ARGUMENT` naming `id`, never an upstream error, and nothing goes upstream.
@Suite struct RecordNameToolTests {
    static let tools: [(String, JSONObject)] = [
        ("update_todo", ["title": "x"]), ("complete_todo", [:]), ("snooze_todo", ["until": "2026-06-11T09:00"]),
        ("delete_todo", [:]),
    ]
    static let badIDs = [
        "tödo", "to\u{0}do", "_private", "", String(repeating: "a", count: 245), "日本語",
    ]

    @Test func badIDsAreInvalidArgumentsNamingIDWithoutAnUpstreamCall() async throws {
        let harness = try ToolHarness()
        let alice = try harness.connect()
        let before = harness.emulator.statistics()["databaseRequests"]?.intValue
        for (tool, extra) in Self.tools {
            for id in Self.badIDs {
                var arguments = extra
                arguments["id"] = .string(id)
                let reply = try await harness.call(tool, .object(arguments), as: alice)
                #expect(reply.isError, "\(tool) \(id.prefix(10)): \(reply)")
                #expect(reply.content["error"]?["code"] == "INVALID_ARGUMENT", "\(tool): \(reply)")
                #expect(reply.content["error"]?["field"] == "id", "\(tool): \(reply)")
            }
        }
        #expect(harness.emulator.statistics()["databaseRequests"]?.intValue == before, "a bad id went upstream")
    }

    @Test func theLongestIDThatFitsGoesUpstreamAndIsSimplyNotFound() async throws {
        let harness = try ToolHarness()
        let alice = try harness.connect()
        let longest = String(repeating: "a", count: 244)  // + "|YYYY-MM-DD" = 255, CloudKit's limit
        for (tool, extra) in Self.tools {
            var arguments = extra
            arguments["id"] = .string(longest)
            let reply = try await harness.call(tool, .object(arguments), as: alice)
            #expect(reply.content["error"]?["code"] == "NOT_FOUND", "\(tool): \(reply)")
        }
        // And an id that exists with every printable ASCII character CloudKit allows works.
        let odd = "A-z 0.9|~!"
        try harness.seedAppTodo(alice, odd, due: "2026-06-10T20:00:00Z")
        let done = try await harness.call("complete_todo", ["id": .string(odd)], as: alice)
        #expect(!done.isError, "\(done)")
    }
}
