import Foundation
import XCTest

/// `mustdo-relay serve` stopped by SIGTERM closes its SQLite store: the WAL is checkpointed into the
/// database file and removed, so what an operator copies or inspects after a stop is one file.
final class StoreCloseTests: XCTestCase {
    func testAStoppedRelayLeavesNoWriteAheadLog() async throws {
        let relay = try await ServedRelay()
        var finished = false
        defer { if !finished { Task { [relay] in await relay.finish() } } }
        let driver = OAuthDriver(http: relay.http, issuer: relay.issuer)
        let tokens = try await driver.connect(appleID: "wal@example.com")
        let (reply, _) = try await relay.mcp.tool("get_me", token: tokens.access)
        XCTAssertEqual(reply.status, 200)
        let database = relay.service.path + "/relay.sqlite"
        let wal = database + "-wal"
        // While the relay runs, its writes (a client, a grant, a rotated token) sit in the WAL.
        let running = try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int ?? 0
        XCTAssertGreaterThan(running, 0, "the running relay wrote nothing to its WAL")

        try await relay.stopRelay()
        XCTAssertFalse(FileManager.default.fileExists(atPath: wal), "the WAL outlived the relay")
        let size = try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int ?? 0
        XCTAssertGreaterThan(size, 0)
        finished = true
        await relay.finish()
    }
}
