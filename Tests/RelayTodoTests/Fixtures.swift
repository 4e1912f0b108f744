import Foundation
import RelayJSON
import Testing

@testable import RelayTodo

/// An instant from an ISO 8601 string with offset, parsed by Foundation (not by the code under test).
func instant(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    guard let date = formatter.date(from: text) else { fatalError("bad fixture instant \(text)") }
    return date
}

/// A JSON value from literal text.
func json(_ text: String) -> JSONValue {
    do { return try JSONValue(parsing: text) } catch { fatalError("bad fixture JSON \(text): \(error)") }
}

/// A date from `YYYY-MM-DD`.
func day(_ text: String) -> LocalDate {
    guard let date = LocalDate(text) else { fatalError("bad fixture date \(text)") }
    return date
}

/// A time from `HH:mm`.
func clock(_ text: String) -> LocalTime {
    guard let time = LocalTime(text) else { fatalError("bad fixture time \(text)") }
    return time
}

/// Runs `body` and returns the `TodoError` it throws, or records an issue when it does not throw.
func expectError<T>(
    _ body: () throws(TodoError) -> T, sourceLocation: SourceLocation = #_sourceLocation
) -> TodoError? {
    do {
        let value = try body()
        Issue.record("expected an error, got \(value)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// Asserts `body` throws INVALID_ARGUMENT naming `field`.
func expectInvalid<T>(
    _ field: String?, _ body: () throws(TodoError) -> T, sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error = expectError(body, sourceLocation: sourceLocation) else { return }
    #expect(error.code == .invalidArgument, "\(error)", sourceLocation: sourceLocation)
    #expect(error.field == field, "\(error)", sourceLocation: sourceLocation)
}

/// A pending one-off to-do.
func oneOff(_ id: String = "a", due: String? = "2026-06-10T09:00:00Z", changedAt: String = "2026-06-01T00:00:00Z")
    -> Todo
{
    Todo(
        id: id, title: "Title \(id)", dueAt: due.map(instant), timeZone: "UTC", sound: .default, source: .app,
        createdAt: instant("2026-06-01T00:00:00Z"), changedAt: instant(changedAt))
}

/// A repeating to-do.
func repeating(_ id: String = "r", rule: RepeatRule = RepeatRule(kind: .daily), due: String = "2026-06-10T07:30:00Z")
    -> Todo
{
    var todo = oneOff(id, due: due)
    todo.repeatRule = rule
    return todo
}
