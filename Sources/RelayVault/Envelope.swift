import RelayCrypto

/// The vault's versioned binary formats (documented in docs/storage-schema.md). Every envelope is
/// `version (1 byte) ‖ header ‖ AES-256-GCM box`, and its AAD is a label naming the format,
/// the version and header, and the canonical encoding of the encryption context; so a blob moved
/// to another grant, user, purpose or format does not open.
enum Envelope {
    static let version: UInt8 = 1
    /// The prefix of an envelope without a header, built once rather than per seal and open.
    private static let versionOnly: [UInt8] = [version]

    enum Kind: String {
        /// A secret sealed under a grant's data key: stored in the grant.
        case sealedGrant = "mustdo-relay/sealed-grant"
        /// A wrapped data key sealed under a key derived from a token: stored in the token's record.
        case tokenBound = "mustdo-relay/token-bound-key"
        /// A data key wrapped under a local master key (header: key ID).
        case localWrap = "mustdo-relay/local-wrap"
    }

    static func seal(
        _ payload: [UInt8], kind: Kind, header: [UInt8] = [], key: SymmetricKey, context: some CanonicalContext
    ) throws(VaultError) -> [UInt8] {
        let prefix = header.isEmpty ? versionOnly : [version] + header
        do {
            return try AES256GCM.seal(
                payload, key: key, authenticatedData: authenticatedData(kind, prefix: prefix, context: context),
                prefix: prefix)
        } catch {
            throw Self.vaultError(error)
        }
    }

    /// Opens an envelope whose header is `headerLength` bytes after the version byte.
    static func open(
        _ envelope: [UInt8], kind: Kind, headerLength: Int = 0, key: SymmetricKey, context: some CanonicalContext
    ) throws(VaultError) -> [UInt8] {
        try checkVersion(envelope)
        let prefixLength = 1 + headerLength
        guard envelope.count >= prefixLength + AES256GCM.overhead else { throw .malformed("envelope too short") }
        // The version byte was checked above: without a header the prefix is always the same.
        let prefix = headerLength == 0 ? versionOnly : Array(envelope[..<prefixLength])
        do {
            return try AES256GCM.open(
                envelope[prefixLength...], key: key,
                authenticatedData: authenticatedData(kind, prefix: prefix, context: context))
        } catch {
            throw Self.vaultError(error)
        }
    }

    static func checkVersion(_ envelope: [UInt8]) throws(VaultError) {
        guard let first = envelope.first else { throw .malformed("empty envelope") }
        guard first == version else { throw .malformed("unsupported envelope version \(first)") }
    }

    /// `label ‖ 0 ‖ prefix ‖ canonical context`, written into one buffer.
    private static func authenticatedData(_ kind: Kind, prefix: [UInt8], context: some CanonicalContext) -> [UInt8] {
        var output: [UInt8] = []
        // A grant's context (four names, a grant ID, a 64-digit user ID, the purpose) is about 170
        // bytes: room for it at once, not a second buffer when it is written.
        output.reserveCapacity(kind.rawValue.utf8.count + 1 + prefix.count + 256)
        output.append(contentsOf: kind.rawValue.utf8)
        output.append(0)
        output.append(contentsOf: prefix)
        context.writeCanonicalBytes(to: &output)
        return output
    }

    private static func vaultError(_ error: CryptoError) -> VaultError {
        error == .authenticationFailed ? .authenticationFailed : .malformed(error.description)
    }
}
