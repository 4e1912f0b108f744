import Foundation
import RelayJSON
import RelayMCP
import RelayTestSupport
import Testing

@testable import RelayTodo

/// Checks the schemas with Python's `jsonschema` — the validator the official MCP Python SDK client runs on
/// every `structuredContent` — in a child process: every schema is valid draft 2020-12, every result the
/// tools produce conforms to its output schema, and argument examples are accepted or rejected by the input
/// schema exactly as `parse` accepts or rejects them.
@Suite struct SchemaConformanceTests {
    static let pythonHasJSONSchema: Bool = {
        guard let process = try? run(["python3", "-c", "import jsonschema"], input: nil) else { return false }
        return process.status == 0
    }()

    @Test(.enabled(if: pythonHasJSONSchema, "python3 with jsonschema is not installed"))
    func schemasAndResultsAgreeWithJSONSchema() async throws {
        var cases: [JSONValue] = []
        for tool in TodoTools.definitions {
            cases.append(["schema": tool.inputSchema, "check": "schema"])
            cases.append(["schema": tool.outputSchema ?? .null, "check": "schema"])
        }
        for (tool, result) in try sampleResults() + batchResults() {
            cases.append([
                "schema": tool.outputSchema ?? .null, "instance": result, "valid": true, "label": .string(tool.name),
            ])
        }
        for (tool, arguments, valid) in argumentExamples {
            let instance = json(arguments)
            cases.append([
                "schema": tool.inputSchema, "instance": instance, "valid": .bool(valid), "label": .string(arguments),
            ])
            let parsed = Result { () throws(TodoError) in try parseArguments(tool, instance) }
            #expect((try? parsed.get()) != nil || !valid, "parse rejected valid \(arguments): \(parsed)")
            #expect((try? parsed.get()) == nil || valid, "parse accepted invalid \(arguments)")
        }
        let script = """
            import json, sys
            from jsonschema import Draft202012Validator
            failures = []
            for case in json.load(sys.stdin):
                if case.get("check") == "schema":
                    Draft202012Validator.check_schema(case["schema"])
                    continue
                errors = list(Draft202012Validator(case["schema"]).iter_errors(case["instance"]))
                if bool(errors) == case["valid"]:
                    failures.append(f"{case['label']}: expected valid={case['valid']}, errors={[e.message for e in errors]}")
            print("\\n".join(failures))
            sys.exit(1 if failures else 0)
            """
        let outcome = try await runWaiting(["python3", "-c", script], input: JSONValue.array(cases).bytes)
        #expect(outcome.status == 0, "\(outcome.output)")
    }

    /// Arguments, and whether they are valid. `parse` may be stricter than JSON Schema can say (trimmed
    /// titles, dates that do not exist) and is lenient about `null` for optional members, so only cases both
    /// judge alike are listed.
    let argumentExamples: [(ToolDefinition, String, Bool)] = [
        (GetMe.definition, "{}", true),
        (GetMe.definition, #"{"x":1}"#, false),
        (ListTodos.definition, #"{"date":"2026-06-10","status":"all","includeRepeating":false}"#, true),
        (ListTodos.definition, #"{"status":"snoozed"}"#, false),
        (ListTodos.definition, #"{"date":"June 10"}"#, false),
        (
            AddTodo.definition,
            #"{"title":"x","due":"2026-06-10T07:30","notes":"n","sound":"harp","repeat":{"kind":"monthly","interval":2,"monthly":{"mode":"weekdayOrdinal","ordinal":-1,"weekday":6},"end":{"kind":"count","count":5}}}"#,
            true
        ),
        (
            AddTodo.definition,
            #"{"title":"x","repeat":{"kind":"weekly","weekdays":[2,4],"end":{"kind":"until","until":"2026-12-31"}}}"#,
            true
        ),
        (AddTodo.definition, #"{"title":"x","repeat":{"kind":"none"}}"#, true),
        (AddTodo.definition, #"{}"#, false),
        (AddTodo.definition, #"{"title":""}"#, false),
        (AddTodo.definition, #"{"title":"x","sound":"gong"}"#, false),
        (AddTodo.definition, #"{"title":"x","repeat":{"kind":"daily","interval":100}}"#, false),
        (AddTodo.definition, #"{"title":"x","repeat":{"kind":"weekly","weekdays":[0]}}"#, false),
        (
            AddTodo.definition,
            #"{"title":"x","repeat":{"kind":"monthly","monthly":{"mode":"weekdayOrdinal","ordinal":6,"weekday":1}}}"#,
            false
        ),
        (AddTodo.definition, #"{"title":"x","repeat":{"kind":"daily","end":{"kind":"count","count":1000}}}"#, false),
        (AddTodo.definition, #"{"title":"x","repeat":{"kind":"daily","end":{"count":3}}}"#, false),
        (AddTodo.definition, #"{"title":"x","colour":"red"}"#, false),
        (UpdateTodo.definition, #"{"id":"a","notes":null,"repeat":null}"#, true),
        (UpdateTodo.definition, #"{"id":"a","status":"done","title":"t"}"#, true),
        (UpdateTodo.definition, #"{"id":"a","status":"snoozed"}"#, false),
        (UpdateTodo.definition, #"{"title":"t"}"#, false),
        (CompleteTodo.definition, #"{"id":"a","occurrenceDate":"2026-06-10"}"#, true),
        (CompleteTodo.definition, #"{"id":"a","occurrenceDate":"today"}"#, false),
        (SnoozeTodo.definition, #"{"id":"a","until":"2026-06-10T07:30:00+09:00"}"#, true),
        (SnoozeTodo.definition, #"{"id":"a"}"#, false),
        (DeleteTodo.definition, #"{"id":"a"}"#, true),
        (DeleteTodo.definition, #"{"id":""}"#, false),
        (AddTodos.definition, #"{"items":[{"title":"x"},{"title":"y","due":"2026-06-10"}]}"#, true),
        (AddTodos.definition, #"{"items":[]}"#, false),
        (AddTodos.definition, #"{"title":"x"}"#, false),
        (CompleteTodos.definition, #"{"ids":["a","b"],"occurrenceDate":"2026-06-10"}"#, true),
        (CompleteTodos.definition, #"{"ids":"a"}"#, false),
        (CompleteTodos.definition, #"{"id":"a"}"#, false),
        (SnoozeTodos.definition, #"{"ids":["a"],"until":"2026-06-10T07:30"}"#, true),
        (SnoozeTodos.definition, #"{"ids":["a"]}"#, false),
        (DeleteTodos.definition, #"{"ids":["a","b","c"]}"#, true),
        (DeleteTodos.definition, #"{"ids":[]}"#, false),
        (
            DeleteTodos.definition,
            "{\"ids\":[" + (0..<26).map { "\"i\($0)\"" }.joined(separator: ",") + "]}", false
        ),
        (Undo.definition, #"{"undo":"u1.abc"}"#, true),
        (Undo.definition, #"{}"#, false),
        (Undo.definition, #"{"undo":""}"#, false),
    ]

    func parseArguments(_ tool: ToolDefinition, _ arguments: JSONValue) throws(TodoError) {
        switch tool.name {
        case "get_me": try GetMe.parse(arguments)
        case "list_todos": _ = try ListTodos.parse(arguments)
        case "add_todo": _ = try AddTodo.parse(arguments)
        case "update_todo": _ = try UpdateTodo.parse(arguments)
        case "complete_todo": _ = try CompleteTodo.parse(arguments)
        case "snooze_todo": _ = try SnoozeTodo.parse(arguments)
        case "add_todos": _ = try AddTodos.parse(arguments)
        case "complete_todos": _ = try CompleteTodos.parse(arguments)
        case "snooze_todos": _ = try SnoozeTodos.parse(arguments)
        case "delete_todos": _ = try DeleteTodos.parse(arguments)
        case "undo": _ = try Undo.parse(arguments)
        default: _ = try DeleteTodo.parse(arguments)
        }
    }

    /// The batch tools' and undo's results: every item shape (ok, refused with and without an id, nothing).
    func batchResults() -> [(ToolDefinition, JSONValue)] {
        let results: [BatchResult] = [
            .ok("a"), .failed("b", TodoError.notFound(id: "b")), .failed(nil, .invalidArgument("items[2].title", "x")),
        ]
        var samples: [(ToolDefinition, JSONValue)] = []
        for tool in [AddTodos.definition, CompleteTodos.definition, SnoozeTodos.definition, DeleteTodos.definition] {
            samples.append((tool, Batch.result(results, undo: "u1.x")))
            samples.append((tool, Batch.result([], undo: "u1.x")))
        }
        samples += [(Undo.definition, Undo.result(Array(results.prefix(2)))), (Undo.definition, Undo.result([]))]
        return samples
    }

    /// A result of every tool and every shape (one-off, repeating, Japanese, quiet hours, paging); writes carry
    /// their undo handle as `run` adds it.
    func sampleResults() throws -> [(ToolDefinition, JSONValue)] {
        try shapes().map { tool, result in
            (tool, tool.annotations.readOnlyHint == true ? result : result.adding(undo: "u1.x"))
        }
    }

    private func shapes() throws -> [(ToolDefinition, JSONValue)] {
        let now = instant("2026-03-07T20:00:00-05:00")
        let plain = Account(timeZone: "America/New_York")
        let japanese = Account(
            locale: "ja_JP", timeZone: "Asia/Tokyo", quietHoursStart: "22:00", quietHoursEnd: "07:00",
            trialStartedAt: now, subscribedUntil: now.addingTimeInterval(86400))
        var results: [(ToolDefinition, JSONValue)] = []
        for account in [plain, japanese, Account.defaults] {
            results.append((GetMe.definition, GetMe.result(account: account, now: now)))
            let created = try AddTodo.apply(
                AddTodo.parse(
                    json(
                        #"{"title":"Gym","due":"2026-03-09T23:00","repeat":{"kind":"monthly","monthly":{"mode":"weekdayOrdinal","ordinal":2,"weekday":2}}}"#
                    )),
                account: account, now: now, newID: UUID().uuidString)
            let oneOff = try AddTodo.apply(
                AddTodo.parse(json(#"{"title":"Call","due":"2026-03-09T23:00"}"#)), account: account, now: now,
                newID: "b")
            results.append((AddTodo.definition, AddTodo.result(created, account: account)))
            results.append((AddTodo.definition, AddTodo.result(oneOff, account: account)))
            let updated = try UpdateTodo.apply(
                UpdateTodo.parse(json(#"{"id":"b","due":"2026-03-10T23:30","notes":"n"}"#)), current: oneOff.todo,
                account: account, now: now)
            results.append((UpdateTodo.definition, UpdateTodo.result(updated, account: account)))
            for todo in [created.todo, oneOff.todo] {
                let completed = try CompleteTodo.apply(
                    CompleteTodo.Request(id: todo.id, occurrenceDate: todo.isRepeating ? day("2026-03-09") : nil),
                    current: todo, existing: nil, account: account, now: now)
                results.append((CompleteTodo.definition, CompleteTodo.result(completed, account: account)))
                // Snoozed, and (for the repeat) skipped because the next occurrence rings first.
                for until in ["2026-03-10T23:30", "2026-04-20T08:00"] {
                    let snoozed = try SnoozeTodo.apply(
                        SnoozeTodo.Request(
                            id: todo.id, until: try TimeInput(parsing: until, field: "until"),
                            occurrenceDate: todo.isRepeating ? day("2026-03-09") : nil),
                        current: todo, account: account, now: now)
                    results.append((SnoozeTodo.definition, SnoozeTodo.result(snoozed, account: account)))
                }
                let deleted = try DeleteTodo.apply(DeleteTodo.Request(id: todo.id), current: todo, now: now)
                results.append((DeleteTodo.definition, DeleteTodo.result(deleted, account: account)))
            }
            // A first occurrence moved to a listed day, a time the clocks skip, a due time already past.
            for arguments in [
                #"{"title":"Run","due":"2026-03-03T06:00","repeat":{"kind":"weekly","weekdays":[2,4]}}"#,
                #"{"title":"Late","due":"2026-03-08T02:30"}"#, #"{"title":"Past","due":"2026-03-01T10:00"}"#,
            ] {
                let noted = try AddTodo.apply(
                    AddTodo.parse(json(arguments)), account: account, now: now, newID: UUID().uuidString)
                results.append((AddTodo.definition, AddTodo.result(noted, account: account)))
                let repeated = try UpdateTodo.apply(
                    UpdateTodo.parse(json(#"{"id":"x","repeat":{"kind":"weekly","weekdays":[7]}}"#)),
                    current: noted.todo, account: account, now: now)
                results.append((UpdateTodo.definition, UpdateTodo.result(repeated, account: account)))
            }
            let occurrence = Occurrence(
                todoId: created.todo.id, date: day("2026-03-10"), state: .snoozed, snoozedUntil: now, changedAt: now)
            let page = ListTodos.select(
                ListTodos.Request(status: .all), todos: [created.todo, oneOff.todo, oneOff.todo.renamed("c")],
                occurrences: [occurrence], account: account, pageSize: 2)
            #expect(page.nextCursor != nil)
            results.append((ListTodos.definition, ListTodos.result(page, account: account)))
        }
        return results
    }
}

extension Todo {
    fileprivate func renamed(_ id: String) -> Todo {
        var copy = self
        copy.id = id
        return copy
    }
}

/// `run` for async tests: waits without holding a thread of the cooperative pool (the whole test
/// process shares two of them on a two-core machine).
private func runWaiting(_ arguments: [String], input: [UInt8]?) async throws -> (status: Int32, output: String) {
    let child = try Subprocess("/usr/bin/env", arguments, input: input ?? [])
    let termination = try await child.wait(timeout: .seconds(120))
    return (termination.status, child.text)
}

/// Runs a command, feeding `input` to its standard input; returns its exit status and combined output.
/// Blocks its thread for at most two minutes.
private func run(_ arguments: [String], input: [UInt8]?) throws -> (status: Int32, output: String) {
    let child = try Subprocess("/usr/bin/env", arguments, input: input ?? [])
    let termination = try child.waitBlocking(timeout: .seconds(120))
    return (termination.status, child.text)
}
