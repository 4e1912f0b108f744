import Foundation
import RelayJSON

extension Response {
    /// An `application/json` response from a `JSONValue`, written without Foundation's encoder.
    package static func json(_ value: JSONValue, status: HTTPStatus = .ok) -> Response {
        Response(status: status, headers: ["Content-Type": "application/json"], body: value.bytes)
    }
}

extension Request {
    /// The body parsed as JSON; a malformed body throws a 400 `HTTPError`.
    package func jsonBody() throws(HTTPError) -> JSONValue {
        do {
            return try JSONValue(parsing: body)
        } catch {
            throw HTTPError(.badRequest, message: "The body is not valid JSON: \(error.reason).")
        }
    }

    /// Whether the `Content-Type` media type is `mediaType` (parameters such as charset ignored).
    package func hasContentType(_ mediaType: String) -> Bool {
        guard let value = headers["content-type"] else { return false }
        let type = value.split(separator: ";", maxSplits: 1).first.map { String($0.trimmingOWS) } ?? ""
        return HTTPHeaders.equalsIgnoringCase(type, mediaType)
    }
}
