import RelayJSON

/// A tool error: the tool result is `isError: true` with `message` in the text block and `json` as
/// `structuredContent`. Messages are one line for a human or a model and never quote to-do content.
package struct TodoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The error codes (docs/tools.md, "Error codes").
    package enum Code: String, Sendable, CaseIterable {
        /// An argument is missing, malformed or out of range; `field` names it.
        case invalidArgument = "INVALID_ARGUMENT"
        /// No such to-do, or it is soft-deleted.
        case notFound = "NOT_FOUND"
        /// Adding is not allowed: the app says so (`canAddTodos`), or the trial and subscription have both ended.
        case paymentRequired = "PAYMENT_REQUIRED"
        /// The record changed elsewhere and the relay's own merge-and-retry did not settle it.
        case conflict = "CONFLICT"
        /// CloudKit failed (5xx, timeout); the call may be retried.
        case upstreamUnavailable = "UPSTREAM_UNAVAILABLE"
        /// CloudKit throttled the caller; `retryAfter` says when to retry.
        case rateLimited = "RATE_LIMITED"
        /// The iCloud account cannot be used (for example Advanced Data Protection is on).
        case accountUnsupported = "ACCOUNT_UNSUPPORTED"
        /// The person's iCloud storage is full (CloudKit's QUOTA_EXCEEDED on the private database): retrying will
        /// not help until they free space (issue 42: was UPSTREAM_UNAVAILABLE, which invites a retry).
        case quotaExceeded = "QUOTA_EXCEEDED"
        /// The connection's CloudKit sign-in is dead and the connection waits for the person to sign in to iCloud
        /// again (issue 39); `signInURL` (an extra member) is the single-use link. Retrying alone will not help.
        case signInRequired = "SIGN_IN_REQUIRED"
    }

    /// What went wrong.
    package let code: Code
    /// One line for the reader.
    package let message: String
    /// The argument at fault (dotted path for nested ones, `repeat.end.count`).
    package let field: String?
    /// Seconds to wait before retrying, when known.
    package let retryAfter: Int?

    /// An error with every part given.
    package init(code: Code, message: String, field: String? = nil, retryAfter: Int? = nil) {
        self.code = code
        self.message = message
        self.field = field
        self.retryAfter = retryAfter
    }

    /// `INVALID_ARGUMENT` for `field`; the message is prefixed with the field name.
    package static func invalidArgument(_ field: String, _ problem: String) -> TodoError {
        TodoError(code: .invalidArgument, message: "\(field): \(problem)", field: field)
    }

    /// `NOT_FOUND` for a missing or soft-deleted to-do.
    package static func notFound(id: String) -> TodoError {
        TodoError(
            code: .notFound, message: "No to-do with this id exists (or it was deleted). Call list_todos for ids.",
            field: "id")
    }

    /// `PAYMENT_REQUIRED` for `add_todo` when the entitlement hint does not allow adding.
    package static let paymentRequired = TodoError(
        code: .paymentRequired,
        message: "The MustDo app says this account cannot add new to-dos now (the free trial and subscription "
            + "have ended). The user can subscribe in the MustDo app; existing to-dos can still be completed, "
            + "snoozed, updated and deleted.")

    /// `CONFLICT` after the merge-and-retry failed.
    package static let conflict = TodoError(
        code: .conflict,
        message: "The to-do was changed on another device at the same moment. Read it again with list_todos "
            + "and retry if the change is still wanted.")

    /// `UPSTREAM_UNAVAILABLE` with retry advice.
    package static func upstreamUnavailable(retryAfter: Int? = nil) -> TodoError {
        TodoError(
            code: .upstreamUnavailable,
            message: "iCloud did not answer. Retry in \(retryAfter ?? 30) seconds.", retryAfter: retryAfter)
    }

    /// `UPSTREAM_UNAVAILABLE` because iCloud refused the service's own credentials (its CloudKit API
    /// token or container): the operator has to fix it. The person's connection is kept and works
    /// again, without reconnecting, once that is done.
    package static let serviceMisconfigured = TodoError(
        code: .upstreamUnavailable,
        message: "iCloud refused this service's own credentials: the service is misconfigured and its operator "
            + "has been alerted. Your connection is kept; retry later.",
        retryAfter: 60)

    /// `RATE_LIMITED` with the wait iCloud asked for.
    package static func rateLimited(retryAfter: Int) -> TodoError {
        TodoError(
            code: .rateLimited, message: "iCloud asked to slow down. Retry in \(retryAfter) seconds.",
            retryAfter: retryAfter)
    }

    /// `ACCOUNT_UNSUPPORTED`, e.g. Advanced Data Protection.
    package static let accountUnsupported = TodoError(
        code: .accountUnsupported,
        message: "This iCloud account cannot be reached from the web (for example Advanced Data Protection "
            + "is on), so MustDo's to-dos cannot be read here.")

    /// `{"error": {"code", "message", "field"?, "retryAfter"?}}`: the tool result's `structuredContent`.
    package var json: JSONValue {
        var error: JSONObject = ["code": .string(code.rawValue), "message": .string(message)]
        if let field { error["field"] = .string(field) }
        if let retryAfter { error["retryAfter"] = .int(retryAfter) }
        return .object(["error": .object(error)])
    }

    /// `CODE: message`, for tests and the text block.
    package var description: String { "\(code.rawValue): \(message)" }
}
