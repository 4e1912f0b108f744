import RelayCrypto

/// Where data keys come from: a service that makes a fresh data key and wraps it under a master
/// key it keeps, and unwraps such a key later, but only under the same encryption context.
///
/// `LocalKeyService` wraps with a master key file; `KMSKeyService` (RelayAWS) maps these calls to
/// AWS KMS `GenerateDataKey` (KeySpec AES_256) and `Decrypt`, passing the context as KMS's
/// `EncryptionContext` and `WrappedKey.bytes` as the `CiphertextBlob`.
package protocol KeyService: Sendable {
    /// A new random 256-bit data key, with its wrapped form bound to `context`.
    func generateDataKey(context: EncryptionContext) async throws(VaultError) -> DataKey

    /// The data key inside `wrapped`; `authenticationFailed` unless `context` is the one it was
    /// made with.
    func unwrap(_ wrapped: WrappedKey, context: EncryptionContext) async throws(VaultError) -> SymmetricKey
}

/// Non-secret name/value pairs a key is bound to (KMS logs them in CloudTrail, so they hold only
/// IDs, never secrets).
package typealias EncryptionContext = [String: String]

/// A fresh data key from a key service: the key itself (in memory only) and its wrapped form.
package struct DataKey: Sendable {
    /// The key; never stored.
    package let plaintext: SymmetricKey
    /// The key wrapped by the key service.
    package let wrapped: WrappedKey

    /// A data key from its parts.
    package init(plaintext: SymmetricKey, wrapped: WrappedKey) {
        self.plaintext = plaintext
        self.wrapped = wrapped
    }
}

/// A data key as wrapped by a key service: opaque bytes. Whoever holds it and can call the key
/// service can recover the key, so the vault stores it only bound to a token, never beside the
/// grant it opens.
package struct WrappedKey: Sendable, Equatable, CustomStringConvertible {
    /// The wrapped bytes (a local envelope, or a KMS ciphertext blob).
    package let bytes: [UInt8]

    /// A wrapped key from its bytes.
    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    package var description: String { "WrappedKey(\(bytes.count) bytes)" }
}

extension Dictionary where Key == String, Value == String {
    /// An unambiguous encoding for authenticated data: entries sorted by the UTF-8 bytes of the
    /// name, each as `u32 length ‖ name ‖ u32 length ‖ value` (big-endian lengths).
    var canonicalBytes: [UInt8] {
        var output: [UInt8] = []
        for (name, value) in sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            for part in [name, value] {
                let bytes = Array(part.utf8)
                withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { output += $0 }
                output += bytes
            }
        }
        return output
    }
}
