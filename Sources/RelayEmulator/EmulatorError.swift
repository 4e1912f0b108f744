import RelayHTTP
import RelayJSON

/// Everything the emulator refuses, rendered as the service would: database calls get CloudKit's
/// `{uuid, serverErrorCode, reason, …}` body, the control API a plain JSON message.
package struct EmulatorError: Error, Sendable, HTTPResponseError, CustomStringConvertible {
    /// The HTTP status.
    package var status: Int
    /// CloudKit's `serverErrorCode` (nil for control API errors).
    package var serverErrorCode: String?
    /// The `reason` text.
    package var reason: String
    /// Extra body members (`redirectURL`, `retryAfter`).
    package var extra: JSONObject
    /// A body to send instead of the error dictionary (the per-record atomic failure shape).
    var bodyOverride: JSONValue?

    /// A CloudKit-style error.
    package init(status: Int, code: String?, reason: String, extra: JSONObject = [:]) {
        self.status = status
        self.serverErrorCode = code
        self.reason = reason
        self.extra = extra
    }

    /// 400 BAD_REQUEST.
    static func badRequest(_ reason: String) -> EmulatorError {
        EmulatorError(status: 400, code: "BAD_REQUEST", reason: "BadRequestException: \(reason)")
    }

    /// A control API usage error.
    static func control(_ message: String) -> EmulatorError { EmulatorError(status: 400, code: nil, reason: message) }

    /// Failed startup (port in use, unreadable state file).
    static func startup(_ message: String) -> EmulatorError { EmulatorError(status: 500, code: nil, reason: message) }

    /// A summary safe to log.
    package var description: String { "\(status) \(serverErrorCode ?? "") \(reason)" }

    /// The error body CloudKit sends.
    var body: JSONValue {
        if let bodyOverride { return bodyOverride }
        guard let serverErrorCode else { return ["error": .string(reason)] }
        var object: JSONObject = [
            "uuid": .string(Opaque.uuid()), "serverErrorCode": .string(serverErrorCode), "reason": .string(reason),
        ]
        for (key, value) in extra { object[key] = value }
        return .object(object)
    }

    /// The response this error renders as.
    package func response() -> Response {
        Response.json(body, status: HTTPStatus(code: status, reason: Self.reasonPhrase(status)))
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 409: "Conflict"
        case 412: "Precondition Failed"
        case 413: "Request Entity Too Large"
        case 421: "Misdirected Request"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
