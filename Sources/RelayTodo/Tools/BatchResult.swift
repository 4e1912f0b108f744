import RelayCloudKit
import RelayJSON
import RelayMCP

/// One item's outcome in a batch (`add_todos`, `complete_todos`, `snooze_todos`, `delete_todos`) or an `undo`:
/// `{"id", "ok": true}` or `{"id"?, "ok": false, "error": {"code", "message"}}`. The shape is fixed (issue 44): the
/// connections page counts these.
package struct BatchResult: Sendable, Equatable {
    /// The to-do (absent only for an `add_todos` item refused before it had one).
    package var id: String?
    /// The error's code (`TodoError.Code`, or `INTERNAL_ERROR`); nil when the item succeeded.
    package var code: String?
    /// The error's message.
    package var message: String?

    /// Success for `id`.
    package static func ok(_ id: String) -> BatchResult { BatchResult(id: id, code: nil, message: nil) }

    /// Failure of `id` with `error`.
    package static func failed(_ id: String?, _ error: TodoError) -> BatchResult {
        BatchResult(id: id, code: error.code.rawValue, message: error.message)
    }

    /// Failure of `id` with any error a write can throw: a `TodoError` as it is, a CloudKit failure as the single
    /// tools report it, anything else as an internal error (its description holds no values, never shown here).
    static func failed(_ id: String?, _ error: any Error) -> BatchResult {
        if let error = error as? TodoError { return .failed(id, error) }
        if let error = error as? CloudKitError, let tool = error.toolError, !tool.isSessionEnded {
            return BatchResult(id: id, code: tool.code, message: tool.message)
        }
        return BatchResult(
            id: id, code: ToolError.Code.internalError,
            message: "This to-do could not be changed (its record could not be read or written); it was left as it is.")
    }

    /// Whether the item succeeded.
    package var ok: Bool { code == nil }

    /// The JSON of `results[]`.
    package var json: JSONValue {
        var object = JSONObject()
        if let id { object["id"] = .string(id) }
        object["ok"] = .bool(ok)
        if let code, let message { object["error"] = ["code": .string(code), "message": .string(message)] }
        return .object(object)
    }

    /// The schema of `results`.
    static let schema = Schema.array(
        of: Schema.object(
            [
                ("id", Schema.string("The to-do.")),
                ("ok", Schema.boolean("Whether this to-do was changed.")),
                (
                    "error",
                    Schema.object(
                        [("code", Schema.string()), ("message", Schema.string("Why, for the user."))],
                        required: ["code", "message"])
                ),
            ],
            required: ["ok"]),
        description: "One entry per to-do, in the order given.")
}
