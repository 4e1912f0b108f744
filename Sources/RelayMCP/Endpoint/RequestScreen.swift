import RelayHTTP

/// The checks made before authentication: the `Host` the client addressed (DNS rebinding: a page
/// on another name that resolves to our address must not reach the endpoint) and the `Origin` of
/// browser requests. Host matching works on bytes; it runs on every request.
struct RequestScreen: Sendable {
    private let exactHosts: [[UInt8]]?
    private let anyPortHosts: [[UInt8]]
    private let origins: Set<String>

    init(_ configuration: MCPEndpointConfiguration) {
        if let hosts = configuration.allowedHosts {
            var exact: [[UInt8]] = []
            var anyPort: [[UInt8]] = []
            for host in hosts.map({ Array($0.lowercased().utf8) }) {
                let split = host.withUnsafeBufferPointer { Self.nameLength($0) }
                if split == host.count { anyPort.append(host) } else { exact.append(host) }
            }
            exactHosts = exact
            anyPortHosts = anyPort
        } else {
            exactHosts = nil
            anyPortHosts = []
        }
        // `Origin: null` is refused even when listed: every sandboxed iframe, `data:` URL, `file:`
        // page and cross-site redirect chain sends it, so allowing it would allow every site.
        origins = Set(configuration.allowedOrigins.map { Self.trimmingSlash($0.lowercased()) }).subtracting(["null"])
    }

    /// 421 for an unknown Host, 403 for a refused Origin, nil to go on.
    func refusal(for request: Request) -> Response? {
        if let exactHosts, !allows(request.origin.host ?? request.headers["host"], exactHosts) {
            return MCPResponses.refusal(
                .misdirectedRequest, "Misdirected Request: this server does not answer for that Host.")
        }
        if let origin = request.headers["origin"], !origins.contains(Self.trimmingSlash(origin.lowercased())) {
            return MCPResponses.refusal(.forbidden, "Forbidden: Origin not allowed.")
        }
        return nil
    }

    private func allows(_ host: String?, _ exactHosts: [[UInt8]]) -> Bool {
        guard var host else { return false }
        return host.withUTF8 { bytes in
            if exactHosts.contains(where: { Self.equalsIgnoringCase(bytes, $0) }) { return true }
            let name = UnsafeBufferPointer(rebasing: bytes[..<Self.nameLength(bytes)])
            return anyPortHosts.contains { Self.equalsIgnoringCase(name, $0) }
        }
    }

    /// The length of the name in `host[:port]` or `[v6]:port`.
    static func nameLength(_ host: UnsafeBufferPointer<UInt8>) -> Int {
        if host.first == UInt8(ascii: "[") {
            return (host.firstIndex(of: UInt8(ascii: "]")).map { $0 + 1 }) ?? host.count
        }
        return host.lastIndex(of: UInt8(ascii: ":")) ?? host.count
    }

    private static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: [UInt8]) -> Bool {
        guard bytes.count == lowercase.count else { return false }
        for index in 0..<bytes.count {
            let byte = bytes[index]
            if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != lowercase[index] { return false }
        }
        return true
    }

    private static func trimmingSlash(_ origin: String) -> String {
        origin.hasSuffix("/") ? String(origin.dropLast()) : origin
    }
}
