/// Which redirect URIs a client may have, and which registered URI a request names.
struct RedirectURIPolicy: Sendable {
    /// The verdict on one URI a client wants to register.
    enum Verdict: Equatable {
        /// Safe, and on the allowlist or (in the open mode) a kind of redirect anyone may register.
        case allowed
        /// Well formed and safe, but no allowlist pattern matches it in the allowlist mode: left
        /// out of the registration.
        case outsideAllowlist
        /// Unsafe or malformed: the whole registration is refused.
        case refused(String)
    }

    let allowlist: RedirectAllowlist
    /// The most redirect URIs one client may register.
    let maximumCount: Int
    /// Whether safe redirects off the list are accepted (as self-registered).
    var mode: RegistrationMode = .allowlist

    /// Judges one URI: dangerous schemes, fragments, userinfo, dot segments and control characters
    /// are refused, so is plain `http` to anything but loopback (OAuth 2.1 §2.3.1), in both modes.
    func verdict(_ uri: String) -> Verdict {
        switch ParsedURI.parse(uri) {
        case .failure(let problem):
            return .refused(Self.reason(problem))
        case .success(let parsed):
            if parsed.scheme.lowercased() == "http", !parsed.isLoopback {
                return .refused("http redirect URIs are allowed only for loopback addresses")
            }
            if allowlist.allows(parsed) { return .allowed }
            // The open mode: any https, or a private-use scheme (RFC 8252 §7.1); loopback http is
            // on the list already, other http was refused above, dangerous schemes by `ParsedURI`.
            return mode == .open ? .allowed : .outsideAllowlist
        }
    }

    /// The registered URIs to keep from a client's list, or the error that refuses the list: an
    /// empty list, too many, any unsafe one, or none on the allowlist.
    func filter(_ uris: [String]) -> Result<[String], OAuthError> {
        guard !uris.isEmpty else { return .failure(OAuthError(.invalidRedirectURI, "redirect_uris must not be empty")) }
        guard uris.count <= maximumCount else {
            return .failure(OAuthError(.invalidRedirectURI, "at most \(maximumCount) redirect URIs are allowed"))
        }
        var kept: [String] = []
        for uri in uris {
            switch verdict(uri) {
            case .allowed: if !kept.contains(uri) { kept.append(uri) }
            case .outsideAllowlist: continue
            case .refused(let reason): return .failure(OAuthError(.invalidRedirectURI, reason))
            }
        }
        guard !kept.isEmpty else {
            return .failure(OAuthError(.invalidRedirectURI, "no redirect URI is on this server's allowlist"))
        }
        return .success(kept)
    }

    /// The redirect URI to use for a request naming `requested` (nil: the client's only one),
    /// or nil when it matches nothing registered. Matching is exact, except that a registered
    /// loopback `http` URI matches the same URI on any port (RFC 8252 §7.3): same scheme, same
    /// host as written (no localhost ↔ 127.0.0.1 crossing), same path and query.
    ///
    /// The URI chosen must also still pass `ParsedURI`'s rules, so a client registered before a rule
    /// was tightened (an escaped slash in a path, say) cannot use that URI any more.
    static func match(requested: String?, registered: [String]) -> String? {
        guard let requested else {
            guard registered.count == 1, case .success = ParsedURI.parse(registered[0]) else { return nil }
            return registered[0]
        }
        guard case .success(let asked) = ParsedURI.parse(requested) else { return nil }
        if registered.contains(requested) { return requested }
        guard asked.scheme == "http", asked.isLoopback else { return nil }
        for candidate in registered {
            guard case .success(let known) = ParsedURI.parse(candidate), known.scheme == "http", known.isLoopback
            else { continue }
            if known.host == asked.host, known.path == asked.path, known.query == asked.query { return requested }
        }
        return nil
    }

    private static func reason(_ problem: ParsedURI.Problem) -> String {
        switch problem {
        case .malformed: "a redirect URI is malformed"
        case .dangerousScheme: "a redirect URI uses a scheme that is not allowed"
        case .fragment: "a redirect URI must not contain a fragment"
        case .userinfo: "a redirect URI must not contain user information"
        case .dotSegments: "a redirect URI must not contain dot segments"
        case .encodedSeparator:
            "a redirect URI path must not contain an escaped slash, backslash, percent sign or control character"
        case .noAuthority: "a redirect URI must be an absolute URI with a host"
        }
    }
}
