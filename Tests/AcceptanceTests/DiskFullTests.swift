import Foundation
import RelayHTTP
import RelayTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The SQLite file on a filesystem that fills up (a small tmpfs mounted for the test, filled with a
/// file to the last byte): writes fail with clear 503s while reads and the process carry on, the
/// file stays sound, and everything works again once space is freed.
extension AcceptanceSuite {
    @Suite(.timeLimit(.minutes(10))) struct DiskFullTests {
        @Test func testAFullDiskGivesClearErrorsNoCorruptionAndRecoversWhenSpaceIsFreed() async throws {
            let http = try HTTPClient.forTests()
            defer { http.shutdown() }
            let mountPoint = FileManager.default.temporaryDirectory.appendingPathComponent(
                "relay-tmpfs-\(UUID().uuidString)"
            )
            .path
            try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: mountPoint) }
            let mount = try await run("/bin/mount", ["-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", mountPoint])
            guard mount.status == 0 else {
                try Test.cancel(
                    "this sandbox cannot mount a tmpfs (mount said: \(mount.output)); run as root to include it")
            }
            defer { _ = try? runBlocking("/bin/umount", ["-l", mountPoint]) }

            let emulator = try await EmulatorProcess(http: http)
            let database = mountPoint + "/relay.sqlite"
            let setup = try await RelaySetup(
                emulator: emulator,
                settings: ["RELAY_SQLITE_PATH": database, "RELAY_OAUTH_REGISTRATIONS_PER_HOUR": "10000"])
            defer { setup.remove() }
            var relay = try await setup.start(http: http)
            defer { relay.child.signal(SIGKILL) }
            let (client, first) = try await RelayClient.connected(
                http: http, appleID: "heidi@example.com", at: relay.base)
            var tokens = first
            expectResult(try await client.callTool("get_me", access: tokens.access, at: relay.base))

            let filler = mountPoint + "/filler"
            let filled = try fill(filler)
            #expect(filled > 0)

            // Writes go on until SQLite needs a page the filesystem cannot give; then 503, not a crash.
            var refused: RelayClient.TokenError?
            for _ in 0..<400 where refused == nil {
                switch try await client.refresh(tokens.refresh, at: relay.base) {
                case .success(let next): tokens = next
                case .failure(let error): refused = error
                }
            }
            #expect(refused == .init(status: 503, code: "temporarily_unavailable"), "the disk never filled up")
            // While the disk stays full every write answers at once, success (a checkpoint may free WAL
            // space) or the same clear 503; a refused rotation leaves the old refresh token current.
            for _ in 0..<5 {
                switch try await client.refresh(tokens.refresh, at: relay.base) {
                case .success(let next): tokens = next
                case .failure(let error): #expect(error == .init(status: 503, code: "temporarily_unavailable"))
                }
            }
            let registration = try await http.send(
                ClientRequest(
                    method: .post, url: relay.base + "/register", headers: ["Content-Type": "application/json"],
                    body: Array(
                        #"{"redirect_uris":["http://127.0.0.1:9/cb"],"token_endpoint_auth_method":"none"}"#.utf8)))
            #expect([201, 503].contains(registration.status), "\(registration.status) \(registration.text)")
            // Reads go on: tool calls still work (a token CloudKit rotates meanwhile is kept in memory
            // and saved once there is room; the restart at the end proves it reached the file).
            for _ in 0..<2 {
                expectResult(try await client.callTool("get_me", access: tokens.access, at: relay.base))
            }
            #expect(relay.child.isRunning)
            #expect(try await inspectSQLite(database).integrity == ["ok"])

            // Space comes back: the same client carries on, and new connections work.
            try FileManager.default.removeItem(atPath: filler)
            let resumed = try await client.refresh(tokens.refresh, at: relay.base)
            #expect(throws: Never.self, "\(resumed)") { try resumed.get() }
            tokens = try resumed.get()
            expectResult(try await client.callTool("get_me", access: tokens.access, at: relay.base))
            let (other, otherTokens) = try await RelayClient.connected(
                http: http, appleID: "ivan@example.com", at: relay.base)
            expectResult(try await other.callTool("get_me", access: otherTokens.access, at: relay.base))

            relay.child.signal(SIGTERM)
            #expect(try await relay.child.waitForExit() == 0, "\(relay.child.text)")
            let stopped = try await inspectSQLite(database)
            #expect(stopped.integrity == ["ok"])
            relay = try await setup.start(http: http)
            expectResult(try await client.callTool("get_me", access: tokens.access, at: relay.base))
        }

        /// Writes zeros to `path` until the filesystem refuses (ENOSPC); returns the bytes written.
        private func fill(_ path: String) throws -> Int {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            guard descriptor >= 0 else { throw AcceptanceFailure("cannot create \(path): errno \(errno)") }
            defer { close(descriptor) }
            let chunk = [UInt8](repeating: 0, count: 4096)
            var total = 0
            while true {
                let written = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                if written > 0 {
                    total += written
                    continue
                }
                if errno == ENOSPC || written == 0 { return total }
                throw AcceptanceFailure("write to \(path) failed: errno \(errno)")
            }
        }

        private func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
            let child = try ChildProcess(executable: executable, arguments)
            let status = try await child.waitForExit()
            return (status, child.text)
        }

        private func runBlocking(_ executable: String, _ arguments: [String]) throws -> Int32 {
            let process = try Subprocess(executable, arguments, output: .inherit, errors: .inherit)
            return try process.waitBlocking(timeout: .seconds(60)).status
        }
    }
}
