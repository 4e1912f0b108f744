import Foundation
import RelayCrypto
import RelayTestSupport
import Testing

@testable import RelayVault

struct LocalKeyServiceTests {
    let context: EncryptionContext = ["purpose": "test", "userId": "u1", "grantId": "g1", "keyVersion": "1"]

    static func mode(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func wrapsAndUnwrapsOnlyUnderTheSameContext() async throws {
        let service = try LocalKeyService(keys: [("k1", SymmetricKey.random())])
        let dataKey = try await service.generateDataKey(context: context)
        #expect(dataKey.plaintext.byteCount == 32)
        #expect(try await service.unwrap(dataKey.wrapped, context: context) == dataKey.plaintext)
        for changed in [
            context.merging(["grantId": "g2"]) { $1 }, context.merging(["extra": "x"]) { $1 },
            context.filter { $0.key != "userId" }, [:],
        ] {
            await #expect(throws: VaultError.authenticationFailed) {
                try await service.unwrap(dataKey.wrapped, context: changed)
            }
        }
        var altered = dataKey.wrapped.bytes
        altered[altered.count - 1] ^= 1
        await #expect(throws: VaultError.authenticationFailed) {
            try await service.unwrap(WrappedKey(bytes: altered), context: context)
        }
        var otherVersion = dataKey.wrapped.bytes
        otherVersion[0] = 2
        await #expect(throws: VaultError.malformed("unsupported envelope version 2")) {
            try await service.unwrap(WrappedKey(bytes: otherVersion), context: context)
        }
        await #expect(throws: VaultError.self) {
            try await service.unwrap(WrappedKey(bytes: [1, 200]), context: context)
        }
    }

    @Test func aKeyFromAnotherServiceDoesNotOpen() async throws {
        let first = try LocalKeyService(keys: [("k1", SymmetricKey.random())])
        let sameID = try LocalKeyService(keys: [("k1", SymmetricKey.random())])
        let otherID = try LocalKeyService(keys: [("k9", SymmetricKey.random())])
        let wrapped = try await first.generateDataKey(context: context).wrapped
        await #expect(throws: VaultError.authenticationFailed) { try await sameID.unwrap(wrapped, context: context) }
        await #expect(throws: VaultError.unknownKey("k1")) { try await otherID.unwrap(wrapped, context: context) }
    }

    @Test func keyFileCreationAndRotation() async throws {
        let directory = try temporaryDirectory(prefix: "relay-vault")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("master.keys").path
        let previousMask = umask(0)
        defer { umask(previousMask) }
        #expect(try LocalKeyService.createKeyFile(at: path) == "k1")
        #expect(try Self.mode(of: path) == 0o600, "created 0600 even with umask 0")
        #expect(throws: VaultError.self) { try LocalKeyService.createKeyFile(at: path) }

        let before = try LocalKeyService(keyFile: path)
        #expect(before.currentKeyID == "k1")
        let old = try await before.generateDataKey(context: context)

        #expect(try LocalKeyService.addKey(toKeyFile: path) == "k2")
        #expect(try Self.mode(of: path) == 0o600)
        let after = try LocalKeyService(keyFile: path)
        #expect(after.keyIDs == ["k1", "k2"] && after.currentKeyID == "k2")
        let new = try await after.generateDataKey(context: context)
        #expect(Array(new.wrapped.bytes[1...3]) == [2] + Array("k2".utf8), "new keys are wrapped under k2")
        #expect(try await after.unwrap(old.wrapped, context: context) == old.plaintext, "k1 still opens its keys")
        #expect(try await after.unwrap(new.wrapped, context: context) == new.plaintext)
        await #expect(throws: VaultError.unknownKey("k2")) { try await before.unwrap(new.wrapped, context: context) }

        let contents = try String(contentsOfFile: path, encoding: .utf8)
        #expect(contents.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 2)
    }

    @Test(arguments: [0o640, 0o604, 0o644, 0o660, 0o606, 0o700])
    func refusesKeyFilesOthersCanReach(mode: Int) throws {
        let directory = try temporaryDirectory(prefix: "relay-vault")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("master.keys").path
        try LocalKeyService.createKeyFile(at: path)
        #expect(chmod(path, mode_t(mode)) == 0)
        if mode & 0o077 == 0 {
            #expect(throws: Never.self) { try LocalKeyService(keyFile: path) }
            return
        }
        #expect {
            try LocalKeyService(keyFile: path)
        } throws: { error in
            guard case .keyFile(let message) = error as? VaultError else { return false }
            return message.contains("chmod 600 \(path)") && message.contains(String(mode, radix: 8))
        }
    }

    @Test func acceptsOwnerReadOnlyFilesAndSeveralFiles() throws {
        let directory = try temporaryDirectory(prefix: "relay-vault")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("a.keys").path
        let second = directory.appendingPathComponent("b.keys").path
        let key = Base64URL.encode(SecureRandom.bytes(count: 32))
        try "# old\nold-1 \(key)\n".write(toFile: first, atomically: false, encoding: .utf8)
        try "\n  new-1   \(Base64URL.encode(SecureRandom.bytes(count: 32)))  \n".write(
            toFile: second, atomically: false, encoding: .utf8)
        #expect(chmod(first, 0o400) == 0 && chmod(second, 0o600) == 0)
        let service = try LocalKeyService(keyFiles: [first, second])
        #expect(service.keyIDs == ["old-1", "new-1"] && service.currentKeyID == "new-1")
    }

    @Test(arguments: [
        "", "# only a comment\n", "k1\n", "k1 short\n", "k1 \(String(repeating: "A", count: 43)) extra\n",
        "bad/id \(Base64URL.encode(SecureRandom.bytes(count: 32)))\n",
        "k1 \(Base64URL.encode(SecureRandom.bytes(count: 16)))\n",
        "k1 \(Base64URL.encode(SecureRandom.bytes(count: 32)))\nk1 \(Base64URL.encode(SecureRandom.bytes(count: 32)))\n",
    ])
    func refusesMalformedKeyFiles(contents: String) throws {
        #expect(throws: VaultError.self) { try KeyFile.parse(contents, path: "test.keys") }
    }

    /// An empty file (a `touch`, an interrupted copy) is "holds no key", never "unreadable or larger
    /// than 65536 bytes": the message must send the operator to the right fix.
    @Test func anEmptyKeyFileSaysItHoldsNoKey() throws {
        let directory = try temporaryDirectory(prefix: "relay-vault")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("master.keys").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(), attributes: [.posixPermissions: 0o600]))
        #expect {
            try LocalKeyService(keyFile: path)
        } throws: { error in
            guard case .keyFile(let message) = error as? VaultError else { return false }
            return message == "\(path) holds no key"
        }
    }

    @Test func refusesMissingFilesAndDirectories() throws {
        let directory = try temporaryDirectory(prefix: "relay-vault")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: VaultError.self) { try LocalKeyService(keyFile: directory.appendingPathComponent("none").path) }
        #expect(chmod(directory.path, 0o700) == 0)
        #expect(throws: VaultError.self) { try LocalKeyService(keyFile: directory.path) }
        #expect(throws: VaultError.self) { try LocalKeyService(keys: []) }
    }
}
