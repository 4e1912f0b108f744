import Foundation
import Testing

@testable import RelayTodo

@Suite struct MergeTests {
    let now = instant("2026-06-05T12:00:00Z")

    @Test func reappliesOnlyOurFieldsOntoTheServerCopy() throws {
        let base = oneOff("a", changedAt: "2026-06-01T00:00:00Z")
        let ours = try UpdateTodo.apply(
            UpdateTodo.Request(id: "a", title: "Ours"), current: base, account: .defaults, now: now
        ).change
        // Meanwhile the phone changed the notes and the sound.
        var server = base
        server.notes = "from the phone"
        server.sound = .harp
        server.changedAt = instant("2026-06-05T11:00:00Z")
        guard case .save(let merged) = Merge.reapply(ours, onto: server) else {
            Issue.record("expected a save")
            return
        }
        #expect(merged.todo.title == "Ours")
        #expect(merged.todo.notes == "from the phone")
        #expect(merged.todo.sound == .harp)
        #expect(merged.todo.changedAt == now)
        #expect(merged.fields == [.title, .changedAt])
    }

    @Test func aNewerServerChangeWins() throws {
        let base = oneOff("a")
        let ours = try UpdateTodo.apply(
            UpdateTodo.Request(id: "a", title: "Ours"), current: base, account: .defaults, now: now
        ).change
        var server = base
        server.title = "Theirs"
        server.changedAt = instant("2026-06-05T12:00:01Z")
        #expect(Merge.reapply(ours, onto: server) == .serverNewer(server))
        server.changedAt = now
        #expect(Merge.reapply(ours, onto: server) == .serverNewer(server))
    }

    @Test func fieldsTheServerAlreadyHasAreNotWrittenAgain() throws {
        let base = oneOff("a")
        let ours = try CompleteTodo.apply(
            CompleteTodo.Request(id: "a"), current: base, existing: nil, account: .defaults, now: now)
        guard case .updated(let change) = ours else {
            Issue.record("expected an update")
            return
        }
        var server = base
        server.status = .done
        server.completedAt = now
        server.changedAt = instant("2026-06-05T11:00:00Z")
        #expect(Merge.reapply(change, onto: server) == .save(TodoChange(todo: server, fields: [])))
    }

    @Test func aDeletedServerCopyIsNotFound() throws {
        let base = oneOff("a")
        let ours = try UpdateTodo.apply(
            UpdateTodo.Request(id: "a", title: "Ours"), current: base, account: .defaults, now: now
        ).change
        var server = base
        server.deletedAt = instant("2026-06-05T11:00:00Z")
        #expect(Merge.reapply(ours, onto: server) == .deleted(server))
    }

    @Test func occurrencesAreLastWriterWins() {
        let ours = Occurrence(todoId: "r", date: day("2026-06-05"), state: .done, changedAt: now)
        var server = Occurrence(
            todoId: "r", date: day("2026-06-05"), state: .snoozed, changedAt: instant("2026-06-05T11:00:00Z"))
        #expect(Merge.reapply(ours, onto: server) == .save(ours))
        server.changedAt = instant("2026-06-05T12:30:00Z")
        #expect(Merge.reapply(ours, onto: server) == .serverNewer(server))
        server.changedAt = nil
        #expect(Merge.reapply(ours, onto: server) == .save(ours))
    }
}
