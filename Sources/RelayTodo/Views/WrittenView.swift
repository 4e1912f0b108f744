import RelayMCP

/// The "what was just written" view, rendered next to a write's result (`add_todo`, `update_todo`,
/// `complete_todo`, `snooze_todo`): the to-do as stored and when it will actually ring, with what the
/// relay did to the time asked for (quiet hours, a time the clocks skip or show twice, a repeat's first
/// day aligned to its rule), the alarm's four buttons, and Undo when the result carries an `undo` token
/// (`WrittenView+HTML.swift` is the document).
package enum WrittenView {
    /// The view's URI, versioned by its content.
    package static let uri = AppViews.versionedURI("written", html: html)

    /// The tools whose results the view renders. `delete_todo` has none: nothing rings after it.
    package static let tools: Set<String> = [
        AddTodo.definition.name, UpdateTodo.definition.name, CompleteTodo.definition.name,
        SnoozeTodo.definition.name,
    ]

    /// The view as a resource.
    package static let resource = AppViews.resource(
        uri: uri, name: "written", title: "Just written",
        description: "The to-do as just written and when it will ring, with the alarm's four buttons.", html: html)
}
