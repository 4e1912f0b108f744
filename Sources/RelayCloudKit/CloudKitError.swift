/// Why a CloudKit call failed. `kind` is what callers branch on; the other fields are detail.
/// `description` carries no token and no server `reason` (which can echo record values), so it
/// is safe to log.
package struct CloudKitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as the relay needs to act on it.
    package enum Kind: String, Sendable, Equatable {
        /// The person's session is over (421 AUTHENTICATION_REQUIRED): they must sign in again.
        case sessionDead
        /// The relay's own verdict, never CloudKit's answer: the connection's newest CloudKit token is
        /// dead, and the connection waits for its person to sign in to iCloud again (issue 39).
        /// `redirectURL` is the relay's single-use link for that sign-in.
        case signInRequired
        /// 401 AUTHENTICATION_FAILED: CloudKit refused the call's credentials without saying which.
        /// Apple's samples read it as a wrong API token or container (the operator's fault); some
        /// clients see it for an ended session. Never a reason to end a grant by itself: the caller
        /// checks the API token (`checkAPIToken()`) before it treats this as `sessionDead`.
        case authenticationFailed
        /// THROTTLED: wait `retryAfter`.
        case throttled
        /// 5xx, TRY_AGAIN_LATER, a timeout or a connection failure.
        case unavailable
        /// CONFLICT (stale `recordChangeTag`) or EXISTS.
        case conflict
        /// NOT_FOUND.
        case notFound
        /// ZONE_NOT_FOUND.
        case zoneNotFound
        /// The account cannot be used through Web Services (ACCESS_DENIED on the whole request,
        /// Advanced Data Protection, web access off).
        case accountUnsupported
        /// QUOTA_EXCEEDED: the user's iCloud storage is full.
        case quotaExceeded
        /// BAD_REQUEST and other refusals of the request as sent.
        case badRequest
        /// ACCESS_DENIED on one record.
        case accessDenied
        /// A success status with a body that is not the documented shape.
        case invalidResponse
        /// A record that does not decode into the typed record asked for.
        case invalidRecord
        /// The calling task was cancelled.
        case cancelled
        /// Any other server error.
        case server
    }

    /// What went wrong.
    package var kind: Kind
    /// The HTTP status, when a response came back.
    package var status: Int?
    /// CloudKit's `serverErrorCode`, e.g. `THROTTLED`.
    package var serverErrorCode: String?
    /// CloudKit's `reason` (may quote request values: do not log it).
    package var reason: String?
    /// How long CloudKit asked to wait (`retryAfter`, its unit decided by `RetryAfter`, or a `Retry-After` header).
    package var retryAfter: Duration?
    /// The sign-in URL a 421 carried.
    package var redirectURL: String?
    /// The record an item error belongs to.
    package var recordName: String?
    /// A token CloudKit rotated to before the failure. Store it like a successful call's.
    package var rotatedToken: CloudKitWebAuthToken?
    /// A call that timed out but is still listening for CloudKit's answer (`CloudKitConfiguration.lateAnswerWait`):
    /// the token of that answer must be saved like a successful call's.
    package var lateAnswer: LateAnswer?

    /// An error.
    package init(
        _ kind: Kind,
        status: Int? = nil,
        serverErrorCode: String? = nil,
        reason: String? = nil,
        retryAfter: Duration? = nil,
        redirectURL: String? = nil,
        recordName: String? = nil,
        rotatedToken: CloudKitWebAuthToken? = nil
    ) {
        self.kind = kind
        self.status = status
        self.serverErrorCode = serverErrorCode
        self.reason = reason
        self.retryAfter = retryAfter
        self.redirectURL = redirectURL
        self.recordName = recordName
        self.rotatedToken = rotatedToken
    }

    /// A summary safe to log.
    package var description: String {
        var text = "CloudKit \(kind.rawValue)"
        if let status { text += " (HTTP \(status)" + (serverErrorCode.map { " \($0)" } ?? "") + ")" }
        if let retryAfter { text += ", retry after \(retryAfter)" }
        return text
    }

    /// Whether a read may be tried again.
    var isRetryable: Bool { kind == .throttled || kind == .unavailable }
}

extension CloudKitError.Kind {
    /// The kind for a whole-request failure.
    static func forRequest(status: Int, serverErrorCode: String?) -> Self {
        if status == 421 { return .sessionDead }
        if let code = serverErrorCode, let kind = forCode(code, wholeRequest: true) { return kind }
        switch status {
        case 401: return .authenticationFailed
        case 403: return .accountUnsupported
        case 404: return .notFound
        case 409: return .conflict
        // 413 is iCloud being full only with CloudKit's QUOTA_EXCEEDED (handled above): a bare 413 is a proxy's
        // "request too large", a refused request (issue 42).
        case 429: return .throttled
        case 400..<500: return .badRequest
        case 500..<600: return .unavailable
        default: return .server
        }
    }

    /// The kind for a `serverErrorCode`, or nil for a code this client does not know.
    static func forCode(_ code: String, wholeRequest: Bool) -> Self? {
        switch code {
        case "AUTHENTICATION_REQUIRED": .sessionDead
        case "AUTHENTICATION_FAILED": .authenticationFailed
        case "THROTTLED": .throttled
        case "TRY_AGAIN_LATER", "INTERNAL_ERROR", "SERVICE_UNAVAILABLE": .unavailable
        case "CONFLICT", "EXISTS": .conflict
        case "NOT_FOUND": .notFound
        case "ZONE_NOT_FOUND": .zoneNotFound
        case "QUOTA_EXCEEDED": .quotaExceeded
        case "ACCESS_DENIED": wholeRequest ? .accountUnsupported : .accessDenied
        case "BAD_REQUEST", "ATOMIC_ERROR", "VALIDATING_REFERENCE_ERROR", "UNIQUE_FIELD_ERROR", "NOT_SUPPORTED_BY_ZONE",
            "LIMIT_EXCEEDED":
            .badRequest
        default: nil
        }
    }
}
