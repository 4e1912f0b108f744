import RelayMCP

/// The to-do tools: the seven of `spec/tools.md`, `search` and `fetch` in the shape ChatGPT's deep research
/// and company knowledge use (docs/tools.md), and issue 44's batches and `undo`.
package enum TodoTools {
    /// Every tool definition, in the order `tools/list` shows them.
    package static let definitions: [ToolDefinition] = [
        GetMe.definition, ListTodos.definition, SearchTodos.definition, FetchTodo.definition, AddTodo.definition,
        UpdateTodo.definition,
        CompleteTodo.definition, SnoozeTodo.definition, DeleteTodo.definition, AddTodos.definition,
        CompleteTodos.definition, SnoozeTodos.definition, DeleteTodos.definition, Undo.definition,
    ]
}
