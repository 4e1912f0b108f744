import Foundation
import RelayCloudKit
import RelayJSON
import RelaySync
import RelayTodo
import Testing

/// The emulator in "old token dies at once" mode (the documented behaviour, its default): every call of a grant
/// must go out with the token the previous reply rotated to, so the grant's calls run one at a time and the
/// rotated token is stored before the next one starts.
@Suite struct TokenRotationToolTests {
    static let calls: [(String, JSONValue)] = [
        ("get_me", [:]), ("add_todo", ["title": "Rotate"]), ("list_todos", ["status": "all"]),
        ("add_todo", ["title": "Again", "repeat": ["kind": "daily"]]),
    ]

    @Test func twentySequentialCallsOfOneGrant() async throws {
        let harness = try ToolHarness()
        #expect(harness.emulator.settings.rotation == .invalidate)
        let alice = try harness.connect()
        let first = alice.session.token
        for index in 0..<20 {
            let (tool, arguments) = Self.calls[index % Self.calls.count]
            let reply = try await harness.call(tool, arguments, as: alice)
            #expect(reply.status == 200 && !reply.isError, "call \(index) \(tool): \(reply)")
        }
        #expect(alice.session.token != first)
        #expect(alice.session.rotations >= 20)
        #expect(try harness.stored(alice, "Todo").count == 10)
        #expect(harness.authenticator.ended.isEmpty)
    }

    @Test func twentyConcurrentCallsOfOneGrant() async throws {
        let harness = try ToolHarness()
        harness.emulator.setLatency(milliseconds: 5)
        let alice = try harness.connect()
        let bob = try harness.connect("bob@example.com")
        let replies = try await withThrowingTaskGroup(of: (String, ToolReply).self) { group in
            for index in 0..<20 {
                let (tool, arguments) = Self.calls[index % Self.calls.count]
                group.addTask { (tool, try await harness.call(tool, arguments, as: alice)) }
            }
            // Another grant's calls run beside them.
            for _ in 0..<5 { group.addTask { ("get_me", try await harness.call("get_me", as: bob)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(replies.count == 25)
        for (tool, reply) in replies { #expect(reply.status == 200 && !reply.isError, "\(tool): \(reply)") }
        #expect(try harness.stored(alice, "Todo").count == 10)
        #expect(harness.authenticator.ended.isEmpty)
        #expect(harness.serializer.activeGrants == 0)
    }

    /// The same concurrent calls without the serializer: requests share a token the emulator has already
    /// replaced, and the session ends. This is what the two tests above would catch.
    @Test func withoutOneCallInFlightTheSessionDies() async throws {
        let harness = try ToolHarness()
        harness.emulator.setLatency(milliseconds: 20)
        let signedIn = try harness.connect()
        let alice = try harness.connect(session: FakeUnserializedSession(token: signedIn.session.token))
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 { group.addTask { try await harness.call("get_me", [:], as: alice).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.contains(401))
        #expect(harness.authenticator.ended.contains(alice.appleID))
    }

    @Test func tooManyWaitingCallsAreRateLimitedAtOnce() async throws {
        let harness = try ToolHarness(maxWaiting: 1)
        harness.emulator.setLatency(milliseconds: 100)
        let alice = try harness.connect()
        let replies = try await withThrowingTaskGroup(of: ToolReply.self) { group in
            for _ in 0..<6 { group.addTask { try await harness.call("get_me", [:], as: alice) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let limited = replies.filter { $0.errorCode == "RATE_LIMITED" }
        #expect(!limited.isEmpty)
        #expect(replies.contains { $0.status == 200 && !$0.isError })
        for reply in limited {
            #expect(reply.content["error"]?["retryAfter"] == 1)
            #expect(reply.text.contains("Too many calls for this connection"))
        }
        // The grant is still fine afterwards.
        #expect(try await harness.call("get_me", as: alice).isError == false)
    }
}

/// A session that keeps the rotated token but lets calls overlap (what the serializer prevents).
final class FakeUnserializedSession: CloudKitSession {
    private let token: Locked<CloudKitWebAuthToken>

    init(token: CloudKitWebAuthToken) { self.token = Locked(token) }

    func perform<Value: Sendable>(
        _ call: (CloudKitWebAuthToken) async throws(CloudKitError) -> CloudKitResponse<Value>
    ) async throws(CloudKitError) -> Value {
        let response = try await call(token.withLock { $0 })
        if let rotated = response.rotatedToken { token.withLock { $0 = rotated } }
        return response.value
    }
}
