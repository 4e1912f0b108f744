/// Secret key bytes that never print themselves: `description`, `debugDescription` and
/// reflection (`dump`, string interpolation of a containing struct) all show only the size.
/// Equality is constant-time.
package struct SymmetricKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    let bytes: [UInt8]

    /// A key from raw bytes (any non-zero length; AES-256 needs 32, HMAC accepts any).
    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// A fresh key of `byteCount` bytes from the CSPRNG.
    package static func random(byteCount: Int = 32) -> SymmetricKey {
        SymmetricKey(bytes: SecureRandom.bytes(count: byteCount))
    }

    /// The key length in bytes.
    package var byteCount: Int { bytes.count }

    /// Calls `body` with the raw key bytes; the one deliberate way to get at them (to wrap a
    /// data key, for example).
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }

    package var description: String { "SymmetricKey(\(bytes.count * 8) bits, redacted)" }
    package var debugDescription: String { description }
    package var customMirror: Mirror { Mirror(self, children: ["bits": bytes.count * 8]) }

    package static func == (lhs: SymmetricKey, rhs: SymmetricKey) -> Bool {
        ConstantTime.equals(lhs.bytes, rhs.bytes)
    }
}
