import Foundation
import RelayJSON
import RelayStore
import RelaySync
import Testing

extension EndToEndSuite {
    /// The rotated CloudKit token's save runs after the tool call is answered, still in the grant's turn:
    /// with the save held in the store, the answer arrives anyway, the grant's next call waits for the
    /// save and goes out with the rotated token (CloudKit, emulated, kills the old one at once), and a
    /// graceful shutdown waits for a save in flight. Real SQLite, the server on a real socket.
    @Suite(.timeLimit(.minutes(10))) struct RotationSaveTests {
        @Test func testTheAnswerDoesNotWaitForTheSaveButTheGrantsNextCallDoes() async throws {
            let gate = SaveGate()
            let relay = try await RelayHarness(rotation: .invalidate, wrapStore: { GatedStore(base: $0, gate: gate) })
            defer { relay.removeFiles() }
            let driver = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let tokens = try await driver.connect(appleID: "early-answer@example.com")
            let mcp = MCPCalls(http: relay.http, url: relay.mcpURL)
            let connected = gate.saved  // the sign-in wrote the grant's token too
            let (warm, _) = try await mcp.tool("get_me", token: tokens.access)
            #expect(warm.status == 200)
            // The warm call's save, which must not be held below. Saved, not merely tried: the day's
            // first call also marks the grant used, and a save that loses that race is tried again;
            // with the gate closed on its retry, the next call would wait for it forever.
            await gate.waitForSaved(connected + 1)

            gate.close()
            let (answered, content) = try await mcp.tool("get_me", token: tokens.access)
            #expect(answered.status == 200)
            #expect(content?["today"] != nil, "\(answered.body?.jsonString ?? "")")
            await gate.waitForHeld(1)
            #expect(gate.heldLanded == 0, "the call was answered while its rotated token was still being saved")

            // The grant's next call, at once: it must wait for the save, then use the rotated token
            // (the one it replaced is dead already).
            let next = Task { try await mcp.tool("get_me", token: tokens.access) }
            gate.open()
            let (second, secondContent) = try await next.value
            #expect(second.status == 200)
            #expect(secondContent?["today"] != nil, "\(second.body?.jsonString ?? "")")
            #expect(gate.heldLanded == 1, "the held save landed before the grant's next call began")
            // No call ever went out with a dead token (a call that raced the save would have been refused
            // and counted, even if following the store's newer copy saved it afterwards).
            let metrics = try await relay.metricsText()
            let refused = metrics.split(separator: "\n").filter {
                $0.hasPrefix("relay_cloudkit_calls_total") && !$0.contains("outcome=\"ok\"") && !$0.hasSuffix(" 0")
            }
            #expect(refused == [], "a CloudKit call went out with a token already rotated away")
            await relay.stop()
        }

        @Test func testGracefulShutdownWaitsForASaveInFlight() async throws {
            let gate = SaveGate()
            let relay = try await RelayHarness(rotation: .invalidate, wrapStore: { GatedStore(base: $0, gate: gate) })
            defer { relay.removeFiles() }
            let driver = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let tokens = try await driver.connect(appleID: "shutdown-save@example.com")
            let mcp = MCPCalls(http: relay.http, url: relay.mcpURL)
            let store = relay.application.backends.store
            let before = try await grantVersions(store)
            #expect(before.count == 1)

            gate.close()
            let (answered, _) = try await mcp.tool("get_me", token: tokens.access)
            #expect(answered.status == 200)
            await gate.waitForHeld(1)

            relay.application.shutdown()
            let stopped = Locked(false)
            let stopping = Task {
                await relay.application.waitUntilStopped()
                stopped.withLock { $0 = true }
            }
            // Every request is drained here; the save is still held, so the application has not stopped.
            await relay.application.server.waitUntilStopped()
            try await Task.sleep(for: .milliseconds(200))
            #expect(!(stopped.withLock { $0 }), "the application stopped with a rotated token still unsaved")
            gate.open()
            await stopping.value
            #expect(gate.heldLanded == 1, "the save in flight landed before the application stopped")
            let after = try await grantVersions(store)
            #expect(after.count == 1)
            // Compared, never printed: the sealed token stays out of the test's output too.
            #expect(after.map(\.sealed) != before.map(\.sealed), "the rotated token reached the store")
            await relay.stop()  // the rest of the harness (logs, emulator, client); the server is already stopped
        }

        private func grantVersions(_ store: any Store) async throws -> [(version: Int, sealed: String)] {
            let page = try await store.scan(pkPrefix: "GRANT#", cursor: nil, limit: 100)
            return page.items.filter { $0.sk == "META" }.map {
                ($0.version, $0.attributes["sealed"].map { "\($0)" } ?? "")
            }
        }
    }
}

/// Holds the store's rotated-token saves (updates that set `sealed`) while closed.
final class SaveGate: Sendable {
    private struct State {
        var closed = false
        var held: [CheckedContinuation<Bool, Never>] = []
        var heldTotal = 0
        var saved = 0
        var heldLanded = 0
    }

    private let state = Locked(State())

    func close() { state.withLock { $0.closed = true } }

    func open() {
        let held = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.closed = false
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume(returning: true) }
    }

    /// Saves that succeeded (a compare-and-swap that lost to another write of the grant, e.g. its
    /// "used today" mark, fails and is tried again).
    var saved: Int { state.withLock { $0.saved } }
    /// Saves that were held and have completed since.
    var heldLanded: Int { state.withLock { $0.heldLanded } }

    /// Waits while the gate is closed; whether it held the caller.
    func pass() async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let hold = state.withLock { state -> Bool in
                guard state.closed else { return false }
                state.held.append(continuation)
                state.heldTotal += 1
                return true
            }
            if !hold { continuation.resume(returning: false) }
        }
    }

    func didLand(held: Bool, saved: Bool) {
        state.withLock {
            if saved { $0.saved += 1 }
            if held { $0.heldLanded += 1 }
        }
    }

    func waitForHeld(_ count: Int) async {
        while state.withLock({ $0.heldTotal < count }) { try? await Task.sleep(for: .milliseconds(5)) }
    }

    func waitForSaved(_ count: Int) async {
        while saved < count { try? await Task.sleep(for: .milliseconds(5)) }
    }
}

/// A store whose rotated-token saves pass through a `SaveGate`; everything else goes straight through.
struct GatedStore: Store {
    let base: any Store
    let gate: SaveGate

    func get(_ key: ItemKey) async throws(StoreError) -> Item? { try await base.get(key) }

    func put(_ key: ItemKey, attributes: JSONObject, expiresAt: Int?, condition: WriteCondition)
        async throws(StoreError) -> Item
    {
        try await base.put(key, attributes: attributes, expiresAt: expiresAt, condition: condition)
    }

    func update(_ key: ItemKey, _ update: ItemUpdate, condition: WriteCondition) async throws(StoreError) -> Item {
        guard update.set["sealed"] != nil else { return try await base.update(key, update, condition: condition) }
        let held = await gate.pass()
        do throws(StoreError) {
            let item = try await base.update(key, update, condition: condition)
            gate.didLand(held: held, saved: true)
            return item
        } catch {
            gate.didLand(held: held, saved: false)
            throw error
        }
    }

    func delete(_ key: ItemKey, condition: WriteCondition) async throws(StoreError) -> Item? {
        try await base.delete(key, condition: condition)
    }

    func transact(_ writes: [StoreWrite]) async throws(StoreError) { try await base.transact(writes) }

    func query(_ query: Query) async throws(StoreError) -> QueryPage { try await base.query(query) }

    func scan(pkPrefix: String, cursor: ScanCursor?, limit: Int) async throws(StoreError) -> ScanPage {
        try await base.scan(pkPrefix: pkPrefix, cursor: cursor, limit: limit)
    }
}
