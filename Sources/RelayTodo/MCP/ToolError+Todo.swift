import RelayCloudKit
import RelayJSON
import RelayMCP

extension TodoError {
    /// The MCP tool error: the same code, message and field, `retryAfter` as an extra member.
    package var toolError: ToolError {
        ToolError(
            code: code.rawValue, message: message, field: field,
            details: retryAfter.map { ["retryAfter": .int($0)] } ?? [:])
    }
}

extension CloudKitError {
    /// What a tool reports for this failure: a dead session ends the grant (`ToolError.sessionEnded()`, HTTP
    /// 401); a 401 AUTHENTICATION_FAILED that was not shown to be the person's (the session implementation
    /// checks the API token first) is the service's misconfiguration and never ends the grant; throttling,
    /// outages and unusable accounts become tool errors with retry advice. Nil for failures
    /// that are the relay's own fault (a refused request, a record that does not decode, a bad response): the
    /// endpoint reports those as `INTERNAL_ERROR` and logs the error's description, which holds no values.
    var toolError: ToolError? {
        switch kind {
        case .sessionDead: return .sessionEnded("The iCloud session has ended; sign in again.")
        case .signInRequired:
            // The connection stays: a result the agent can show, with the link (issue 39).
            var details: JSONObject = [:]
            if let redirectURL { details["signInURL"] = .string(redirectURL) }
            return ToolError(
                code: TodoError.Code.signInRequired.rawValue,
                message:
                    "iCloud no longer accepts this connection's sign-in, so the user's to-dos cannot be reached. "
                    + "The connection is kept: ask the user to open this link in a browser and sign in to iCloud "
                    + "again with the same Apple Account, then retry: \(redirectURL ?? "(no link; open the relay's connections page)")",
                details: details)
        case .authenticationFailed: return TodoError.serviceMisconfigured.toolError
        case .throttled where status == nil && serverErrorCode == nil:
            // The relay's own queue for this grant is full (`GrantSerializer`).
            let seconds = retryAfter.map(Self.seconds) ?? 1
            return TodoError(
                code: .rateLimited, message: "Too many calls for this connection at once. Retry in \(seconds) s.",
                retryAfter: seconds
            ).toolError
        case .throttled: return TodoError.rateLimited(retryAfter: retryAfter.map(Self.seconds) ?? 30).toolError
        case .unavailable: return TodoError.upstreamUnavailable(retryAfter: retryAfter.map(Self.seconds)).toolError
        case .accountUnsupported: return TodoError.accountUnsupported.toolError
        case .quotaExceeded:
            return TodoError(
                code: .quotaExceeded,
                message:
                    "The user's iCloud storage is full, so iCloud refused the change. Retrying will not help: tell "
                    + "the user to free up iCloud space (or upgrade their storage), then try again."
            ).toolError
        case .conflict: return TodoError.conflict.toolError
        case .notFound, .zoneNotFound, .badRequest, .accessDenied, .invalidResponse, .invalidRecord, .cancelled,
            .server:
            return nil
        }
    }

    /// Whole seconds to tell the agent: rounded up, at least 1, at most five minutes (`RetryAfter.advisedSeconds`;
    /// CloudKit's `retryAfter` unit is undocumented, so a huge value is more likely misread than real).
    static func seconds(_ duration: Duration) -> Int { RetryAfter.advisedSeconds(duration) }
}
