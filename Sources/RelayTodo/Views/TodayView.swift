import RelayMCP

/// The Today view: the person's alarms for a day with the alarm's four buttons, rendered next to
/// `list_todos`'s result (`TodayView+HTML.swift` is the document).
package enum TodayView {
    /// The view's URI, versioned by its content.
    package static let uri = AppViews.versionedURI("today", html: html)

    /// The tools whose results the view renders.
    package static let tools: Set<String> = [ListTodos.definition.name]

    /// The view as a resource.
    package static let resource = AppViews.resource(
        uri: uri, name: "today", title: "Today",
        description: "The person's alarms for the day, with the alarm's four buttons.", html: html)
}
