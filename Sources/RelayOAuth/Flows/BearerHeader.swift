import RelayHTTP

/// The one reader of `Authorization: Bearer <token>` (RFC 6750 §2.1): the OAuth server's
/// validation and the MCP endpoint's cached fast path both take the token from here, so they can
/// never disagree about which token a request carries.
package enum BearerHeader {
    /// The token of a `Bearer` credential: the scheme in any case, then one space, then the token
    /// (further spaces or tabs before it are skipped). nil for another scheme or an empty token.
    package static func token(in value: some StringProtocol) -> String? {
        guard value.count > 7, value.prefix(7).lowercased() == "bearer " else { return nil }
        let token = value.dropFirst(7).drop { $0 == " " || $0 == "\t" }
        return token.isEmpty ? nil : String(token)
    }

    /// The token of the request's only `Authorization` header; nil when there is none, more than
    /// one, or another scheme.
    package static func token(of request: Request) -> String? {
        request.headers.onlyValue("authorization").flatMap { token(in: $0) }
    }
}
