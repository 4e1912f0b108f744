import RelayCrypto

/// A `KeyService` over local master keys with IDs, read from key files at start-up.
///
/// New data keys are wrapped under the newest key (the last line of the last file); older keys
/// still unwrap what they wrapped, so rotation is: add a key (`addKey(toKeyFile:)`), restart, and
/// keep the old keys while anything sealed under them lives. A wrapped key is
/// `0x01 ‖ u8 ID length ‖ key ID ‖ AES-256-GCM(master key, data key)`, bound to the encryption
/// context through the AAD.
package struct LocalKeyService: KeyService {
    private let keys: [String: SymmetricKey]
    /// The ID of the key that wraps new data keys.
    package let currentKeyID: String
    /// Every key ID, oldest first.
    package let keyIDs: [String]

    /// Keys in memory, oldest first (tests, and the demo's generated key).
    package init(keys: [(id: String, key: SymmetricKey)]) throws(VaultError) {
        guard let newest = keys.last else { throw .keyFile("no master key given") }
        var table: [String: SymmetricKey] = [:]
        for entry in keys {
            guard KeyFile.isValidID(Substring(entry.id)) else { throw .keyFile("invalid key ID \(entry.id)") }
            guard entry.key.byteCount == AES256GCM.keyByteCount else {
                throw .keyFile("key \(entry.id) is not 32 bytes")
            }
            guard table.updateValue(entry.key, forKey: entry.id) == nil else {
                throw .keyFile("key ID \(entry.id) appears twice")
            }
        }
        self.keys = table
        self.currentKeyID = newest.id
        self.keyIDs = keys.map(\.id)
    }

    /// Keys from one or more key files (later files hold newer keys). Refuses a file that group or
    /// others can read, with a message saying how to fix it. Blocking: call at start-up.
    package init(keyFiles paths: [String]) throws(VaultError) {
        var keys: [(id: String, key: SymmetricKey)] = []
        for path in paths { keys += try KeyFile.read(path) }
        try self.init(keys: keys)
    }

    /// Keys from one key file.
    package init(keyFile path: String) throws(VaultError) {
        try self.init(keyFiles: [path])
    }

    /// Creates a key file with one new random key, mode 0600; fails if the file exists. Returns
    /// the key's ID.
    @discardableResult
    package static func createKeyFile(at path: String) throws(VaultError) -> String {
        let id = "k1"
        try KeyFile.write(KeyFile.format([(id, SymmetricKey.random())]), to: path, replace: false)
        return id
    }

    /// Rotation: appends a new random key to an existing key file (atomically, mode 0600) and
    /// returns its ID; after a restart it seals everything new.
    @discardableResult
    package static func addKey(toKeyFile path: String) throws(VaultError) -> String {
        var keys = try KeyFile.read(path)
        let numbers = keys.compactMap { $0.id.hasPrefix("k") ? Int($0.id.dropFirst()) : nil }
        let id = "k\((numbers.max() ?? 0) + 1)"
        guard !keys.contains(where: { $0.id == id }) else { throw .keyFile("cannot choose a new key ID") }
        keys.append((id, SymmetricKey.random()))
        try KeyFile.write(KeyFile.format(keys), to: path, replace: true)
        return id
    }

    package func generateDataKey(context: EncryptionContext) async throws(VaultError) -> DataKey {
        let dataKey = SymmetricKey.random()
        return DataKey(plaintext: dataKey, wrapped: try wrap(dataKey, context: context))
    }

    package func unwrap(_ wrapped: WrappedKey, context: EncryptionContext) async throws(VaultError) -> SymmetricKey {
        let bytes = wrapped.bytes
        try Envelope.checkVersion(bytes)
        guard bytes.count >= 2, bytes.count >= 2 + Int(bytes[1]) else { throw .malformed("wrapped key too short") }
        let id = String(decoding: bytes[2..<(2 + Int(bytes[1]))], as: UTF8.self)
        guard let master = keys[id] else { throw .unknownKey(id) }
        let plaintext = try Envelope.open(
            bytes, kind: .localWrap, headerLength: 1 + Int(bytes[1]), key: master, context: context)
        guard plaintext.count == AES256GCM.keyByteCount else { throw .malformed("wrapped key is not 32 bytes") }
        return SymmetricKey(bytes: plaintext)
    }

    /// Wraps `dataKey` under the current master key.
    func wrap(_ dataKey: SymmetricKey, context: EncryptionContext) throws(VaultError) -> WrappedKey {
        let id = Array(currentKeyID.utf8)
        let envelope = try Envelope.seal(
            dataKey.withUnsafeBytes { Array($0) }, kind: .localWrap, header: [UInt8(id.count)] + id,
            key: keys[currentKeyID]!, context: context)
        return WrappedKey(bytes: envelope)
    }
}
