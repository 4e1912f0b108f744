import RelayMCP

/// The to-do tools: the seven of the public MustDo MCP server (`get_me`, `list_todos`, `add_todo`, `update_todo`,
/// `complete_todo`, `snooze_todo`, `delete_todo`), `search` and `fetch` in the shape ChatGPT's deep research and
/// company knowledge use, and issue 44's batches and `undo` (docs/tools.md).
package enum TodoTools {
    /// Every tool definition, in the order `tools/list` shows them.
    package static let definitions: [ToolDefinition] = [
        GetMe.definition, ListTodos.definition, SearchTodos.definition, FetchTodo.definition, AddTodo.definition,
        UpdateTodo.definition,
        CompleteTodo.definition, SnoozeTodo.definition, DeleteTodo.definition, AddTodos.definition,
        CompleteTodos.definition, SnoozeTodos.definition, DeleteTodos.definition, Undo.definition,
    ]
}
