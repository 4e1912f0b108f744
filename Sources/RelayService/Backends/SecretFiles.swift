import Foundation
import RelayCrypto

/// Reads and writes the relay's secret files. Every file must be a regular file that only its
/// owner can read (mode 0600 or 0400); a wider mode is refused with the command that fixes it.
/// Secrets are never taken from flags or variable values, only from files.
package enum SecretFiles {
    /// A secret file that is missing, unsafe or malformed; the message says what to do.
    package struct Problem: Error, CustomStringConvertible {
        package let description: String
    }

    /// A 32-byte key stored as one line of base64url.
    package static func readKey(_ path: String) throws(Problem) -> SymmetricKey {
        let text = try readText(path)
        guard let bytes = Base64URL.decode(text), bytes.count == 32 else {
            throw Problem(description: "\(path) must hold one 32-byte key in base64url (mustdo-relayctl can create it)")
        }
        return SymmetricKey(bytes: bytes)
    }

    /// Versioned keys, `<version> <base64url key>` per line, oldest first (the pepper file).
    package static func readVersionedKeys(_ path: String) throws(Problem) -> [(version: Int, key: SymmetricKey)] {
        var keys: [(version: Int, key: SymmetricKey)] = []
        for (index, line) in try readText(path).split(separator: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let fields = trimmed.split(separator: " ")
            guard fields.count == 2, let version = Int(fields[0]), version > 0,
                let bytes = Base64URL.decode(fields[1]), bytes.count == 32
            else {
                throw Problem(description: "\(path) line \(index + 1): expected `<version> <base64url 32-byte key>`")
            }
            guard keys.last.map({ $0.version < version }) ?? true else {
                throw Problem(description: "\(path) line \(index + 1): versions must increase")
            }
            keys.append((version, SymmetricKey(bytes: bytes)))
        }
        guard !keys.isEmpty else { throw Problem(description: "\(path) holds no key") }
        return keys
    }

    /// The trimmed text of a secret file (the CloudKit API token).
    package static func readText(_ path: String) throws(Problem) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            guard FileManager.default.fileExists(atPath: path) else {
                throw Problem(description: "\(path) does not exist")
            }
            throw Problem(description: "\(path) is not readable by this user (uid \(getuid())); check its owner")
        }
        defer { try? handle.close() }
        var status = stat()
        guard fstat(handle.fileDescriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw Problem(description: "\(path) is not a regular file")
        }
        let mode = status.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw Problem(
                description:
                    "\(path) is readable by group or others (mode \(String(mode, radix: 8))); run: chmod 600 \(path)")
        }
        guard status.st_size <= 65536, let data = try? handle.readToEnd() else {
            throw Problem(description: "\(path) is unreadable or too large")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw Problem(description: "\(path) is empty") }
        return text
    }

    /// A fresh random key, base64url, ready to write.
    package static func newKeyText() -> String { Base64URL.encode(SecureRandom.bytes(count: 32)) }

    /// Writes `contents` with mode 0600 through a temporary file and a rename (atomic). Refuses to
    /// replace an existing file unless `replace` is true.
    package static func write(_ contents: String, to path: String, replace: Bool) throws(Problem) {
        if !replace && FileManager.default.fileExists(atPath: path) {
            throw Problem(description: "\(path) exists already; not replacing it")
        }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try? FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let temporary = path + ".tmp-" + Base64URL.encode(SecureRandom.bytes(count: 6))
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Problem(description: "cannot create \(temporary)") }
        let bytes = Array(contents.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        let synced = fchmod(descriptor, 0o600) == 0 && fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw Problem(description: "cannot write \(path)")
        }
    }
}
