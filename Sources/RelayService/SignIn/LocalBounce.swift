import Foundation
import RelayHTTP

/// The sign-in bounce for `mustdo-relay local` (off unless `RELAY_LOCAL_BOUNCE_PORTS` is set).
///
/// A production CloudKit API token cannot have a `http://localhost` sign-in callback (CloudKit Console
/// offers https or a custom scheme there), so the local server's API token is given
/// `https://<relay>/local/callback/<port>` instead, and this endpoint sends the browser on with a 302 to
/// `http://localhost:<port>/mustdo/callback?<the same query>`. Only the port comes from the request, and
/// only as 1–5 ASCII digits within the configured ports; the scheme, host and path are constants, so no
/// request can make it redirect anywhere but the person's own machine. The query is passed through
/// byte for byte (never decoded), and only if every byte is one a URI query may hold; it is not stored
/// and not logged (the request log names the route pattern only, and the deploy kit's proxies log
/// paths without queries).
struct LocalBounce: Sendable {
    /// The route; the port is the last segment.
    static let route = "/local/callback/:port"
    static let prefix = "/local/callback/"
    /// Where the local server catches the callback (`LocalSignIn.callbackPath`).
    static let targetPath = "/mustdo/callback"

    /// The ports the bounce may name.
    let ports: [ClosedRange<Int>]

    /// Registers the route when any port is allowed; otherwise the path stays a 404.
    func register(on router: inout Router) {
        guard !ports.isEmpty else { return }
        router.get(Self.route, immediate: { request in response(to: request) })
    }

    /// The 302, or a 400 / 404 page that repeats nothing from the request.
    func response(to request: Request) -> Response {
        guard let port = port(in: request.path) else {
            return Self.refusal(.notFound, "No such local callback port.")
        }
        let query = request.rawQuery.map(String.init) ?? ""
        guard Self.isPlainQuery(query.utf8) else {
            return Self.refusal(.badRequest, "The callback's query string is malformed.")
        }
        var location = "http://localhost:\(port)\(Self.targetPath)"
        if !query.isEmpty { location += "?" + query }
        return Response(
            status: .found,
            headers: HTTPHeaders([
                ("Location", location), ("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer"),
                ("X-Content-Type-Options", "nosniff"),
            ]),
            body: [])
    }

    /// The port in a raw path `/local/callback/<digits>`: no sign, no leading zero, no encoding, within
    /// the allowed ports; nil otherwise.
    func port(in path: Substring) -> Int? {
        guard path.hasPrefix(Self.prefix) else { return nil }
        let digits = path.utf8.dropFirst(Self.prefix.utf8.count)
        guard (1...5).contains(digits.count), digits.first != UInt8(ascii: "0"),
            digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        let port = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return ports.contains { $0.contains(port) } ? port : nil
    }

    /// Whether every byte is one RFC 3986 allows in a query (unreserved, sub-delims, `:` `@` `/` `?`,
    /// and `%` with two hex digits), and no percent-encoding names a control character. A backslash,
    /// a quote, a space or a raw byte above 0x7E is refused, so the Location header holds only what
    /// any URL parser reads as query.
    static func isPlainQuery(_ bytes: String.UTF8View) -> Bool {
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(PercentEncoding.hexValue),
                    let low = iterator.next().flatMap(PercentEncoding.hexValue)
                else { return false }
                let decoded = high << 4 | low
                if decoded < 0x20 || decoded == 0x7F { return false }
                continue
            }
            guard queryByte(byte) else { return false }
        }
        return true
    }

    private static func queryByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            // unreserved "-._~", sub-delims "!$&'()*+,;=", and ":@/?"
            "-._~!$&'()*+,;=:@/?".utf8.contains(byte)
        }
    }

    private static func refusal(_ status: HTTPStatus, _ message: String) -> Response {
        var response = Response.text(message, status: status)
        response.headers.set("Cache-Control", "no-store")
        response.headers.set("Referrer-Policy", "no-referrer")
        return response
    }

    /// Parses `RELAY_LOCAL_BOUNCE_PORTS`: comma-separated ports or `low-high` ranges within
    /// 1024–65535 (the local server never listens on a privileged port). Nil when malformed.
    static func parsePorts(_ items: [String]) -> [ClosedRange<Int>]? {
        var ranges: [ClosedRange<Int>] = []
        for item in items {
            let bounds = item.split(separator: "-", omittingEmptySubsequences: false).map {
                Int($0.trimmingCharacters(in: .whitespaces))
            }
            guard (1...2).contains(bounds.count), let low = bounds.first!, let high = bounds.last!,
                (1024...65535).contains(low), (low...65535).contains(high)
            else { return nil }
            ranges.append(low...high)
        }
        return ranges
    }
}
