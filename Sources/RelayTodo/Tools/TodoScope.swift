/// The OAuth scopes the to-do tools declare (`ToolDefinition.requiredScopes`), as the consent page
/// words them: `todos:read` "See your to-dos and their times", `todos:write` "Add, change,
/// complete, snooze and delete to-dos". A tool that only reads needs `read`; a tool that changes
/// anything needs `write`.
package enum TodoScope {
    /// Reading: `get_me`, `list_todos`, `search`, `fetch`.
    package static let read = "todos:read"
    /// Changing anything: `add_todo`, `update_todo`, `complete_todo`, `snooze_todo`, `delete_todo`,
    /// the batches (`add_todos`, `complete_todos`, `snooze_todos`, `delete_todos`) and `undo`.
    package static let write = "todos:write"
}
