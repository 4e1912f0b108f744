/// A response a handler returns. The server adds `Content-Length`, `Date` and `Connection`.
package struct Response: Sendable {
    /// The status.
    package var status: HTTPStatus
    /// Header fields, written in order with the case given.
    package var headers: HTTPHeaders
    /// The body; for HEAD requests the server sends only its length.
    package var body: [UInt8]

    /// A response.
    package init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A `text/plain; charset=utf-8` response.
    package static func text(_ text: String, status: HTTPStatus = .ok) -> Response {
        Response(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// A `text/html; charset=utf-8` response.
    package static func html(_ html: String, status: HTTPStatus = .ok) -> Response {
        Response(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: Array(html.utf8))
    }

    /// A redirect to `location` (302 unless told otherwise).
    package static func redirect(to location: String, status: HTTPStatus = .found) -> Response {
        Response(status: status, headers: ["Location": location])
    }
}
