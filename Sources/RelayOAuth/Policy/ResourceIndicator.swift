/// RFC 8707 resource indicators. The relay protects exactly one resource, `<issuer>/mcp`; a
/// request may name it with or without a trailing slash, with an upper-case scheme or host, or
/// with the default port, and means the same thing. Anything else is another audience.
enum ResourceIndicator {
    /// The canonical form: lower-case scheme and host, no default port, no trailing slash. Nil for
    /// what cannot be a resource: relative, fragment, userinfo, query, or not http(s).
    static func canonical(_ text: String) -> String? {
        guard case .success(let uri) = ParsedURI.parse(text), uri.query == nil else { return nil }
        let scheme = uri.scheme.lowercased()
        guard scheme == "https" || scheme == "http" else { return nil }
        var result = "\(scheme)://\(uri.host.lowercased())"
        if let port = uri.port, !(scheme == "https" && port == 443), !(scheme == "http" && port == 80) {
            result += ":\(port)"
        }
        var path = uri.path
        while path.hasSuffix("/") { path.removeLast() }
        return result + path
    }

    /// Whether `requested` names `expected` (both compared in canonical form).
    static func matches(_ requested: String, expected: String) -> Bool {
        guard let requested = canonical(requested), let expected = canonical(expected) else { return false }
        return requested == expected
    }
}

/// A set of scope tokens kept in the server's order (RFC 6749 §3.3).
struct ScopeSet: Sendable, Equatable {
    /// The tokens, unique, in the order the server lists them.
    let tokens: [String]

    /// Parses a space-separated scope string; nil when a token has characters outside NQCHAR.
    static func parse(_ text: String) -> [String]? {
        let tokens = text.split(separator: " ").map(String.init)
        for token in tokens {
            guard token.utf8.allSatisfy({ $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) })
            else { return nil }
        }
        return tokens
    }

    /// The scopes of `requested` that the server knows, in the server's order. `offline_access` is
    /// dropped silently: refresh tokens are always issued. Nil when an unknown scope remains.
    static func resolve(_ requested: [String], supported: [String]) -> ScopeSet? {
        let wanted = Set(requested.filter { $0 != "offline_access" })
        guard wanted.isSubset(of: Set(supported)) else { return nil }
        return ScopeSet(tokens: supported.filter { wanted.contains($0) })
    }

    /// The scopes as the space-separated string OAuth sends.
    var text: String { tokens.joined(separator: " ") }

    /// Whether every token of `other` is in this set.
    func contains(_ other: ScopeSet) -> Bool { Set(other.tokens).isSubset(of: Set(tokens)) }

    /// A set from stored text, keeping the stored order.
    init(text: String) { tokens = text.split(separator: " ").map(String.init) }

    /// A set from tokens already in order.
    init(tokens: [String]) { self.tokens = tokens }
}
