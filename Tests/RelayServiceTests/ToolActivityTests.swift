import RelayJSON
import RelayMCP
import RelayOAuth
import Testing

@testable import RelayService

/// What a successful tool call counts as on the connections page (issue 44): the tool's action,
/// one per single write, and for a batch the items whose result says `"ok": true` (the shape of
/// issue 44's batch tools, so the count works once they merge). Read tools count nothing.
struct ToolActivityTests {
    @Test func eachWriteToolCountsAsItsActionAndReadToolsCountNothing() {
        let one = ToolResult.structured(["id": "REC-1", "title": "anything"])
        let expected: [String: ConnectionAction] = [
            "add_todo": .added, "add_todos": .added, "update_todo": .updated, "complete_todo": .completed,
            "complete_todos": .completed, "snooze_todo": .snoozed, "snooze_todos": .snoozed, "delete_todo": .deleted,
            "delete_todos": .deleted, "undo": .undone,
        ]
        for (tool, action) in expected {
            let counted = ToolActivity.of(tool: tool, result: one)
            #expect(counted?.action == action && counted?.count == 1, "\(tool)")
        }
        for tool in ["get_me", "list_todos", "get_todo", "sign_in", "unknown"] {
            #expect(ToolActivity.of(tool: tool, result: one) == nil, "\(tool)")
        }
    }

    @Test func aBatchCountsOnlyItsItemsThatSucceeded() throws {
        let result = ToolResult.structured(
            try JSONValue(
                parsing: Array(
                    """
                    {"results": [
                      {"id": "A", "ok": true},
                      {"ok": false, "error": {"code": "NOT_FOUND", "message": "gone"}},
                      {"id": "B", "ok": true},
                      {"ok": false, "error": {"code": "INVALID_ARGUMENT", "message": "bad"}},
                      {"id": "C", "ok": true}
                    ], "undo": "u1.sealed"}
                    """.utf8)
            ).objectValue!)
        let counted = try #require(ToolActivity.of(tool: "complete_todos", result: result))
        #expect(counted.action == .completed && counted.count == 3)
        let added = try #require(ToolActivity.of(tool: "add_todos", result: result))
        #expect(added.count == 3)
        // Nothing succeeded: nothing to count. A truthy string is not `true`.
        let failed = ToolResult.structured([
            "results": [["ok": false, "error": ["code": "NOT_FOUND"]], ["id": "X", "ok": "true"]], "undo": "u",
        ])
        #expect(ToolActivity.of(tool: "delete_todos", result: failed) == nil)
    }
}
