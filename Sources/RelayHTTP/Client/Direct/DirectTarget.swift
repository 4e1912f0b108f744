import RelaySync

/// Where an exchange on the direct client goes: the URL taken apart, for requests the direct client
/// takes (`DirectTarget.init` returns nil for the rest, which stay with libcurl and get its errors).
///
/// Only plain shapes are taken: `http[s]://host[:port][/path][?query]` with an ASCII host name, an IPv4
/// literal or a bracketed IPv6 literal, no user information, every byte visible ASCII. A fragment is
/// dropped, as libcurl drops it.
struct DirectTarget: Equatable {
    /// The schemes the direct client can speak.
    enum Scheme: Hashable, Sendable {
        case http
        /// TLS (`DirectChannel.tls`), HTTP/2 when the server's ALPN says `h2`.
        case https
    }

    let scheme: Scheme
    /// The host as resolved: a name (lowercased) or an IP literal without brackets.
    let host: String
    let port: Int
    /// `Host` header value: the authority as written in the URL.
    let authority: String
    /// `path?query`, at least `/`.
    let requestTarget: String
    /// `scheme://host:port`, the key of the connection pool.
    let origin: String
    /// The host as an address when it is an IP literal (then it is never resolved).
    let literal: IPAddress?

    /// The URL's parts, or nil when the direct client does not take this URL.
    init?(_ url: String) {
        // Scanned as bytes: the URL carries the web auth token in its query (hundreds of bytes), and
        // walking it as `Character`s (grapheme breaking, `Substring` indices) cost more per call than
        // everything else the client does before the send.
        var url = url
        guard let (scheme, authority, target) = url.withUTF8({ Self.split($0) }) else { return nil }
        self.scheme = scheme
        guard let parsed = Self.parse(authority, scheme) else { return nil }
        self.host = parsed.host
        self.port = parsed.port
        self.literal = parsed.literal
        self.origin = parsed.origin
        self.authority = authority
        self.requestTarget = target
    }

    /// An authority taken apart.
    private struct Authority: Sendable {
        let host: String
        let port: Int
        let literal: IPAddress?
        let origin: String
    }

    private struct AuthorityKey: Hashable, Sendable {
        let scheme: Scheme
        let authority: String
    }

    /// The relay calls a handful of origins (CloudKit, DynamoDB, KMS, STS), so each authority is
    /// taken apart once (lower-casing, the literal check and the origin string cost as much as the
    /// rest of the exchange's set-up). Bounded: emptied when full.
    private static let parsedAuthorities = Locked<[AuthorityKey: Authority]>([:])
    private static let maxParsedAuthorities = 64

    private static func parse(_ authority: String, _ scheme: Scheme) -> Authority? {
        let key = AuthorityKey(scheme: scheme, authority: authority)
        if let known = parsedAuthorities.withLock({ $0[key] }) { return known }
        guard let (host, port, literal) = hostAndPort(authority[...], defaultPort: scheme == .http ? 80 : 443)
        else { return nil }
        let shownHost = literal.map { $0.isIPv4 ? host : "[\(host)]" } ?? host
        let parsed = Authority(
            host: host, port: port, literal: literal,
            origin: (scheme == .http ? "http://" : "https://") + shownHost + ":\(port)")
        parsedAuthorities.withLock { known in
            if known.count >= maxParsedAuthorities { known.removeAll() }
            known[key] = parsed
        }
        return parsed
    }

    /// The scheme, the authority and the request target (`/` added when the path is empty, the
    /// fragment dropped), or nil for a URL the direct client does not take: a byte outside visible
    /// ASCII, a scheme other than http or https (in any case), an empty authority or one with user
    /// information.
    private static func split(_ bytes: UnsafeBufferPointer<UInt8>) -> (Scheme, String, String)? {
        guard !bytes.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else { return nil }
        let scheme: Scheme
        let start: Int
        if hasPrefix(bytes, "http://") {
            (scheme, start) = (.http, 7)
        } else if hasPrefix(bytes, "https://") {
            (scheme, start) = (.https, 8)
        } else {
            return nil
        }
        var authorityEnd = start
        while authorityEnd < bytes.count, bytes[authorityEnd] != UInt8(ascii: "/"),
            bytes[authorityEnd] != UInt8(ascii: "?"), bytes[authorityEnd] != UInt8(ascii: "#")
        {
            authorityEnd += 1
        }
        guard authorityEnd > start, !bytes[start..<authorityEnd].contains(UInt8(ascii: "@")) else { return nil }
        let targetEnd = bytes[authorityEnd...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
        let authority = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<authorityEnd]), as: UTF8.self)
        let path = UnsafeBufferPointer(rebasing: bytes[authorityEnd..<targetEnd])
        let target =
            path.first.map { $0 != UInt8(ascii: "?") } ?? false
            ? String(decoding: path, as: UTF8.self) : "/" + String(decoding: path, as: UTF8.self)
        return (scheme, authority, target)
    }

    /// Whether `bytes` starts with `prefix` (lowercase ASCII), ignoring ASCII case.
    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        return zip(bytes, expected).allSatisfy { ByteClass.lowercased($0) == $1 }
    }

    private static func hostAndPort(_ authority: Substring, defaultPort: Int) -> (String, Int, IPAddress?)? {
        var hostPart: Substring
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portPart = after.dropFirst()
            }
            guard let address = IPAddress(hostPart), !address.isIPv4 || hostPart.contains(":") else { return nil }
        } else {
            if let colon = authority.firstIndex(of: ":") {
                hostPart = authority[..<colon]
                portPart = authority[authority.index(after: colon)...]
            } else {
                hostPart = authority
            }
            let allowed = hostPart.utf8.allSatisfy { byte in
                ByteClass.lowercased(byte) >= UInt8(ascii: "a") && ByteClass.lowercased(byte) <= UInt8(ascii: "z")
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: ".")
            }
            guard allowed, !hostPart.isEmpty, hostPart.utf8.count <= 253 else { return nil }
        }
        var port = defaultPort
        if let portPart {
            if !portPart.isEmpty {
                guard portPart.utf8.count <= 5, portPart.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                    let value = Int(portPart), (1...65535).contains(value)
                else { return nil }
                port = value
            }
        }
        let host = hostPart.lowercased()
        // Only dotted-quad IPv4 counts as a literal; anything else (`127.1`, `0x7f.1`) is a name
        // and goes to the resolver, which treats it as glibc does (as libcurl would).
        let literal: IPAddress? = authority.hasPrefix("[") ? IPAddress(host) : Self.dottedQuad(host)
        return (host, port, literal)
    }

    private static func dottedQuad(_ host: String) -> IPAddress? {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4,
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } })
        else { return nil }
        return IPAddress(host)
    }
}
