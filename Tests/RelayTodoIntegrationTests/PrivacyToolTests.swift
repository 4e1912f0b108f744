import Foundation
import RelayJSON
import Testing

/// To-do content (titles, notes, times) never reaches a log line, a metric label, an error message or an
/// error's description: errors carry codes and field names, and at most the days a model needs to retry
/// (the nearest occurrences of a repeat, in a message that only goes back to the caller), never a time.
@Suite struct PrivacyToolTests {
    @Test func aCanaryNeverLeavesTheResults() async throws {
        let canary = "canary-\(UUID().uuidString)"
        // Lenient schema: production would refuse Bob's mistyped record below; the relay must cope with one anyway.
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z", lenientSchema: true)
        let alice = try harness.connect()
        // Bob's app wrote a Todo the relay cannot decode (a field with another type); list_todos skips it.
        let bob = try harness.connect("bob@example.com")
        try harness.seedTodo(bob, "odd", ["title": field(7, "INT64"), "notes": field(.string(canary))])
        #expect(try harness.stored(bob, "Todo")["odd"] != nil)
        var failures: [ToolReply] = []
        func call(_ tool: String, _ arguments: JSONValue, as user: ToolHarness.User? = nil) async throws -> ToolReply {
            let reply = try await harness.call(tool, arguments, as: user ?? alice)
            if reply.isError { failures.append(reply) }
            return reply
        }
        let added = try await call(
            "add_todo", ["title": .string(canary), "notes": .string(canary), "due": "2026-06-11T07:13"])
        let id = try #require(added.content["todo"]?["id"])
        #expect(added.text.contains(canary))
        _ = try await call("list_todos", ["status": "all"])
        _ = try await call("update_todo", ["id": id, "title": .string(canary + "!"), "due": "2026-06-12T07:13"])
        _ = try await call("snooze_todo", ["id": id, "until": "2026-06-09T07:13"])
        _ = try await call("update_todo", ["id": id, "title": .string(String(repeating: canary, count: 10))])
        _ = try await call("add_todo", ["title": .string(canary), "sound": .string(canary)])
        _ = try await call("add_todo", ["title": .string(canary), "due": .string(canary)])
        _ = try await call("add_todo", ["title": .string(canary), "repeat": ["kind": .string(canary)]])
        _ = try await call("update_todo", ["id": .string(canary), "notes": .string(canary)])
        // CloudKit refusing a write with a reason that quotes the value: the reason stays out of the log.
        harness.emulator.injectItemFault(serverErrorCode: "BAD_REQUEST", reason: "bad value \(canary)")
        _ = try await call("update_todo", ["id": id, "notes": .string(canary + "?")])
        harness.emulator.injectItemFault(serverErrorCode: "CONFLICT", count: 2)
        _ = try await call("complete_todo", ["id": id])
        #expect(try await call("list_todos", [:], as: bob).content["items"] == [])
        _ = try await call("update_todo", ["id": "odd", "title": "x"], as: bob)
        // search and fetch hand the content back to the caller only; their refusals never quote it.
        let found = try await call("search", ["query": .string(canary)])
        let firstFound: JSONValue? = found.content["results"]?.arrayValue?.first?["id"]
        #expect(firstFound == id, "\(found)")
        #expect(found.text.contains(canary), "\(found)")
        #expect(try await call("fetch", ["id": id]).content["text"]?.stringValue?.contains(canary) == true)
        _ = try await call("search", ["query": .string(String(repeating: canary + " ", count: 30))])
        _ = try await call("fetch", ["id": .string(canary)])
        _ = try await call("fetch", ["id": .string(canary + "é")])
        // Bob's undecodable record is skipped by search (its notes hold the canary) and refused by fetch.
        #expect(try await call("search", ["query": .string(canary)], as: bob).content["results"] == [])
        _ = try await call("fetch", ["id": "odd"], as: bob)
        _ = try await call("delete_todo", ["id": id])

        #expect(failures.count == 14, "\(failures)")
        for reply in failures {
            #expect(!reply.text.contains(canary), "\(reply)")
            #expect(!reply.content.jsonString.contains(canary), "\(reply)")
            #expect(!reply.text.contains("07:13"), "\(reply)")
        }
        #expect(
            harness.reportedErrors == [
                "update_todo: CloudKit badRequest", "update_todo: CloudKit invalidRecord",
                "fetch: CloudKit invalidRecord",
            ])
        let logged = harness.toolCalls.map { "\($0.tool) \($0.outcome) \($0.duration)" } + harness.reportedErrors
        #expect(logged.count == 24)
        for line in logged { #expect(!line.contains(canary) && !line.contains("07:13"), "\(line)") }
    }
}
