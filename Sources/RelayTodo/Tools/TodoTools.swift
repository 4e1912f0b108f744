import RelayMCP

/// The to-do tools: the seven of the public MustDo MCP server (`get_me`, `list_todos`, `add_todo`, `update_todo`,
/// `complete_todo`, `snooze_todo`, `delete_todo`), `search` and `fetch` in the shape ChatGPT's deep research and
/// company knowledge use, and issue 44's batches and `undo` (docs/tools.md).
package enum TodoTools {
    /// Every tool with its body, in the order `tools/list` shows them (`tools(client:…)` serves this list).
    static let all: [(definition: ToolDefinition, body: TodoToolBody)] = [
        (GetMe.definition, GetMe.run), (ListTodos.definition, ListTodos.run),
        (SearchTodos.definition, SearchTodos.run), (FetchTodo.definition, FetchTodo.run),
        (AddTodo.definition, AddTodo.run),
        (UpdateTodo.definition, UpdateTodo.run), (CompleteTodo.definition, CompleteTodo.run),
        (SnoozeTodo.definition, SnoozeTodo.run), (DeleteTodo.definition, DeleteTodo.run),
        (AddTodos.definition, AddTodos.run), (CompleteTodos.definition, CompleteTodos.run),
        (SnoozeTodos.definition, SnoozeTodos.run), (DeleteTodos.definition, DeleteTodos.run),
        (Undo.definition, Undo.run),
    ]

    /// Every tool definition, in the order `tools/list` shows them.
    package static let definitions = all.map(\.definition)
}
