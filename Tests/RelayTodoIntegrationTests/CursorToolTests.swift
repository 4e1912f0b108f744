import Foundation
import RelayJSON
import Testing

/// Issue 42, point 5: `list_todos` cursors are integrity-protected and bound to the person. Before, 42 of 87
/// single-character edits were accepted and silently skipped or repeated entries.
@Suite struct CursorToolTests {
    func twoPages() throws -> (ToolHarness, ToolHarness.User) {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        let records: [JSONValue] = (0..<205).map { index in
            [
                "recordName": .string(String(format: "t%03d", index)), "recordType": "Todo",
                "fields": [
                    "title": field("n"), "status": field("pending"),
                    "dueAt": field(.int(1_781_000_000_000 + index * 60_000), "TIMESTAMP"),
                ],
            ]
        }
        try harness.emulator.seed(alice.appleID, records: records)
        return (harness, alice)
    }

    func ids(_ list: JSONValue?) -> [String] { list?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [] }

    @Test func everySingleCharacterEditIsRefusedOrChangesNothing() async throws {
        let (harness, alice) = try twoPages()
        let first = try await harness.call("list_todos", [:], as: alice)
        let cursor = try #require(first.content["nextCursor"]?.stringValue)
        let second = try await harness.call("list_todos", ["cursor": .string(cursor)], as: alice)
        let expected = ids(second.content["items"])
        #expect(expected == ["t200", "t201", "t202", "t203", "t204"])
        let characters = Array(cursor)
        var edits: [String] = []
        for index in characters.indices {
            var removed = characters
            removed.remove(at: index)
            edits.append(String(removed))
            for replacement in ["A", "b", "0", "-", "_", "."] where String(characters[index]) != replacement {
                var changed = characters
                changed[index] = Character(replacement)
                edits.append(String(changed))
            }
        }
        var accepted = 0
        for edit in edits {
            let reply = try await harness.call("list_todos", ["cursor": .string(edit)], as: alice)
            if reply.isError {
                #expect(reply.errorCode == "INVALID_ARGUMENT" && reply.errorField == "cursor", "\(reply)")
            } else {
                // Only an edit of the padding bits of the last character decodes to the same bytes.
                accepted += 1
                #expect(ids(reply.content["items"]) == expected, "\(edit)")
            }
        }
        #expect(accepted <= 3, "\(accepted) of \(edits.count) edits accepted")
    }

    @Test func anotherPersonsCursorIsRefused() async throws {
        let (harness, alice) = try twoPages()
        let bob = try harness.connect("bob@example.com")
        try harness.emulator.seed(
            bob.appleID,
            records: (0..<205).map { index in
                [
                    "recordName": .string(String(format: "t%03d", index)), "recordType": "Todo",
                    "fields": ["title": field("n"), "status": field("pending")],
                ]
            })
        let first = try await harness.call("list_todos", [:], as: alice)
        let cursor = try #require(first.content["nextCursor"]?.stringValue)
        let stolen = try await harness.call("list_todos", ["cursor": .string(cursor)], as: bob)
        #expect(stolen.isError && stolen.errorCode == "INVALID_ARGUMENT" && stolen.errorField == "cursor", "\(stolen)")
        let own = try await harness.call("list_todos", ["cursor": .string(cursor)], as: alice)
        #expect(!own.isError)
    }
}
