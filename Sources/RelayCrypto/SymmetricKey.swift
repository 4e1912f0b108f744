/// Secret key bytes that never print themselves: `description`, `debugDescription` and
/// reflection (`dump`, string interpolation of a containing struct) all show only the size.
/// Equality is constant-time.
public struct SymmetricKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    let bytes: [UInt8]

    /// A key from raw bytes (any non-zero length; AES-256 needs 32, HMAC accepts any).
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// A fresh key of `byteCount` bytes from the CSPRNG.
    public static func random(byteCount: Int = 32) -> SymmetricKey {
        SymmetricKey(bytes: SecureRandom.bytes(count: byteCount))
    }

    /// The key length in bytes.
    public var byteCount: Int { bytes.count }

    /// Calls `body` with the raw key bytes; the one deliberate way to get at them (to wrap a
    /// data key, for example).
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }

    public var description: String { "SymmetricKey(\(bytes.count * 8) bits, redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["bits": bytes.count * 8]) }

    public static func == (lhs: SymmetricKey, rhs: SymmetricKey) -> Bool {
        ConstantTime.equals(lhs.bytes, rhs.bytes)
    }
}
