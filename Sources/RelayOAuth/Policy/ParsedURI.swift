import RelayHTTP

/// A strictly parsed absolute URI with an authority: `scheme://host[:port][/path][?query]`.
///
/// Stricter than RFC 3986 on purpose, because it judges redirect URIs, resource indicators and
/// metadata-document URLs that clients choose: printable ASCII only (no spaces, controls,
/// backslashes or raw non-ASCII), no fragment, no userinfo, no dot segments, valid
/// percent-escapes, a host that is a DNS name or an IP literal. Nothing is normalised: callers
/// compare the parts as written.
///
/// Because parts are compared as written, the path must mean the same to every reader of it:
/// escapes that a later decoder could turn into structure are refused (`%2F` and `%5C`, the
/// separators; `%25`, which hides a second round of escapes such as `%252F`; and escaped controls
/// `%00`–`%1F`, `%7F`, which can cut a path short), and so are dot segments in every spelling
/// (`.`, `..`, `%2e`, `.%2E`…), also followed by a `;` parameter (`..;`, which some servers still
/// read as `..`). Otherwise `%2F` inside one segment that an allowlist wildcard accepts would be
/// two segments to the client's server.
struct ParsedURI: Equatable, Sendable {
    /// Why a string is not acceptable.
    enum Problem: Equatable, Sendable {
        case malformed
        case dangerousScheme
        case fragment
        case userinfo
        case dotSegments
        case encodedSeparator
        case noAuthority
    }

    /// The outcome of `parse` (an enum of its own, so a refusal is a value, not a thrown error).
    enum Parsing: Equatable, Sendable {
        case success(ParsedURI)
        case failure(Problem)
    }

    /// The scheme as written.
    var scheme: String
    /// The host as written; IPv6 literals keep their brackets.
    var host: String
    /// The port, if one was written.
    var port: Int?
    /// The path, possibly empty.
    var path: String
    /// The query without `?`, or nil when there is none.
    var query: String?

    /// Schemes that run code, read local data or leave the browser: never a redirect target.
    static let dangerousSchemes: Set<String> = [
        "javascript", "data", "vbscript", "file", "blob", "mailto", "about", "filesystem", "view-source", "tel",
        "sms", "ftp", "ws", "wss", "chrome", "intent",
    ]

    /// Parses `text`, or says why it is refused.
    static func parse(_ text: String) -> Parsing {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 2048 else { return .failure(.malformed) }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return .failure(.malformed) }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self)
        guard isValidScheme(bytes[..<colon]) else { return .failure(.malformed) }
        if dangerousSchemes.contains(scheme.lowercased()) { return .failure(.dangerousScheme) }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") }) else {
            return .failure(.malformed)
        }
        if bytes.contains(UInt8(ascii: "#")) { return .failure(.fragment) }
        let rest = bytes[(colon + 1)...]
        guard rest.starts(with: [UInt8(ascii: "/"), UInt8(ascii: "/")]) else { return .failure(.noAuthority) }
        let afterSlashes = rest.dropFirst(2)
        let authorityEnd =
            afterSlashes.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? afterSlashes.endIndex
        let authority = afterSlashes[..<authorityEnd]
        if authority.contains(UInt8(ascii: "@")) { return .failure(.userinfo) }
        guard let (host, port) = parseAuthority(authority) else { return .failure(.malformed) }
        let tail = afterSlashes[authorityEnd...]
        let queryMark = tail.firstIndex(of: UInt8(ascii: "?"))
        let pathBytes = tail[..<(queryMark ?? tail.endIndex)]
        guard isValidComponent(pathBytes, allowQuestionMark: false) else { return .failure(.malformed) }
        if hasDotSegment(pathBytes) { return .failure(.dotSegments) }
        if hasMisleadingEscape(pathBytes) { return .failure(.encodedSeparator) }
        var query: String?
        if let queryMark {
            let queryBytes = tail[tail.index(after: queryMark)...]
            guard isValidComponent(queryBytes, allowQuestionMark: true) else { return .failure(.malformed) }
            query = String(decoding: queryBytes, as: UTF8.self)
        }
        return .success(
            ParsedURI(
                scheme: scheme, host: host, port: port, path: String(decoding: pathBytes, as: UTF8.self), query: query))
    }

    /// Whether the host is `localhost`, an address in 127.0.0.0/8, or `[::1]`.
    var isLoopback: Bool {
        if host == "localhost" { return true }
        guard let address = IPAddress(host), host.hasPrefix("[") || address.isIPv4 else { return false }
        return address.isLoopback
    }

    private static func isValidScheme(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard let first = bytes.first, isAlpha(first) else { return false }
        return bytes.allSatisfy {
            isAlpha($0) || isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
        }
    }

    private static func parseAuthority(_ authority: ArraySlice<UInt8>) -> (String, Int?)? {
        var hostBytes = authority
        var port: Int?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            hostBytes = authority[...close]
            guard IPAddress(String(decoding: hostBytes, as: UTF8.self)) != nil else { return nil }
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":"), let value = parsePort(after.dropFirst()) else { return nil }
                port = value
            }
        } else {
            if let colon = authority.firstIndex(of: UInt8(ascii: ":")) {
                guard let value = parsePort(authority[authority.index(after: colon)...]) else { return nil }
                port = value
                hostBytes = authority[..<colon]
            }
            guard !hostBytes.isEmpty, hostBytes.count <= 253,
                hostBytes.allSatisfy({
                    isAlpha($0) || isDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
                })
            else { return nil }
        }
        return (String(decoding: hostBytes, as: UTF8.self), port)
    }

    private static func parsePort(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard (1...5).contains(bytes.count), bytes.allSatisfy(isDigit),
            let value = Int(String(decoding: bytes, as: UTF8.self)), value <= 65535
        else { return nil }
        return value
    }

    /// pchar / "/" (and "?" in a query), with every `%` followed by two hex digits.
    private static func isValidComponent(_ bytes: ArraySlice<UInt8>, allowQuestionMark: Bool) -> Bool {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex else { return false }
                guard PercentEncoding.hexValue(bytes[index + 1]) != nil,
                    PercentEncoding.hexValue(bytes[index + 2]) != nil
                else { return false }
                index += 3
                continue
            }
            guard isPathCharacter(byte) || (allowQuestionMark && byte == UInt8(ascii: "?")) else { return false }
            index += 1
        }
        return true
    }

    /// `.` or `..` as a segment, written plainly or percent-encoded (`%2e`), alone or before a `;`
    /// path parameter (`..;x`).
    private static func hasDotSegment(_ path: ArraySlice<UInt8>) -> Bool {
        let dots: Set<String> = [".", "..", "%2e", "%2e%2e", ".%2e", "%2e."]
        return path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).contains { segment in
            let beforeParameter = segment.prefix { $0 != UInt8(ascii: ";") }
            return dots.contains(String(decoding: beforeParameter, as: UTF8.self).lowercased())
        }
    }

    /// A percent-escape of `/`, `\`, `%` or a control character (the escapes are already known to be
    /// two hex digits each).
    private static func hasMisleadingEscape(_ path: ArraySlice<UInt8>) -> Bool {
        var index = path.startIndex
        while index < path.endIndex {
            guard path[index] == UInt8(ascii: "%") else {
                index += 1
                continue
            }
            let value = PercentEncoding.hexValue(path[index + 1])! << 4 | PercentEncoding.hexValue(path[index + 2])!
            if value == 0x2F || value == 0x5C || value == 0x25 || value < 0x20 || value == 0x7F { return true }
            index += 3
        }
        return false
    }

    private static func isPathCharacter(_ byte: UInt8) -> Bool {
        if isAlpha(byte) || isDigit(byte) { return true }
        return "-._~!$&'()*+,;=:@/".utf8.contains(byte)
    }

    private static func isAlpha(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
