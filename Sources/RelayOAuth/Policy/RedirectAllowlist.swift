/// The listed redirect URIs: known platforms' callbacks (verified on the consent page), the
/// operator's additions, and loopback. In `RegistrationMode.allowlist` they are the only redirect
/// URIs a client may register (DCR) or publish (metadata document); in `.open` other safe ones are
/// accepted too, as self-registered. A registered URI must still be matched exactly at
/// `/authorize` (`RedirectURIPolicy.match`).
///
/// Pattern syntax: `scheme://host[:port|:*]/path`, compared case-sensitively and byte for byte.
/// In the path, `*` stands for exactly one non-empty segment and a final `**` for any rest of the
/// path, query included; without `**` a URI with a query does not match. `:*` allows any port or
/// none.
package struct RedirectAllowlist: Sendable, Equatable {
    /// The defaults: the known platforms' callbacks (`KnownPlatform.defaults`, each with its
    /// source), and loopback on any port and path (Claude Code, Cursor's desktop app, VS Code
    /// desktop, the MCP Inspector, mcp-remote, both SDKs, RFC 8252 native apps).
    package static let defaultPatterns = KnownPlatform.defaults.map(\.pattern) + loopbackPatterns

    /// Loopback `http` on any port and path (RFC 8252 §7.3).
    package static let loopbackPatterns = ["http://localhost:*/**", "http://127.0.0.1:*/**", "http://[::1]:*/**"]

    /// What a URI on the list is.
    package enum Entry: Sendable, Equatable {
        /// A known platform's callback (`KnownPlatform`), with the platform's name.
        case platform(String)
        /// A known platform's callback of a pattern any account there can make
        /// (`KnownPlatform.anyAccountMakesOne`), with the platform's name.
        case platformConnector(String)
        /// An entry the operator added.
        case operatorEntry
        /// Loopback: an app on the person's own device.
        case loopback
    }

    /// One parsed pattern.
    struct Pattern: Sendable, Equatable {
        enum Port: Sendable, Equatable {
            case none
            case exactly(Int)
            case any
        }

        var scheme: String
        var host: String
        var port: Port
        /// Path segments after the leading `/`; `*` and a final `**` are wildcards.
        var segments: [String]
        var query: String?
    }

    let patterns: [Pattern]
    /// What each pattern is, in the same order.
    let entries: [Entry]

    /// The patterns as written, for display and configuration checks.
    package let texts: [String]

    /// An allowlist of exactly `texts` (tests; names them as known platforms only when they are
    /// the defaults); nil when a pattern is malformed (the configuration check names it).
    package init?(_ texts: [String] = RedirectAllowlist.defaultPatterns) {
        var patterns: [Pattern] = []
        for text in texts {
            guard let pattern = Self.parse(text) else { return nil }
            patterns.append(pattern)
        }
        self.patterns = patterns
        self.texts = texts
        self.entries = texts.map { text in
            if Self.loopbackPatterns.contains(text) { return .loopback }
            guard let platform = KnownPlatform.defaults.first(where: { $0.pattern == text }) else {
                return .operatorEntry
            }
            return platform.anyAccountMakesOne ? .platformConnector(platform.name) : .platform(platform.name)
        }
    }

    /// The defaults with the operator's `extra` patterns added after them (never replacing them);
    /// nil when one is malformed.
    package init?(adding extra: [String]) {
        self.init(Self.defaultPatterns + extra.filter { !Self.defaultPatterns.contains($0) })
    }

    /// Whether a parsed URI matches some pattern.
    func allows(_ uri: ParsedURI) -> Bool {
        patterns.contains { Self.matches($0, uri) }
    }

    /// What the first pattern a URI matches is, or nil when it matches none.
    func entry(for uri: ParsedURI) -> Entry? {
        patterns.firstIndex { Self.matches($0, uri) }.map { entries[$0] }
    }

    /// The first pattern that does not parse, for configuration messages.
    package static func invalidPattern(in texts: [String]) -> String? {
        texts.first { parse($0) == nil }
    }

    private static func matches(_ pattern: Pattern, _ uri: ParsedURI) -> Bool {
        guard pattern.scheme == uri.scheme, pattern.host == uri.host else { return false }
        switch pattern.port {
        case .none: if uri.port != nil { return false }
        case .exactly(let port): if uri.port != port { return false }
        case .any: break
        }
        var path = uri.path
        if path.hasPrefix("/") { path.removeFirst() }
        let segments = path.isEmpty ? [] : path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for (index, expected) in pattern.segments.enumerated() {
            if expected == "**", index == pattern.segments.count - 1 { return true }
            guard index < segments.count else { return false }
            if expected == "*" {
                if segments[index].isEmpty { return false }
            } else if expected != segments[index] {
                return false
            }
        }
        return segments.count == pattern.segments.count && uri.query == pattern.query
    }

    private static func parse(_ text: String) -> Pattern? {
        guard let separator = text.firstRange(of: "://") else { return nil }
        let scheme = String(text[..<separator.lowerBound])
        guard !scheme.isEmpty, scheme == scheme.lowercased(), !ParsedURI.dangerousSchemes.contains(scheme) else {
            return nil
        }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = String(rest[..<authorityEnd])
        var port = Pattern.Port.none
        if authority.hasSuffix(":*") {
            port = .any
            authority.removeLast(2)
        } else if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            guard let value = Int(authority[authority.index(after: colon)...]), (1...65535).contains(value) else {
                return nil
            }
            port = .exactly(value)
            authority = String(authority[..<colon])
        }
        guard !authority.isEmpty, !authority.contains("@"), !authority.contains("*"),
            authority == authority.lowercased()
        else { return nil }
        var pathAndQuery = String(rest[authorityEnd...])
        var query: String?
        if let mark = pathAndQuery.firstIndex(of: "?") {
            query = String(pathAndQuery[pathAndQuery.index(after: mark)...])
            pathAndQuery = String(pathAndQuery[..<mark])
        }
        if pathAndQuery.hasPrefix("/") { pathAndQuery.removeFirst() }
        let segments =
            pathAndQuery.isEmpty
            ? [] : pathAndQuery.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if let doubleStar = segments.firstIndex(of: "**"), doubleStar != segments.count - 1 || query != nil {
            return nil
        }
        guard !text.contains("#"), segments.allSatisfy({ !$0.contains("*") || $0 == "*" || $0 == "**" }) else {
            return nil
        }
        return Pattern(scheme: scheme, host: authority, port: port, segments: segments, query: query)
    }
}
