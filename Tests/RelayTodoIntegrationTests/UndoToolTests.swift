import Foundation
import RelayCrypto
import RelayJSON
import RelayMCP
import RelayTodo
import Testing

/// Issue 44, undo: every write's handle puts back exactly the record the write changed (read back from the
/// emulator's store), refuses a change made since (and a race, through CloudKit's change tag), and refuses a
/// forged, another person's or an expired handle, writing nothing.
@Suite struct UndoToolTests {
    /// The stored record before, a write, its undo: the stored fields are the ones before, field for field
    /// (`changedAt` too: the write is taken out of the record's history, as if it never happened).
    static let writes: [(String, JSONValue)] = [
        ("update_todo", ["id": "a", "title": "New title", "notes": nil, "due": "2026-06-20T10:00"]),
        ("complete_todo", ["id": "a"]), ("snooze_todo", ["id": "a", "until": "2026-06-12T18:00"]),
        ("delete_todo", ["id": "a"]),
    ]

    @Test(arguments: writes)
    func undoPutsBackTheExactRecord(tool: String, arguments: JSONValue) async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAppTodo(
            alice, "a", extra: ["notes": field("Bring the form"), "snoozedUntil": timestamp("2026-06-12T09:30:00Z")])
        let before = try harness.fields(alice, "a")
        let write = try await harness.call(tool, arguments, as: alice)
        #expect(!write.isError, "\(write)")
        #expect(try harness.fields(alice, "a") != before, "the write changed the record")
        let handle = try #require(write.content["undo"]?.stringValue)
        harness.clock.set("2026-06-10T12:05:00Z")
        let undone = try await harness.call("undo", ["undo": .string(handle)], as: alice)
        #expect(!undone.isError, "\(undone)")
        #expect(undone.content["results"] == [["id": "a", "ok": true]], "\(undone)")
        #expect(try harness.fields(alice, "a") == before)
        // A second undo finds the record changed (by the undo itself) and refuses.
        let again = try await harness.call("undo", ["undo": .string(handle)], as: alice)
        #expect(again.errorCode == "CONFLICT", "\(again)")
        #expect(try harness.fields(alice, "a") == before)
    }

    /// A one-off that was done: the snooze reopened it (status, completedAt, snoozedUntil); undo closes it again.
    @Test func undoOfASnoozeThatReopenedADoneToDo() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAppTodo(
            alice, "a", extra: ["status": field("done"), "completedAt": timestamp("2026-06-09T08:00:00Z")])
        let before = try harness.fields(alice, "a")
        let snoozed = try await harness.call("snooze_todo", ["id": "a", "until": "2026-06-12T18:00"], as: alice)
        #expect(try harness.fields(alice, "a")["status"] == field("pending"), "\(snoozed)")
        let undone = try await harness.call("undo", ["undo": snoozed.content["undo"] ?? .null], as: alice)
        #expect(!undone.isError, "\(undone)")
        #expect(try harness.fields(alice, "a") == before)
    }

    /// Occurrence actions: a day that had no record loses the one the write created; a day that had one (snoozed
    /// by the app) gets it back exactly; the "tomorrow" button's skip goes too. The template is never touched.
    @Test func undoOfOccurrenceActionsPutsTheDaysBack() async throws {
        let harness = try ToolHarness(now: "2026-06-10T06:00:00Z")
        let alice = try harness.connect()
        try harness.seedAppTodo(alice, "r", due: "2026-06-01T09:00:00Z", extra: ["repeatRule": dailyRule])
        try harness.seedOccurrence(
            alice, "r", "2026-06-11", state: "snoozed", snoozedUntil: "2026-06-11T10:00:00Z",
            changedAt: "2026-06-09T00:00:00Z")
        let template = try harness.stored(alice, "Todo")["r"]
        let days = try harness.stored(alice, "Occurrence")

        let done = try await harness.call("complete_todo", ["id": "r"], as: alice)
        let doneOver = try await harness.call("complete_todo", ["id": "r", "occurrenceDate": "2026-06-11"], as: alice)
        let skipped = try await harness.call(
            "snooze_todo", ["id": "r", "occurrenceDate": "2026-06-12", "until": "2026-06-13"], as: alice)
        #expect(skipped.content["snoozedUntil"] == .null, "\(skipped)")
        #expect(try harness.stored(alice, "Occurrence").count == 3)

        for reply in [done, doneOver, skipped] {
            let undone = try await harness.call("undo", ["undo": reply.content["undo"] ?? .null], as: alice)
            #expect(undone.content["results"] == [["id": "r", "ok": true]], "\(undone)")
        }
        let after = try harness.stored(alice, "Occurrence")
        #expect(Array(after.keys) == ["r|2026-06-11"])
        #expect(after["r|2026-06-11"]?["fields"] == days["r|2026-06-11"]?["fields"])
        #expect(try harness.stored(alice, "Todo")["r"] == template)
    }

    /// An add is undone by a soft delete, as the app deletes: the record stays with `deletedAt` until the app
    /// purges it, and it is gone from list_todos.
    @Test func undoOfAnAddSoftDeletesIt() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        let added = try await harness.call("add_todo", ["title": "Call the plumber"], as: alice)
        let id = try #require(added.content["todo"]?["id"]?.stringValue)
        harness.clock.set("2026-06-10T12:01:00Z")
        let undone = try await harness.call("undo", ["undo": added.content["undo"] ?? .null], as: alice)
        #expect(undone.content["results"] == [["id": .string(id), "ok": true]], "\(undone)")
        let fields = try harness.fields(alice, id)
        #expect(fields["deletedAt"] == timestamp("2026-06-10T12:01:00Z"))
        #expect(fields["changedAt"] == timestamp("2026-06-10T12:01:00Z"))
        #expect(fields["title"] == field("Call the plumber"))
        let listed = try await harness.call("list_todos", ["status": "all"], as: alice)
        #expect(listed.content["items"] == [], "\(listed)")
    }

    /// A write that changed nothing still answers with a handle; undoing it changes nothing.
    @Test func undoOfAWriteThatChangedNothing() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAppTodo(alice, "a", extra: ["status": field("done")])
        let tag = try harness.changeTag(alice, "a")
        let done = try await harness.call("complete_todo", ["id": "a"], as: alice)
        #expect(done.content["alreadyDone"] == true, "\(done)")
        let undone = try await harness.call("undo", ["undo": done.content["undo"] ?? .null], as: alice)
        #expect(!undone.isError && undone.content["results"] == [], "\(undone)")
        #expect(try harness.changeTag(alice, "a") == tag)
    }

    /// Changed since (the app renamed it and marked it done): undo refuses, names what changed, and the
    /// record keeps the newer change. A race is refused by CloudKit's change tag: the emulator, as Apple,
    /// refuses a `replace` with a stale tag (here injected between the undo's lookup and its write).
    @Test func aChangeSinceIsNeverOverwritten() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAppTodo(alice, "a")
        let update = try await harness.call("update_todo", ["id": "a", "title": "Renamed by the AI"], as: alice)
        var fields = try harness.fields(alice, "a").objectValue ?? [:]
        fields["title"] = field("Renamed in the app")
        fields["status"] = field("done")
        fields["changedAt"] = timestamp("2026-06-10T12:03:00Z")
        try harness.seedTodo(alice, "a", fields)
        let changed = try harness.stored(alice, "Todo")["a"]
        let refused = try await harness.call("undo", ["undo": update.content["undo"] ?? .null], as: alice)
        #expect(refused.isError && refused.errorCode == "CONFLICT", "\(refused)")
        #expect(refused.text.contains("title, status"), "\(refused.text)")
        #expect(refused.text.contains("never overwrites a newer change"), "\(refused.text)")
        #expect(try harness.stored(alice, "Todo")["a"] == changed)

        // The race: nothing changed before the lookup, but CloudKit refuses the conditional write.
        let again = try await harness.call("update_todo", ["id": "a", "title": "Once more"], as: alice)
        let before = try harness.stored(alice, "Todo")["a"]
        harness.emulator.injectItemFault(serverErrorCode: "CONFLICT", recordName: "a")
        let raced = try await harness.call("undo", ["undo": again.content["undo"] ?? .null], as: alice)
        #expect(raced.errorCode == "CONFLICT", "\(raced)")
        #expect(raced.text.contains("at the same moment"), "\(raced.text)")
        #expect(try harness.stored(alice, "Todo")["a"] == before)
    }

    /// A real race: the app saves the to-do after undo's lookup and before its write. Undo's `replace` carries the
    /// change tag it checked, the emulator refuses it as Apple documents (CONFLICT), and the app's change stays.
    @Test func theAppWritingBetweenUndosLookupAndWriteWins() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let signedIn = try harness.connect("bob@example.com")
        try harness.seedAppTodo(signedIn, "a")
        let update = try await harness.call("update_todo", ["id": "a", "title": "By the AI"], as: signedIn)
        let interposed = FakeInterposingSession(signedIn.session) { call in
            // Call 1 is undo's lookup, call 2 its write.
            guard call == 2 else { return }
            _ = try? harness.seedAppTodo(
                signedIn, "a", title: "By the app", extra: ["changedAt": timestamp("2026-06-10T12:01:00Z")])
        }
        let bob = try harness.connect("bob@example.com", session: interposed)
        let raced = try await harness.call("undo", ["undo": update.content["undo"] ?? .null], as: bob)
        #expect(raced.errorCode == "CONFLICT" && raced.text.contains("at the same moment"), "\(raced)")
        #expect(try harness.fields(signedIn, "a")["title"] == field("By the app"))
        #expect(try harness.fields(signedIn, "a")["changedAt"] == timestamp("2026-06-10T12:01:00Z"))
    }

    /// An edited handle, another person's, one of another key (another deployment, or a process that is gone) and
    /// an expired one are refused before any CloudKit call; nothing changes.
    @Test func forgedForeignAndExpiredHandlesAreRefused() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        let bob = try harness.connect("bob@example.com")
        try harness.seedAppTodo(alice, "a")
        let deleted = try await harness.call("delete_todo", ["id": "a"], as: alice)
        let handle = try #require(deleted.content["undo"]?.stringValue)
        let stored = try harness.stored(alice, "Todo")["a"]
        let calls = harness.emulator.statistics()["databaseRequests"]

        var edited = Array(handle)
        edited[edited.count / 2] = edited[edited.count / 2] == "A" ? "B" : "A"
        let foreignKey = UndoSeal(toolKey: SymmetricKey.random(), owner: alice.appleID).seal(
            UndoHandle(expires: 1_900_000_000, entries: []))
        for forged in [String(edited), String(handle.dropLast(4)), "u1.", "not a handle", foreignKey] {
            let reply = try await harness.call("undo", ["undo": .string(forged)], as: alice)
            #expect(reply.errorCode == "INVALID_ARGUMENT" && reply.errorField == "undo", "\(reply)")
        }
        let asBob = try await harness.call("undo", ["undo": .string(handle)], as: bob)
        #expect(asBob.errorCode == "INVALID_ARGUMENT" && asBob.errorField == "undo", "\(asBob)")
        #expect(harness.emulator.statistics()["databaseRequests"] == calls, "refused before any CloudKit call")

        harness.clock.set("2026-06-11T12:00:01Z")
        let expired = try await harness.call("undo", ["undo": .string(handle)], as: alice)
        #expect(expired.errorCode == "INVALID_ARGUMENT" && expired.text.contains("expired"), "\(expired)")
        #expect(try harness.stored(alice, "Todo")["a"] == stored)

        // Just inside the day it still works.
        harness.clock.set("2026-06-11T11:59:59Z")
        let inTime = try await harness.call("undo", ["undo": .string(handle)], as: alice)
        #expect(!inTime.isError, "\(inTime)")
    }

    /// Works across instances: a handle made by one is taken by another built from the same key material (the
    /// hosted relay's user-ID key, `MCPFeatures.tools`), not from anything in the first one's memory; another
    /// deployment's tools refuse it.
    @Test func aHandleWorksOnAnotherInstanceWithTheSameKeyMaterial() async throws {
        let key = SymmetricKey.random()
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z", cursorKey: key)
        let alice = try harness.connect()
        try harness.seedAppTodo(alice, "a")
        let before = try harness.fields(alice, "a")
        let deleted = try await harness.call("delete_todo", ["id": "a"], as: alice)
        let arguments: JSONObject = ["undo": deleted.content["undo"] ?? .null]
        let context = ToolContext(
            principal: TestGrant(user: alice.appleID, session: alice.session), protocolVersion: .v2025_06_18,
            requestID: .int(1))
        func undo(on key: SymmetricKey) async throws -> ToolResult {
            let tools: [any Tool<TestGrant>] = TodoTools.tools(
                client: harness.client, clock: { harness.clock.now }, cursorKey: key)
            let tool = try #require(tools.first { $0.definition.name == "undo" })
            return try await tool.call(arguments, context: context)
        }
        await #expect {
            _ = try await undo(on: SymmetricKey.random())
        } throws: { error in
            (error as? ToolError)?.code == "INVALID_ARGUMENT"
        }
        #expect(try harness.fields(alice, "a") != before)
        let copy = SymmetricKey(bytes: key.withUnsafeBytes { Array($0) })
        let result = try await undo(on: copy)
        #expect(result.structuredContent?["results"] == [["id": "a", "ok": true]], "\(result)")
        #expect(try harness.fields(alice, "a") == before)
    }

    /// The handle carries the previous values sealed: neither the old title nor its base64 shows in it.
    @Test func theHandleShowsNoContent() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        let canary = "CANARY-undo-7f3a"
        try harness.seedAppTodo(alice, "a", title: canary)
        let update = try await harness.call("update_todo", ["id": "a", "title": "Other"], as: alice)
        let handle = try #require(update.content["undo"]?.stringValue)
        #expect(handle.hasPrefix("u1."))
        for shown in [canary, String(Data(canary.utf8).base64EncodedString().dropLast(2))] {
            #expect(!handle.contains(shown))
        }
        #expect(!handle.contains("title"))
    }

    /// Scopes hold: a read-only connection cannot undo (`todos:write`), and nothing changes.
    @Test func aReadOnlyConnectionCannotUndo() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAppTodo(alice, "a")
        let deleted = try await harness.call("delete_todo", ["id": "a"], as: alice)
        let stored = try harness.stored(alice, "Todo")["a"]
        let reader = try harness.connect(scopes: [TodoScope.read])
        let reply = try await harness.call("undo", ["undo": deleted.content["undo"] ?? .null], as: reader)
        #expect(reply.status == 403, "\(reply)")
        #expect(reply.headers["www-authenticate"]?.contains("insufficient_scope") == true, "\(reply)")
        #expect(try harness.stored(alice, "Todo")["a"] == stored)
    }
}
