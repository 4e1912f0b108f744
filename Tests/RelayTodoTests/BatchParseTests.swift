import RelayJSON
import Testing

@testable import RelayTodo

/// Issue 44: the batch tools' own argument rules (the endpoint's schema check comes first, but the tools hold
/// without it): at most 25, at least one, ids checked one by one.
@Suite struct BatchParseTests {
    /// The error `body` throws, nil when it throws none.
    static func error<Value>(_ body: () throws -> Value) -> TodoError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error as? TodoError
        }
    }

    @Test func twentySixAreRefusedWholeSayingNothingChanged() {
        let ids: JSONValue = .array((0..<26).map { .string("t\($0)") })
        let refusals: [TodoError?] = [
            Self.error { try DeleteTodos.parse(["ids": ids]) },
            Self.error { try CompleteTodos.parse(["ids": ids]) },
            Self.error { try SnoozeTodos.parse(["ids": ids, "until": "2026-06-10T10:00"]) },
            Self.error { try AddTodos.parse(["items": .array((0..<26).map { _ in ["title": "x"] })]) },
        ]
        for error in refusals {
            #expect(error?.code == .invalidArgument, "\(String(describing: error))")
            #expect(
                error?.message.contains("at most 25") == true && error?.message.contains("nothing was changed") == true)
        }
        #expect(throws: TodoError.self) { try DeleteTodos.parse(["ids": []]) }
        #expect((try? DeleteTodos.parse(["ids": .array((0..<25).map { .string("t\($0)") })]))?.count == 25)
    }

    /// A malformed or repeated id refuses that item only; an argument wrong for every id refuses the call.
    @Test func idsAreCheckedOneByOne() throws {
        let items = try SnoozeTodos.parse(["ids": ["a", "", "a", "_x"], "until": "2026-06-10T10:00"])
        var refused: [String?] = []
        var fields: [String?] = []
        for item in items {
            if case .refused(let id, let error) = item {
                refused.append(id)
                fields.append(error.field)
            } else {
                refused.append(nil)
                fields.append(nil)
            }
        }
        #expect(refused == [nil, "", "a", "_x"])
        #expect(fields == [nil, "ids[1]", "ids[2]", "ids[3]"])
        #expect(throws: TodoError.self) { try SnoozeTodos.parse(["ids": ["a"]]) }
        #expect(throws: TodoError.self) { try CompleteTodos.parse(["ids": ["a"], "occurrenceDate": "today"]) }
        #expect(throws: TodoError.self) { try DeleteTodos.parse(["ids": [5]]) }
    }
}
