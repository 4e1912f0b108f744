import RelayJSON

/// A failure inside a tool. Thrown from `Tool.call`, it becomes a result with `isError: true`,
/// the message in a text block and `structuredContent.error = {code, message, field?, …details}`
/// (codes as docs/tools.md lists them: `INVALID_ARGUMENT`, `NOT_FOUND`, `RATE_LIMITED`…).
///
/// One code is special: `sessionEnded()` is never shown as a result. The endpoint asks the
/// authenticator for the 401 challenge instead, so the client reconnects.
package struct ToolError: Error, Sendable, Equatable {
    /// Machine-readable code, upper snake case.
    package var code: String
    /// One line a model can act on; never secrets or to-do content from the store.
    package var message: String
    /// The argument at fault, as a path (`repeat.interval`, `weekdays[2]`), if one is.
    package var field: String?
    /// Extra members of `structuredContent.error` (`retryAfter`…).
    package var details: JSONObject

    /// An error with any code.
    package init(code: String, message: String, field: String? = nil, details: JSONObject = [:]) {
        self.code = code
        self.message = message
        self.field = field
        self.details = details
    }

    /// `INVALID_ARGUMENT` naming the field.
    package static func invalidArgument(_ message: String, field: String?) -> ToolError {
        ToolError(code: Code.invalidArgument, message: message, field: field)
    }

    /// The person's upstream session is gone: answer HTTP 401 with the challenge, not a result.
    package static func sessionEnded(_ reason: String = "The upstream session has ended.") -> ToolError {
        ToolError(code: Code.sessionEnded, message: reason)
    }

    /// Whether this is `sessionEnded()`.
    package var isSessionEnded: Bool { code == Code.sessionEnded }

    /// `structuredContent.error`.
    package var json: JSONObject {
        var object: JSONObject = ["code": .string(code), "message": .string(message)]
        if let field { object["field"] = .string(field) }
        for (key, value) in details where object[key] == nil { object[key] = value }
        return object
    }

    /// Codes RelayMCP itself produces.
    package enum Code {
        /// Arguments did not match the input schema, or a tool refused a value.
        package static let invalidArgument = "INVALID_ARGUMENT"
        /// The tool failed unexpectedly; the detail is in the log only.
        package static let internalError = "INTERNAL_ERROR"
        /// Never rendered: turns into HTTP 401.
        package static let sessionEnded = "SESSION_ENDED"
    }
}
