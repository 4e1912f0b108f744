/// Applies `X-Forwarded-Proto`, `X-Forwarded-Host` and `X-Forwarded-For` only when the TCP peer is
/// one of the configured proxies; from anyone else they are ignored.
package struct TrustedProxies: Sendable, Equatable {
    /// The proxy addresses whose forwarded headers are believed.
    package let ranges: [IPAddressRange]

    /// Trust these ranges (empty: trust nobody).
    package init(_ ranges: [IPAddressRange] = []) { self.ranges = ranges }

    /// Whether `address` is a trusted proxy.
    package func trusts(_ address: IPAddress?) -> Bool {
        guard let address else { return false }
        return ranges.contains { $0.contains(address) }
    }

    /// The origin of a request that arrived from `peer` with `headers`.
    package func origin(peer: IPAddress?, headers: HTTPHeaders) -> RequestOrigin {
        let host = headers["host"]
        guard trusts(peer) else { return RequestOrigin(peer: peer, client: peer, scheme: "http", host: host) }

        var scheme = "http"
        if let proto = Self.lastListed(headers, "x-forwarded-proto")?.lowercased(), proto == "https" || proto == "http"
        {
            scheme = proto
        }
        var forwardedHost = host
        if let candidate = Self.lastListed(headers, "x-forwarded-host"), Self.isValidHost(candidate) {
            forwardedHost = candidate
        }
        // Walk X-Forwarded-For from the right, past our own proxies, to the first address we did not add.
        var client = peer
        let chain = headers.values("x-forwarded-for").flatMap { $0.split(separator: ",") }.map { $0.trimmingOWS }
        for entry in chain.reversed() {
            guard let address = IPAddress(entry) else { break }
            client = address
            if !trusts(address) { break }
        }
        return RequestOrigin(peer: peer, client: client, scheme: scheme, host: forwardedHost)
    }

    private static func lastListed(_ headers: HTTPHeaders, _ name: String) -> String? {
        guard let last = headers.values(name).last?.split(separator: ",").last else { return nil }
        let value = String(last.trimmingOWS)
        return value.isEmpty ? nil : value
    }

    /// host[:port] with only the characters a host or bracketed IPv6 literal can hold.
    static func isValidHost(_ host: String) -> Bool {
        !host.isEmpty && host.utf8.count <= 255
            && host.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"),
                    UInt8(ascii: "["), UInt8(ascii: "]"):
                    true
                default: false
                }
            }
    }
}
