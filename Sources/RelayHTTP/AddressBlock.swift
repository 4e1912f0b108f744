/// What one client is counted as by per-address limits (the OAuth rate limits, the server's
/// per-address connection cap): an IPv4 address on its own, an IPv6 address by its /64.
///
/// One IPv6 subscriber gets at least a /64 and can draw a fresh address from it for every request
/// or connection, so a budget per IPv6 address would be no budget. Its `description` is redacted
/// like `IPAddress`'s.
package struct AddressBlock: Sendable, Hashable, CustomStringConvertible {
    /// The first 64 bits of the 16-byte form (zero for IPv4, which is stored IPv4-mapped).
    let high: UInt64
    /// The last 64 bits for IPv4 (`::ffff:a.b.c.d`); zero for an IPv6 /64.
    let low: UInt64

    /// Always `<address>`: blocks are never logged.
    package var description: String { "<address>" }

    /// `192.0.2.7` or `2001:db8:0:a::/64`. Use only as a key, never in output.
    package var unredacted: String {
        if low != 0 {
            return [24, 16, 8, 0].map { String((low >> UInt64($0)) & 0xFF) }.joined(separator: ".")
        }
        let groups = [48, 32, 16, 0].map { String((high >> UInt64($0)) & 0xFFFF, radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}

extension IPAddress {
    /// The block this address is counted in.
    package var block: AddressBlock {
        var high: UInt64 = 0
        for index in 0..<8 { high = high << 8 | UInt64(bytes[index]) }
        guard isIPv4 else { return AddressBlock(high: high, low: 0) }
        var low: UInt64 = 0
        for index in 8..<16 { low = low << 8 | UInt64(bytes[index]) }
        return AddressBlock(high: high, low: low)
    }
}
