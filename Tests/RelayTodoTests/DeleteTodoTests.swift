import Foundation
import RelayJSON
import Testing

@testable import RelayTodo

@Suite struct DeleteTodoTests {
    let now = instant("2026-06-05T12:00:00Z")

    @Test func softDeleteWritesDeletedAtOnly() throws {
        let change = try DeleteTodo.apply(DeleteTodo.parse(json(#"{"id":"a"}"#)), current: oneOff(), now: now)
        #expect(change.todo.deletedAt == now)
        #expect(change.todo.changedAt == now)
        #expect(change.fields == [.deletedAt, .changedAt])
        let result = DeleteTodo.result(change, account: Account(timeZone: "Asia/Tokyo"))
        #expect(
            result == ["timeZone": "Asia/Tokyo", "id": "a", "deleted": true, "deletedAt": "2026-06-05T21:00:00+09:00"])
    }

    @Test func deletingADeletedOrMissingTodoIsNotFound() throws {
        let request = try DeleteTodo.parse(json(#"{"id":"a"}"#))
        var deleted = oneOff()
        deleted.deletedAt = now
        for current in [nil, deleted] {
            let error = expectError { () throws(TodoError) in try DeleteTodo.apply(request, current: current, now: now)
            }
            #expect(error?.code == .notFound)
            #expect(error?.json["error"]?["code"] == "NOT_FOUND")
        }
        expectInvalid("id") { () throws(TodoError) in try DeleteTodo.parse(json(#"{"id":null}"#)) }
        expectInvalid("id") { () throws(TodoError) in try DeleteTodo.parse(json(#"{"id":"a\u0000b"}"#)) }
        expectInvalid("force") { () throws(TodoError) in try DeleteTodo.parse(json(#"{"id":"a","force":true}"#)) }
    }
}
