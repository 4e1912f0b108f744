import RelayHTTP

/// The checks made before authentication: the `Host` the client addressed (DNS rebinding: a page
/// on another name that resolves to our address must not reach the endpoint) and the `Origin` of
/// browser requests.
struct RequestScreen: Sendable {
    private let exactHosts: Set<String>?
    private let anyPortHosts: Set<String>
    private let origins: Set<String>

    init(_ configuration: MCPEndpointConfiguration) {
        if let hosts = configuration.allowedHosts {
            var exact = Set<String>()
            var anyPort = Set<String>()
            for host in hosts.map({ $0.lowercased() }) {
                if Self.splitPort(host).port == nil { anyPort.insert(host) } else { exact.insert(host) }
            }
            exactHosts = exact
            anyPortHosts = anyPort
        } else {
            exactHosts = nil
            anyPortHosts = []
        }
        origins = Set(configuration.allowedOrigins.map { Self.trimmingSlash($0.lowercased()) })
    }

    /// 421 for an unknown Host, 403 for a refused Origin, nil to go on.
    func refusal(for request: Request) -> Response? {
        if let exactHosts {
            let host = (request.origin.host ?? request.headers["host"])?.lowercased() ?? ""
            if !exactHosts.contains(host), !anyPortHosts.contains(String(Self.splitPort(host).name)) {
                return MCPResponses.refusal(
                    .misdirectedRequest, "Misdirected Request: this server does not answer for that Host.")
            }
        }
        if let origin = request.headers["origin"], !origins.contains(Self.trimmingSlash(origin.lowercased())) {
            return MCPResponses.refusal(.forbidden, "Forbidden: Origin not allowed.")
        }
        return nil
    }

    /// `host[:port]` or `[v6]:port` split into name and port.
    static func splitPort(_ host: String) -> (name: Substring, port: Substring?) {
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return (host[...], nil) }
            let name = host[...close]
            let rest = host[host.index(after: close)...]
            return rest.hasPrefix(":") ? (name, rest.dropFirst()) : (name, nil)
        }
        guard let colon = host.lastIndex(of: ":") else { return (host[...], nil) }
        return (host[..<colon], host[host.index(after: colon)...])
    }

    private static func trimmingSlash(_ origin: String) -> String {
        origin.hasSuffix("/") ? String(origin.dropLast()) : origin
    }
}
