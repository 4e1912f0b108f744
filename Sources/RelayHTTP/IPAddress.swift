#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 address. Its `description` is redacted so an address cannot reach a log by
/// accident; `unredacted` exists for rate-limit keys and proxy checks only.
package struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 16 bytes; IPv4 addresses are stored IPv4-mapped (::ffff:a.b.c.d).
    package let bytes: [UInt8]

    /// An address from 4 or 16 bytes.
    package init?(bytes: [UInt8]) {
        switch bytes.count {
        case 4: self.bytes = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + bytes
        case 16: self.bytes = bytes
        default: return nil
        }
    }

    /// Parses dotted IPv4 or RFC 4291 IPv6 text (brackets allowed around IPv6).
    package init?(_ text: some StringProtocol) {
        var text = String(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.init(bytes: withUnsafeBytes(of: &v4) { Array($0) })
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        self.init(bytes: withUnsafeBytes(of: &v6) { Array($0) })
    }

    /// Whether this is an IPv4 address (or IPv4-mapped IPv6).
    package var isIPv4: Bool { bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF }

    /// Whether this is 127.0.0.0/8 or ::1.
    package var isLoopback: Bool { isIPv4 ? bytes[12] == 127 : bytes == [UInt8](repeating: 0, count: 15) + [1] }

    /// Always `<address>`: addresses are never logged.
    package var description: String { "<address>" }

    /// The address as text. Use only where the address is needed as a key, never in output.
    package var unredacted: String {
        if isIPv4 { return bytes[12...].map(String.init).joined(separator: ".") }
        var address = in6_addr()
        withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return "::" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A CIDR block such as `10.0.0.0/8`, `::1/128` or a single address.
package struct IPAddressRange: Sendable, Hashable {
    /// The network address.
    package let network: IPAddress
    /// Prefix length over the 128-bit form (IPv4 prefixes are offset by 96).
    package let prefixLength: Int

    /// Parses `address` or `address/prefix`.
    package init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard let first = parts.first, let address = IPAddress(first) else { return nil }
        let maxPrefix = address.isIPv4 ? 32 : 128
        var prefix = maxPrefix
        if parts.count == 2 {
            guard let value = Int(parts[1]), (0...maxPrefix).contains(value) else { return nil }
            prefix = value
        }
        network = address
        prefixLength = address.isIPv4 ? prefix + 96 : prefix
    }

    /// Whether `address` lies inside the block.
    package func contains(_ address: IPAddress) -> Bool {
        var remaining = prefixLength
        for index in 0..<16 where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if address.bytes[index] & mask != network.bytes[index] & mask { return false }
            remaining -= bits
        }
        return true
    }
}
