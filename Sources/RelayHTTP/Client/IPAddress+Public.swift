extension IPAddress {
    /// Whether the address is globally routable unicast, the only kind `AddressPolicy.publicOnly`
    /// allows. IPv4-mapped and NAT64 (64:ff9b::/96) addresses are judged by the IPv4 inside.
    package var isPublic: Bool {
        if isIPv4 { return !Self.specialIPv4.contains { $0.contains(self) } }
        if Self.nat64.contains(self), let inner = IPAddress(bytes: Array(bytes[12...])) { return inner.isPublic }
        return !Self.specialIPv6.contains { $0.contains(self) }
    }

    /// IANA special-purpose IPv4 ranges (RFC 6890 and successors) plus multicast and reserved.
    private static let specialIPv4: [IPAddressRange] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
        "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15",
        "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
    ].compactMap { IPAddressRange($0) }

    private static let nat64 = IPAddressRange("64:ff9b::/96")!

    /// Special-purpose IPv6 ranges. Teredo and 6to4 (inside 2001::/23 and 2002::/16) are refused
    /// outright: they can tunnel to private IPv4 space.
    private static let specialIPv6: [IPAddressRange] = [
        "::/96", "::ffff:0:0/96", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32", "2002::/16",
        "3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
    ].compactMap { IPAddressRange($0) }
}
