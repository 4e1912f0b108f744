import RelayJSON

/// An error that knows the response it should produce. Handlers throw these; any other error
/// becomes a bare 500 with the detail kept for the log.
package protocol HTTPResponseError: Error {
    /// The response to send in place of the handler's.
    func response() -> Response
}

/// A plain HTTP error: status, optional message, extra headers. Rendered as
/// `{"error":{"message":…}}` so machine clients always get JSON.
package struct HTTPError: HTTPResponseError, Equatable {
    /// The status to answer with.
    package var status: HTTPStatus
    /// A message safe to show the client.
    package var message: String?
    /// Extra headers such as `Allow` or `WWW-Authenticate`.
    package var headers: HTTPHeaders

    /// An error.
    package init(_ status: HTTPStatus, message: String? = nil, headers: HTTPHeaders = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    package func response() -> Response {
        var response = Response.json(
            JSONValue.object(["error": .object(["message": .string(message ?? status.reason)])]),
            status: status
        )
        for (name, value) in headers { response.headers.set(name, value) }
        return response
    }
}
