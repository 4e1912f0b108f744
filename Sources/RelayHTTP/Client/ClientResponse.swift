/// A complete response. Every status is a response, not an error: 3xx is never followed, and
/// 4xx/5xx come back as they are for the caller to interpret.
package struct ClientResponse: Sendable {
    /// The final status code (interim 1xx responses are skipped).
    package var status: Int
    /// The final response's header fields, in order.
    package var headers: HTTPHeaders
    /// The body, decoded from any `Content-Encoding`.
    package var body: [UInt8]
    /// The protocol spoken: `"1.0"`, `"1.1"`, `"2"` or `"3"`.
    package var httpVersion: String
    /// New connections this exchange had to open (0 when it reused one from the pool).
    package var connectionsOpened: Int

    /// A response (tests and fakes build these directly).
    package init(
        status: Int,
        headers: HTTPHeaders = [:],
        body: [UInt8] = [],
        httpVersion: String = "1.1",
        connectionsOpened: Int = 0
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.httpVersion = httpVersion
        self.connectionsOpened = connectionsOpened
    }

    /// The body as UTF-8 text (invalid sequences replaced).
    package var text: String { String(decoding: body, as: UTF8.self) }
}
