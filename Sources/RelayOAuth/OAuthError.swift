import RelayHTTP
import RelayJSON

/// Every failure of the authorization server, as the client or the person must see it.
///
/// Machine endpoints (`/token`, `/register`, `/revoke`, bearer validation) render it as RFC 6749
/// §5.2 JSON with `Cache-Control: no-store`; browser endpoints render the same value as a local
/// HTML page (`Pages`), or send it back to a validated redirect URI with `state` and `iss`.
/// `detail` is shown to clients, so it never carries a token, a secret or a client-supplied value.
package struct OAuthError: Error, HTTPResponseError, Equatable, CustomStringConvertible {
    /// The error codes. The first groups are the wire codes of RFC 6749, 6750, 7591 and 8707; the
    /// last group never goes on the wire as an OAuth code: it picks the text of a browser page.
    package enum Code: String, Sendable, Equatable {
        case invalidRequest = "invalid_request"
        case invalidClient = "invalid_client"
        case invalidGrant = "invalid_grant"
        case unauthorizedClient = "unauthorized_client"
        case unsupportedGrantType = "unsupported_grant_type"
        case invalidScope = "invalid_scope"
        case unsupportedResponseType = "unsupported_response_type"
        case accessDenied = "access_denied"
        case serverError = "server_error"
        case temporarilyUnavailable = "temporarily_unavailable"
        case invalidTarget = "invalid_target"
        case invalidToken = "invalid_token"
        case insufficientScope = "insufficient_scope"
        case invalidRedirectURI = "invalid_redirect_uri"
        case invalidClientMetadata = "invalid_client_metadata"
        case tooManyRequests = "too_many_requests"
        /// Browser only: the person's browser does not hold the cookie of this sign-in.
        case bindingMissing = "binding_missing"
        /// Browser only: the cookie belongs to another browser or another request.
        case bindingMismatch = "binding_mismatch"
        /// Browser only: consent was pressed too long ago, or the request expired.
        case consentExpired = "consent_expired"
        /// Browser only: this sign-in already finished (a second callback, a reload).
        case alreadyUsed = "already_used"
        /// Browser only: Apple's sign-in did not return a session (cancelled or failed).
        case signInFailed = "sign_in_failed"
        /// Browser only: the Apple account cannot be used through iCloud web services (Advanced
        /// Data Protection, or "Access iCloud Data on the Web" turned off).
        case accountUnsupported = "account_unsupported"
        /// Browser only: Apple's callback opened in a tab other than the one that pressed the button
        /// (another site's navigation or `window.open`, a second tab): nothing was stored, and the
        /// starting tab can still finish.
        case wrongTab = "wrong_tab"
        /// Browser only: signing in again for a connection (`Reconnections`) came back with another
        /// Apple Account than the connection's: nothing was changed.
        case otherAccount = "other_account"
    }

    /// What went wrong.
    package var code: Code
    /// A sentence safe to show (`error_description`).
    package var detail: String?
    /// The HTTP status of the JSON or page rendering.
    package var status: HTTPStatus
    /// Extra headers (`WWW-Authenticate`, `Retry-After`).
    package var headers: HTTPHeaders

    /// An error with the status its code usually has.
    package init(_ code: Code, _ detail: String? = nil, status: HTTPStatus? = nil, headers: HTTPHeaders = [:]) {
        self.code = code
        self.detail = detail
        self.status = status ?? Self.defaultStatus(code)
        self.headers = headers
    }

    package var description: String { "OAuthError(\(code.rawValue)\(detail.map { ": \($0)" } ?? ""))" }

    /// `{"error": code, "error_description": detail}` with `no-store` and the extra headers.
    package func response() -> Response {
        var body: JSONObject = ["error": .string(code.rawValue)]
        if let detail { body["error_description"] = .string(detail) }
        var response = Response.json(.object(body), status: status)
        NoStore.apply(to: &response)
        for (name, value) in headers { response.headers.set(name, value) }
        return response
    }

    private static func defaultStatus(_ code: Code) -> HTTPStatus {
        switch code {
        case .invalidClient, .invalidToken: .unauthorized
        case .serverError: .internalServerError
        case .temporarilyUnavailable: .serviceUnavailable
        case .tooManyRequests: .tooManyRequests
        case .bindingMissing, .bindingMismatch, .wrongTab: .forbidden
        case .consentExpired, .alreadyUsed: .gone
        case .accountUnsupported, .otherAccount: .forbidden
        default: .badRequest
        }
    }
}

extension OAuthError {
    /// A store failure, as a client should see it: retry later, never the detail.
    static let storeUnavailable = OAuthError(.temporarilyUnavailable, "The service is busy; try again shortly.")
}

/// `Cache-Control: no-store` and `Pragma: no-cache`, which every token, registration and error
/// response carries (RFC 6749 §5.1, OAuth 2.1 §3.2.3).
enum NoStore {
    static func apply(to response: inout Response) {
        response.headers.set("Cache-Control", "no-store")
        response.headers.set("Pragma", "no-cache")
    }
}
