import Foundation
import RelayCrypto
import RelayJSON

/// The person's CloudKit web auth token at rest: `auth.json` in the local server's home directory, mode
/// 0600, `{"ckWebAuthToken": …, "container": …, "environment": …}`. A session belongs to one container and
/// environment (so does the API token), so a file saved for another is not used.
///
/// Reads refuse what the relay refuses for its key files: anything but a regular file (a symbolic link
/// included), or a file group or others may read. Writes go to a new file beside it (created 0600,
/// exclusive, not following links), which is written, fsynced and renamed over `auth.json`, and then
/// the directory is fsynced: a crash at any point leaves the old token or the new one, never a mix (and
/// at worst a stray new file, which the next write deletes). The caller holds the lock (`FileLock`)
/// around a read, the CloudKit call and the write.
struct LocalAuthFile: Sendable {
    /// Where the file is.
    let path: String

    /// What the file holds.
    struct Saved: Sendable, Equatable {
        var token: String
        var container: String
        var environment: String
    }

    /// Runs between the fsync of the new file and the rename (tests stop there to play a crash).
    var beforeRename: (@Sendable (String) throws -> Void)?

    init(path: String, beforeRename: (@Sendable (String) throws -> Void)? = nil) {
        self.path = path
        self.beforeRename = beforeRename
    }

    private var directory: String { (path as NSString).deletingLastPathComponent }

    /// The saved session, nil when there is none.
    func read() throws(LocalTokenError) -> Saved? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw LocalTokenError("\(path) is a symbolic link; remove it and sign in again") }
            throw LocalTokenError("\(path) cannot be read (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw LocalTokenError("\(path) is not a regular file")
        }
        let mode = status.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw LocalTokenError(
                "\(path) is readable by group or others (mode \(String(mode, radix: 8))), so it was not used; "
                    + "run: chmod 600 \(path) (or sign in again, which replaces it)")
        }
        guard status.st_uid == getuid() else {
            throw LocalTokenError("\(path) belongs to another user (uid \(status.st_uid)); it was not used")
        }
        guard status.st_size <= 65536 else { throw LocalTokenError("\(path) is too large to be a token file") }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes {
                Glibc.read(descriptor, $0.baseAddress! + offset, $0.count - offset)
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            offset += count
        }
        guard offset == bytes.count, case .object(let object)? = try? JSONValue(parsing: bytes),
            let token = object["ckWebAuthToken"]?.stringValue, !token.isEmpty,
            let container = object["container"]?.stringValue, let environment = object["environment"]?.stringValue
        else {
            throw LocalTokenError("\(path) is not a saved sign-in (sign in again to replace it)")
        }
        return Saved(token: token, container: container, environment: environment)
    }

    /// Replaces the file with `saved`, atomically.
    func write(_ saved: Saved) throws(LocalTokenError) {
        try ensureDirectory()
        let json: JSONValue = [
            "ckWebAuthToken": .string(saved.token), "container": .string(saved.container),
            "environment": .string(saved.environment),
        ]
        var bytes = json.bytes
        bytes.append(0x0A)
        removeLeftovers()
        let temporary = path + ".tmp-" + Base64URL.encode(SecureRandom.bytes(count: 9))
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw LocalTokenError("cannot create \(temporary) (\(String(cString: strerror(errno))))")
        }
        var offset = 0
        var failed = false
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                failed = true
                break
            }
            offset += count
        }
        // The mode is set explicitly too: a umask cannot widen 0600, but an odd one could narrow it to 0400.
        failed = failed || fchmod(descriptor, 0o600) != 0 || fsync(descriptor) != 0
        close(descriptor)
        guard !failed else {
            unlink(temporary)
            throw LocalTokenError("cannot write \(temporary) (the disk may be full); the saved sign-in is unchanged")
        }
        do {
            try beforeRename?(temporary)
        } catch {
            unlink(temporary)
            throw LocalTokenError("stopped before replacing \(path): \(error)")
        }
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw LocalTokenError("cannot replace \(path) (\(String(cString: strerror(errno))))")
        }
        syncDirectory()
    }

    /// Deletes new files a process killed before its rename left behind (each holds a token). Every write
    /// happens under the lock, so any such file belongs to a process that is gone.
    private func removeLeftovers() {
        let prefix = (path as NSString).lastPathComponent + ".tmp-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasPrefix(prefix)
        {
            unlink(directory + "/" + name)
        }
    }

    /// Deletes the file (sign-out, or a session CloudKit ended); nothing when there is none.
    func remove() throws(LocalTokenError) {
        removeLeftovers()
        guard unlink(path) == 0 || errno == ENOENT else {
            throw LocalTokenError("cannot delete \(path) (\(String(cString: strerror(errno))))")
        }
        syncDirectory()
    }

    /// Creates the directory (0700) when missing; refuses one that others may write to (they could swap
    /// the file) or that is not a directory.
    func ensureDirectory() throws(LocalTokenError) {
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            // Missing parents (a MUSTDO_HOME deeper down) are created owner-only too.
            guard errno == ENOENT,
                (try? FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]))
                    != nil
            else {
                throw LocalTokenError("cannot create \(directory) (\(String(cString: strerror(errno))))")
            }
        }
        var status = stat()
        guard lstat(directory, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw LocalTokenError("\(directory) is not a directory")
        }
        guard status.st_mode & 0o022 == 0 else {
            throw LocalTokenError(
                "\(directory) may be written by group or others (mode \(String(status.st_mode & 0o777, radix: 8))); "
                    + "run: chmod 700 \(directory)")
        }
    }

    /// Makes a rename or unlink durable.
    private func syncDirectory() {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}

/// A problem with the token file or its lock, phrased as what to do.
struct LocalTokenError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A lock file beside the token file, so only one `mustdo-relay local` at a time reads the token, calls
/// CloudKit and writes the rotated token back (CloudKit may invalidate a token once it has rotated it, so
/// two processes using the same token at once would sign each other out). `flock` locks belong to the
/// open file: a process that dies releases its lock with it.
struct FileLock: Sendable {
    /// The lock file's path.
    let path: String

    /// A held lock; `release` (or the process ending) lets the next process in.
    final class Held: Sendable {
        private let descriptor: Int32
        init(descriptor: Int32) { self.descriptor = descriptor }
        func release() {
            flock(descriptor, LOCK_UN)
            close(descriptor)
        }
    }

    /// Takes the lock, polling every 20 ms until `timeout`. Nil when another process kept it that long.
    func acquire(timeout: Duration) async throws(LocalTokenError) -> Held? {
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw LocalTokenError("cannot open the lock file \(path) (\(String(cString: strerror(errno))))")
        }
        let deadline = ContinuousClock.now + timeout
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline else {
                close(descriptor)
                return nil
            }
            do {
                try await Task.sleep(for: .milliseconds(20))
            } catch {
                close(descriptor)
                return nil
            }
        }
        return Held(descriptor: descriptor)
    }
}
