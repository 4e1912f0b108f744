/// An HTTP request as AWS Signature Version 4 sees it: what goes on the wire, before signing.
package struct SigV4Request: Sendable {
    /// The method, e.g. `POST`.
    package var method: String
    /// The path as sent (`/` for the JSON APIs). The canonical form normalizes it and
    /// percent-encodes every byte outside the unreserved set.
    package var path: String
    /// The query string as sent, without `?` (empty for none). Each name and value is decoded and
    /// re-encoded, so raw and percent-encoded forms sign alike.
    package var query: String
    /// The header fields in order, names in any case; `Host` must be among them. Every field is
    /// signed except hop-by-hop ones and `User-Agent`, `Expect`, `X-Amzn-Trace-Id`.
    package var headers: [(name: String, value: String)]
    /// The body (the payload hash covers it).
    package var body: [UInt8]

    /// A request from its parts.
    package init(
        method: String, path: String = "/", query: String = "", headers: [(name: String, value: String)],
        body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }
}

/// The outcome of signing: every intermediate value (for tests) and the header fields to add to
/// the request. The signature is a credential for a few minutes and the canonical request carries
/// any session token, so descriptions and reflection show only the signed header names.
package struct SigV4Signature: Sendable, CustomStringConvertible, CustomReflectable {
    /// The canonical request (step 1 of the algorithm).
    package let canonicalRequest: String
    /// The string to sign (step 2).
    package let stringToSign: String
    /// The signature as lowercase hex (step 4).
    package let signature: String
    /// The lowercase names of the signed header fields, `;`-separated.
    package let signedHeaders: String
    /// The fields to add, in order: `X-Amz-Date`, `X-Amz-Security-Token` (session credentials),
    /// `X-Amz-Content-SHA256` (when asked for) and `Authorization`.
    package let headers: [(name: String, value: String)]

    /// The `Authorization` field's value.
    package var authorization: String { headers.last { $0.name == "Authorization" }?.value ?? "" }

    package var description: String { "SigV4Signature(signed headers: \(signedHeaders), redacted)" }

    package var customMirror: Mirror { Mirror(self, children: ["signedHeaders": signedHeaders]) }
}
