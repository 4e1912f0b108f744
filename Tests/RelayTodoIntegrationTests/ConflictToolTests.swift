import Foundation
import RelayJSON
import Testing

/// Merge-and-retry on CONFLICT (the app's sync rule): fetch the server copy, re-apply only this call's fields
/// if this call's changedAt is newer, save once more; only then CONFLICT.
@Suite struct ConflictToolTests {
    static let id = "0d1e2f3a-4b5c-4d6e-8f70-000000000002"

    @Test func anInjectedConflictIsMergedAndSaved() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAppTodo(alice, Self.id)
        harness.emulator.injectItemFault(serverErrorCode: "CONFLICT", count: 1, recordName: Self.id)
        let reply = try await harness.call("update_todo", ["id": .string(Self.id), "title": "Ours"], as: alice)
        #expect(!reply.isError, "\(reply)")
        #expect(try harness.fields(alice, Self.id)["title"] == field("Ours"))
        #expect(harness.emulator.statistics()["faultsServed"] == 1)
    }

    @Test func conflictTwiceIsReportedAndNothingChanges() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAppTodo(alice, Self.id)
        let before = try harness.fields(alice, Self.id)
        harness.emulator.injectItemFault(serverErrorCode: "CONFLICT", count: 2, recordName: Self.id)
        let reply = try await harness.call("update_todo", ["id": .string(Self.id), "title": "Ours"], as: alice)
        #expect(reply.isError && reply.errorCode == "CONFLICT", "\(reply)")
        #expect(reply.errorField == nil)
        #expect(try harness.fields(alice, Self.id) == before)
        #expect(harness.emulator.statistics()["faultsServed"] == 2)
    }

    /// The app saves between the tool's read and its write: the write gets a real CONFLICT (stale change tag).
    /// (app's changedAt, whether our title survives)
    @Test(arguments: [("2026-06-10T11:00:00Z", true), ("2026-06-10T12:30:00Z", false)])
    func theAppWroteInBetween(appChangedAt: String, oursWins: Bool) async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let signedIn = try harness.connect("bob@example.com")
        try harness.seedAppTodo(signedIn, Self.id, extra: ["notes": field("old notes")])
        let interposed = FakeInterposingSession(signedIn.session) { call in
            // Call 1 is the lookup, call 2 the write.
            guard call == 2 else { return }
            _ = try? harness.seedAppTodo(
                signedIn, Self.id,
                extra: ["notes": field("app's notes"), "changedAt": timestamp(appChangedAt)])
        }
        let bob = try harness.connect("bob@example.com", session: interposed)
        let reply = try await harness.call("update_todo", ["id": .string(Self.id), "title": "Ours"], as: bob)
        let fields = try harness.fields(bob, Self.id)
        #expect(fields["notes"] == field("app's notes"))
        if oursWins {
            #expect(!reply.isError, "\(reply)")
            #expect(reply.content["todo"]?["title"] == "Ours")
            #expect(reply.content["todo"]?["notes"] == "app's notes")
            #expect(fields["title"] == field("Ours"))
            #expect(fields["changedAt"] == timestamp("2026-06-10T12:00:00Z"))
        } else {
            #expect(reply.errorCode == "CONFLICT", "\(reply)")
            #expect(fields["title"] == field("From the app"))
            #expect(fields["changedAt"] == timestamp(appChangedAt))
        }
    }

    @Test func deletedByTheAppInBetweenStillDeletes() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let signedIn = try harness.connect("bob@example.com")
        try harness.seedAppTodo(signedIn, Self.id)
        let interposed = FakeInterposingSession(signedIn.session) { call in
            guard call == 2 else { return }
            _ = try? harness.seedAppTodo(
                signedIn, Self.id,
                extra: ["deletedAt": timestamp("2026-06-10T11:30:00Z"), "changedAt": timestamp("2026-06-10T11:30:00Z")])
        }
        let bob = try harness.connect("bob@example.com", session: interposed)
        let reply = try await harness.call("delete_todo", ["id": .string(Self.id)], as: bob)
        #expect(reply.content["deleted"] == true, "\(reply)")
        #expect(reply.content["deletedAt"] == "2026-06-10T11:30:00+00:00")
        #expect(try harness.fields(bob, Self.id)["deletedAt"] == timestamp("2026-06-10T11:30:00Z"))
        // An update in the same situation is NOT_FOUND.
        let renamed = FakeInterposingSession(signedIn.session) { call in
            guard call == 2 else { return }
            _ = try? harness.seedAppTodo(signedIn, "other", extra: ["deletedAt": timestamp("2026-06-10T11:30:00Z")])
        }
        try harness.seedAppTodo(signedIn, "other")
        let carol = try harness.connect("bob@example.com", session: renamed)
        let update = try await harness.call("update_todo", ["id": "other", "title": "x"], as: carol)
        #expect(update.errorCode == "NOT_FOUND", "\(update)")
    }

    @Test func occurrenceConflicts() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAppTodo(alice, "r", due: "2026-06-01T09:00:00Z", extra: ["repeatRule": dailyRule])
        harness.emulator.injectItemFault(serverErrorCode: "CONFLICT", count: 1, recordName: "r|2026-06-10")
        let once = try await harness.call("complete_todo", ["id": "r"], as: alice)
        #expect(!once.isError, "\(once)")
        #expect(try harness.fields(alice, "r|2026-06-10", type: "Occurrence")["state"] == field("done"))

        harness.emulator.injectItemFault(serverErrorCode: "CONFLICT", count: 2, recordName: "r|2026-06-11")
        let twice = try await harness.call("complete_todo", ["id": "r", "occurrenceDate": "2026-06-11"], as: alice)
        #expect(twice.errorCode == "CONFLICT", "\(twice)")
        #expect(try harness.stored(alice, "Occurrence")["r|2026-06-11"] == nil)

        // The app snoozed the day later than this call: its state stands.
        try harness.seedOccurrence(alice, "r", "2026-06-12", state: "snoozed", changedAt: "2026-06-10T12:30:00Z")
        harness.emulator.injectItemFault(serverErrorCode: "CONFLICT", count: 1, recordName: "r|2026-06-12")
        let stale = try await harness.call("complete_todo", ["id": "r", "occurrenceDate": "2026-06-12"], as: alice)
        #expect(stale.errorCode == "CONFLICT", "\(stale)")
        #expect(try harness.fields(alice, "r|2026-06-12", type: "Occurrence")["state"] == field("snoozed"))
    }
}
