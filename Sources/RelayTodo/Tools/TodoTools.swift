import RelayMCP

/// The seven to-do tools.
public enum TodoTools {
    /// Every tool definition, in the order `tools/list` shows them.
    public static let definitions: [ToolDefinition] = [
        GetMe.definition, ListTodos.definition, AddTodo.definition, UpdateTodo.definition,
        CompleteTodo.definition, SnoozeTodo.definition, DeleteTodo.definition,
    ]
}
