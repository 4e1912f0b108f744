import Foundation
import RelayCrypto

/// A local master key file: `<key ID> <base64url of 32 bytes>` per line, oldest first, `#`
/// comments and blank lines ignored. It must be a regular file that only its owner can read
/// (mode 0600 or 0400).
enum KeyFile {
    static let header = "# MustDo Relay local master keys, oldest first; the last one seals new data. Keep mode 0600.\n"
    static let maximumSize = 64 * 1024

    /// Reads and checks a key file. Blocking file I/O: call at start-up, not per request.
    static func read(_ path: String) throws(VaultError) -> [(id: String, key: SymmetricKey)] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .keyFile("cannot open \(path) for reading")
        }
        defer { try? handle.close() }
        var status = stat()
        guard fstat(handle.fileDescriptor, &status) == 0 else { throw .keyFile("cannot stat \(path)") }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .keyFile("\(path) is not a regular file") }
        let mode = status.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw .keyFile(
                "\(path) is readable or writable by group or others (mode \(String(mode, radix: 8))); run: chmod 600 \(path)"
            )
        }
        guard status.st_size <= maximumSize else { throw .keyFile("\(path) is larger than \(maximumSize) bytes") }
        // readToEnd() answers nil for an empty file: that is "no key", not "unreadable".
        let data: Data
        do {
            data = try handle.readToEnd() ?? Data()
        } catch {
            throw .keyFile("cannot read \(path): \(error.localizedDescription)")
        }
        return try parse(String(decoding: data, as: UTF8.self), path: path)
    }

    static func parse(_ text: String, path: String) throws(VaultError) -> [(id: String, key: SymmetricKey)] {
        var keys: [(id: String, key: SymmetricKey)] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 2, isValidID(fields[0]) else {
                throw .keyFile("\(path) line \(index + 1): expected `<key ID> <base64url key>`")
            }
            guard let bytes = Base64URL.decode(fields[1]), bytes.count == AES256GCM.keyByteCount else {
                throw .keyFile("\(path) line \(index + 1): the key must be 32 bytes in base64url")
            }
            let id = String(fields[0])
            guard !keys.contains(where: { $0.id == id }) else { throw .keyFile("\(path): key ID \(id) appears twice") }
            keys.append((id, SymmetricKey(bytes: bytes)))
        }
        guard !keys.isEmpty else { throw .keyFile("\(path) holds no key") }
        return keys
    }

    static func format(_ keys: [(id: String, key: SymmetricKey)]) -> String {
        header + keys.map { "\($0.id) \(Base64URL.encode($0.key.withUnsafeBytes { Array($0) }))\n" }.joined()
    }

    /// Writes `contents` to a new file with mode 0600 (never wider, whatever the umask), then
    /// moves it to `path`: atomically replacing, or refusing to replace when `replace` is false.
    static func write(_ contents: String, to path: String, replace: Bool) throws(VaultError) {
        let temporary = path + ".tmp-" + Base64URL.encode(SecureRandom.bytes(count: 6))
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .keyFile("cannot create \(temporary)") }
        let bytes = Array(contents.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        let synced = fchmod(descriptor, 0o600) == 0 && fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced else {
            unlink(temporary)
            throw .keyFile("cannot write \(temporary)")
        }
        // link(2) fails if the target exists, which makes creation exclusive; rename(2) replaces.
        let moved = replace ? rename(temporary, path) == 0 : link(temporary, path) == 0
        if !replace { unlink(temporary) }
        guard moved else {
            if replace { unlink(temporary) }
            throw .keyFile(replace ? "cannot replace \(path)" : "cannot create \(path) (does it exist already?)")
        }
    }

    static func isValidID(_ id: Substring) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D
                    || $0 == 0x5F || $0 == 0x2E
            }
    }
}
