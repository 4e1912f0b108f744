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

/// What an envelope's AAD ends with: an encryption context in its canonical encoding.
protocol CanonicalContext {
    func writeCanonicalBytes(to output: inout [UInt8])
}

extension Dictionary: CanonicalContext where Key == String, Value == String {
    /// An unambiguous encoding for authenticated data: entries sorted by the UTF-8 bytes of the
    /// name, each as `u32 length ‖ name ‖ u32 length ‖ value` (big-endian lengths).
    var canonicalBytes: [UInt8] {
        var output: [UInt8] = []
        writeCanonicalBytes(to: &output)
        return output
    }

    /// Appends `canonicalBytes` to `output`, straight from each string's UTF-8 (no array per part:
    /// every envelope opened or sealed on a tool call encodes its context).
    func writeCanonicalBytes(to output: inout [UInt8]) {
        let entries = sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        output.reserveCapacity(output.count + entries.reduce(0) { $0 + 8 + $1.key.utf8.count + $1.value.utf8.count })
        for (name, value) in entries {
            Self.append(name, to: &output)
            Self.append(value, to: &output)
        }
    }

    static func append(_ part: String, to output: inout [UInt8]) {
        withUnsafeBytes(of: UInt32(part.utf8.count).bigEndian) { output.append(contentsOf: $0) }
        // A native string's bytes lent in one piece, not its UTF-8 view walked as a sequence.
        if part.utf8.withContiguousStorageIfAvailable({ output.append(contentsOf: $0) }) == nil {
            output.append(contentsOf: part.utf8)
        }
    }
}
