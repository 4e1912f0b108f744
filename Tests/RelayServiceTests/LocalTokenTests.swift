import Foundation
import RelayCloudKit
import RelaySync
import Testing

@testable import RelayService

#if canImport(Glibc)
    import Glibc
#endif

/// The local server's token at rest: created 0600 in a 0700 directory, looser files and links refused,
/// replaced atomically (a crash before the rename leaves the old token), and one process at a time between
/// reading the token and writing the one CloudKit rotated to.
@Suite struct LocalTokenTests {
    final class Directory: Sendable {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("local-\(UUID().uuidString)").path
        var tokenFile: String { path + "/home/auth.json" }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    static func mode(_ path: String) -> mode_t {
        var status = stat()
        _ = lstat(path, &status)
        return status.st_mode & 0o777
    }

    static let saved = LocalAuthFile.Saved(token: "tok+en/1==", container: "iCloud.test", environment: "development")

    @Test func aNewFileIsOwnerOnlyInAnOwnerOnlyDirectory() throws {
        let directory = Directory()
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let file = LocalAuthFile(path: directory.tokenFile)
        #expect(try file.read() == nil)
        try file.write(Self.saved)
        #expect(Self.mode(directory.tokenFile) == 0o600)
        #expect(Self.mode(directory.path + "/home") == 0o700)
        #expect(try file.read() == Self.saved)
        let json = try String(contentsOfFile: directory.tokenFile, encoding: .utf8)
        #expect(json.contains("\"ckWebAuthToken\":\"tok+en/1==\""))
    }

    @Test func looserFilesLinksAndOpenDirectoriesAreRefused() throws {
        let directory = Directory()
        let file = LocalAuthFile(path: directory.tokenFile)
        try file.write(Self.saved)
        for mode: mode_t in [0o640, 0o604, 0o644, 0o666] {
            chmod(directory.tokenFile, mode)
            #expect(throws: LocalTokenError.self) { try file.read() }
            do {
                _ = try file.read()
            } catch {
                #expect(error.description.contains("chmod 600 \(directory.tokenFile)"))
            }
        }
        chmod(directory.tokenFile, 0o400)
        #expect(try file.read() == Self.saved)
        // A symbolic link is not followed, even to a well-kept file.
        let target = directory.path + "/elsewhere.json"
        try FileManager.default.moveItem(atPath: directory.tokenFile, toPath: target)
        chmod(target, 0o600)
        symlink(target, directory.tokenFile)
        #expect(throws: LocalTokenError.self) { try file.read() }
        unlink(directory.tokenFile)
        // Garbage is not a sign-in.
        _ = FileManager.default.createFile(
            atPath: directory.tokenFile, contents: Data("{\"x\":1}".utf8), attributes: [.posixPermissions: 0o600])
        #expect(throws: LocalTokenError.self) { try file.read() }
        // A directory others may write to could have the file swapped: refused before writing.
        chmod(directory.path + "/home", 0o777)
        #expect(throws: LocalTokenError.self) { try file.write(Self.saved) }
    }

    @Test func aCrashBetweenWriteAndRenameLeavesTheOldToken() throws {
        let directory = Directory()
        try LocalAuthFile(path: directory.tokenFile).write(Self.saved)
        let seen = Locked<String?>(nil)
        struct Crash: Error {}
        let crashing = LocalAuthFile(path: directory.tokenFile) { temporary in
            // The new token is complete and synced beside the old one; the process "dies" here.
            seen.withLock { $0 = try? String(contentsOfFile: temporary, encoding: .utf8) }
            #expect(LocalTokenTests.mode(temporary) == 0o600)
            throw Crash()
        }
        var next = Self.saved
        next.token = "the-next-token"
        #expect(throws: LocalTokenError.self) { try crashing.write(next) }
        #expect(seen.withLock { $0 }?.contains("the-next-token") == true)
        #expect(try LocalAuthFile(path: directory.tokenFile).read() == Self.saved)
        // A new file a real crash left behind is ignored by reads; the next write (under the lock, so no
        // other writer is alive) deletes it and replaces the token.
        _ = FileManager.default.createFile(
            atPath: directory.tokenFile + ".tmp-left", contents: Data("{\"ckWeb".utf8),
            attributes: [.posixPermissions: 0o600])
        try LocalAuthFile(path: directory.tokenFile).write(next)
        #expect(try LocalAuthFile(path: directory.tokenFile).read() == next)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/home")
        #expect(names == ["auth.json"])
    }

    @Test func theLockAdmitsOneHolderAtATime() async throws {
        let directory = Directory()
        try LocalAuthFile(path: directory.tokenFile).ensureDirectory()
        let lock = FileLock(path: directory.tokenFile + ".lock")
        let first = try #require(try await lock.acquire(timeout: .seconds(1)))
        #expect(try await lock.acquire(timeout: .milliseconds(100)) == nil)
        first.release()
        let second = try await lock.acquire(timeout: .seconds(1))
        #expect(second != nil)
        second?.release()
        #expect(Self.mode(directory.tokenFile + ".lock") == 0o600)
    }

    /// Two sessions on one file, as two `mustdo-relay local` processes would be (each with its own lock
    /// descriptor and its own in-process queue): calls never overlap, and each uses the token the one
    /// before it rotated to, as CloudKit requires when the old token dies on rotation.
    @Test func sessionsSharingTheFileTakeTurnsAndCarryTheRotation() async throws {
        let directory = Directory()
        let tokens = LocalAuthFile(path: directory.tokenFile)
        try tokens.write(LocalAuthFile.Saved(token: "t0", container: "c", environment: "development"))
        let sessions = (0..<2).map { _ in
            LocalSession(
                tokens: tokens, lock: FileLock(path: directory.tokenFile + ".lock"), container: "c",
                environment: "development")
        }
        let state = Locked((inFlight: 0, most: 0, next: 0, wrong: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                let session = sessions[index % 2]
                group.addTask {
                    _ = try await session.perform { token async throws(CloudKitError) -> CloudKitResponse<Int> in
                        let expected = state.withLock { state -> String in
                            state.inFlight += 1
                            state.most = max(state.most, state.inFlight)
                            return "t\(state.next)"
                        }
                        try? await Task.sleep(for: .milliseconds(2))
                        return state.withLock { state in
                            if token.rawValue != expected { state.wrong += 1 }
                            state.inFlight -= 1
                            state.next += 1
                            return CloudKitResponse(value: 1, rotatedToken: CloudKitWebAuthToken("t\(state.next)"))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let final = state.withLock { $0 }
        #expect(final.most == 1)
        #expect(final.wrong == 0)
        #expect(try tokens.read()?.token == "t20")
    }

    @Test func noUsableSignInEndsTheSessionWithTheReason() async throws {
        let directory = Directory()
        let tokens = LocalAuthFile(path: directory.tokenFile)
        let session = LocalSession(
            tokens: tokens, lock: FileLock(path: directory.tokenFile + ".lock"), container: "c",
            environment: "production")
        try tokens.ensureDirectory()
        func call() async -> CloudKitError? {
            do {
                _ = try await session.perform { _ async throws(CloudKitError) -> CloudKitResponse<Int> in
                    CloudKitResponse(value: 1, rotatedToken: nil)
                }
                return nil
            } catch {
                return error
            }
        }
        #expect(await call()?.kind == .sessionDead)
        #expect(session.notSignedInMessage.contains("no saved iCloud sign-in"))
        #expect(session.notSignedInMessage.contains("sign_in"))
        try tokens.write(LocalAuthFile.Saved(token: "dev", container: "c", environment: "development"))
        #expect(await call()?.kind == .sessionDead)
        #expect(session.notSignedInMessage.contains("not c (production)"))
        try tokens.write(LocalAuthFile.Saved(token: "prod", container: "c", environment: "production"))
        #expect(await call() == nil)
        // CloudKit refusing the token: the session ends and the dead token leaves the file.
        do {
            _ = try await session.perform { _ async throws(CloudKitError) -> CloudKitResponse<Int> in
                throw CloudKitError(.sessionDead, status: 421)
            }
            Issue.record("a refused token must end the session")
        } catch {
            #expect(error.kind == .sessionDead)
        }
        #expect(try tokens.read() == nil)
        #expect(session.notSignedInMessage.contains("iCloud ended the sign-in"))
    }
}
