import Foundation
import RelayCloudKit
import RelayEmulator
import RelayHTTP
import RelayJSON
import RelaySync
import RelayTodo
import Testing

/// CloudKit failures as the tools report them: tool errors with retry advice, or HTTP 401 for a dead session.
@Suite struct UpstreamFailureToolTests {
    @Test func throttledIsRateLimitedWithRetryAfter() async throws {
        let harness = try ToolHarness()
        let alice = try harness.connect()
        harness.emulator.injectFault(status: 429, serverErrorCode: "THROTTLED", retryAfter: 7, count: 3)
        let reply = try await harness.call("get_me", as: alice)
        #expect(reply.status == 200 && reply.isError, "\(reply)")
        #expect(reply.errorCode == "RATE_LIMITED")
        #expect(reply.content["error"]?["retryAfter"] == 7)
        #expect(reply.text.contains("7 seconds"))
        #expect(harness.toolCalls.map(\.outcome) == ["RATE_LIMITED"])
    }

    /// `retryAfter`'s unit is undocumented (TN3162's Web Services example is 110207): the agent is told seconds,
    /// read from the magnitude, rounded up, at most five minutes.
    @Test(arguments: [(110_207.0, 111), (30.0, 30), (2.5, 3), (900.0, 300), (5_000_000.0, 300)])
    func retryAfterIsToldInSecondsWhateverItsUnit(value: Double, told: Int) async throws {
        let harness = try ToolHarness()
        let alice = try harness.connect()
        harness.emulator.injectFault(status: 429, serverErrorCode: "THROTTLED", retryAfter: value, count: 3)
        let reply = try await harness.call("list_todos", as: alice)
        #expect(reply.errorCode == "RATE_LIMITED", "\(reply)")
        #expect(reply.content["error"]?["retryAfter"] == .int(told))
        #expect(reply.text.contains("Retry in \(told) seconds."), "\(reply.text)")
    }

    /// (status, body, Retry-After header, retryAfter in the error)
    @Test(
        arguments: [
            (503, Emulator.FaultBody.json, nil, nil), (503, .html, nil, nil), (503, .empty, nil, nil),
            (500, .json, nil, nil),
            (503, .html, 20, 20),
        ] as [(Int, Emulator.FaultBody, Int?, Int?)])
    func outagesAreUpstreamUnavailable(status: Int, body: Emulator.FaultBody, header: Int?, retryAfter: Int?)
        async throws
    {
        let harness = try ToolHarness()
        let alice = try harness.connect()
        harness.emulator.injectFault(status: status, retryAfterHeader: header, body: body, count: 5)
        let reply = try await harness.call("list_todos", [:], as: alice)
        #expect(reply.errorCode == "UPSTREAM_UNAVAILABLE", "\(reply)")
        #expect(reply.content["error"]?["retryAfter"] == retryAfter.map { .int($0) })
        #expect(reply.text.contains("Retry in \(retryAfter ?? 30) seconds"))
    }

    @Test func aTimeoutIsUpstreamUnavailable() async throws {
        let harness = try ToolHarness(timeout: .milliseconds(150))
        let alice = try harness.connect()
        harness.emulator.setLatency(milliseconds: 600)
        let reply = try await harness.call("get_me", as: alice)
        #expect(reply.errorCode == "UPSTREAM_UNAVAILABLE", "\(reply)")
    }

    @Test func aFailedWriteWritesNothing() async throws {
        let harness = try ToolHarness()
        let alice = try harness.connect()
        harness.emulator.injectFault(status: 503, count: 1, operations: ["records/modify"])
        let reply = try await harness.call("add_todo", ["title": "x"], as: alice)
        #expect(reply.errorCode == "UPSTREAM_UNAVAILABLE", "\(reply)")
        #expect(try harness.stored(alice, "Todo").isEmpty)
    }

    /// The create reached CloudKit but its answer was lost: the lookup that follows finds the record, so the
    /// call succeeds instead of inviting a retry that would add a second copy.
    @Test func aCreateWhoseAnswerWasLostIsFoundAndReported() async throws {
        let harness = try ToolHarness()
        let signedIn = try harness.connect()
        let lost = FakeLosingSession(signedIn.session, losing: 2)
        let alice = try harness.connect(session: lost)
        let reply = try await harness.call("add_todo", ["title": "Once"], as: alice)
        #expect(!reply.isError, "\(reply)")
        #expect(try harness.stored(alice, "Todo").count == 1)
        #expect(lost.lost == 1)
    }

    @Test func perItemFailuresOfAWrite() async throws {
        let harness = try ToolHarness()
        let alice = try harness.connect()
        harness.emulator.injectItemFault(serverErrorCode: "QUOTA_EXCEEDED")
        let full = try await harness.call("add_todo", ["title": "x"], as: alice)
        // Not UPSTREAM_UNAVAILABLE, which invites a retry (issue 42): the person must free space first.
        #expect(full.errorCode == "QUOTA_EXCEEDED", "\(full)")
        #expect(full.text.contains("storage is full") && full.text.contains("Retrying will not help"))
        // A 413 that is not CloudKit's (a proxy's "request too large", no JSON) is not "iCloud is full".
        harness.emulator.injectFault(status: 413, body: .html, operations: ["records/modify"])
        let proxy = try await harness.call("add_todo", ["title": "x"], as: alice)
        #expect(proxy.isError && !proxy.text.contains("storage is full"), "\(proxy)")
        #expect(proxy.errorCode == "INTERNAL_ERROR", "\(proxy)")
        harness.emulator.injectItemFault(serverErrorCode: "THROTTLED")
        #expect(try await harness.call("add_todo", ["title": "x"], as: alice).errorCode == "RATE_LIMITED")
        // A refusal of the relay's own request is its bug: INTERNAL_ERROR, with the value-free detail logged.
        harness.emulator.injectItemFault(serverErrorCode: "BAD_REQUEST", reason: "Invalid value for field 'title'")
        let refused = try await harness.call("add_todo", ["title": "secret-title"], as: alice)
        #expect(refused.errorCode == "INTERNAL_ERROR", "\(refused)")
        #expect(
            harness.reportedErrors == ["add_todo: CloudKit badRequest (HTTP 413)", "add_todo: CloudKit badRequest"])
        #expect(try harness.stored(alice, "Todo").isEmpty)
    }

    @Test func advancedDataProtectionIsAccountUnsupported() async throws {
        var settings = EmulatorSettings()
        settings.protectedSessions = .deny
        let harness = try ToolHarness(settings: settings)
        let alice = try harness.connect()
        try harness.emulator.setUserFlags(alice.appleID, advancedDataProtection: true)
        let reply = try await harness.call("list_todos", [:], as: alice)
        #expect(reply.errorCode == "ACCOUNT_UNSUPPORTED", "\(reply)")
    }

    /// 421 AUTHENTICATION_REQUIRED ends the grant: HTTP 401 with the challenge, no result.
    @Test func aDeadSessionEndsTheGrant() async throws {
        let harness = try ToolHarness()
        let alice = try harness.connect()
        let bob = try harness.connect("bob@example.com")
        #expect(try await harness.call("get_me", as: alice).status == 200)
        try harness.emulator.expireSessions(user: alice.appleID)
        let reply = try await harness.call("add_todo", ["title": "x"], as: alice)
        #expect(reply.status == 401, "\(reply)")
        #expect(reply.headers["www-authenticate"]?.contains(#"error="invalid_token""#) == true)
        #expect(reply.result == nil)
        #expect(harness.authenticator.ended == [alice.appleID])
        #expect(!harness.authenticator.isConnected(alice.bearer))
        #expect(try await harness.call("get_me", as: alice).status == 401)
        #expect(try await harness.call("get_me", as: bob).status == 200)
        #expect(harness.toolCalls.map(\.outcome) == ["ok", "SESSION_ENDED", "ok"])
    }

    /// 401 AUTHENTICATION_FAILED says nothing about whose credentials failed. A session that does not check
    /// the API token (RelayService's does, and then reports `.sessionDead` itself) leaves it as it is, and the tools
    /// treat it as the service's misconfiguration: a clear error, and the grant stays.
    @Test func authenticationFailedAloneNeverEndsTheGrant() async throws {
        var settings = EmulatorSettings()
        settings.deadTokenStatus = 401
        let harness = try ToolHarness(settings: settings)
        let alice = try harness.connect()
        #expect(try await harness.call("get_me", as: alice).status == 200)
        try harness.emulator.expireSessions(user: alice.appleID)
        let reply = try await harness.call("add_todo", ["title": "x"], as: alice)
        #expect(reply.status == 200, "\(reply)")
        #expect(reply.errorCode == "UPSTREAM_UNAVAILABLE", "\(reply)")
        #expect(harness.authenticator.ended.isEmpty)
        #expect(harness.authenticator.isConnected(alice.bearer))
    }

    /// A user whose MustDo zone does not exist yet (the app never synced) has defaults and no to-dos; the first
    /// add creates the zone.
    @Test func aMissingZoneReadsAsEmptyAndAddCreatesIt() async throws {
        var settings = EmulatorSettings()
        settings.rotation = .keep
        let harness = try ToolHarness(settings: settings)
        let alice = try harness.connect()
        let url = CloudKitURL.make(harness.client.configuration, .private, "zones/modify", alice.session.token)
        let body: JSONValue = ["operations": [["operationType": "delete", "zone": ["zoneID": ["zoneName": "MustDo"]]]]]
        let deleted = try await harness.http.send(
            ClientRequest(method: .post, url: url, headers: ["Content-Type": "application/json"], body: body.bytes))
        #expect(deleted.status == 200, "\(deleted.text)")
        #expect(try await harness.call("get_me", as: alice).content["timeZone"] == "UTC")
        #expect(try await harness.call("list_todos", [:], as: alice).content["items"] == [])
        #expect(try await harness.call("delete_todo", ["id": "x"], as: alice).errorCode == "NOT_FOUND")
        let added = try await harness.call("add_todo", ["title": "First"], as: alice)
        #expect(!added.isError, "\(added)")
        #expect(try harness.stored(alice, "Todo").count == 1)
    }
}

/// A session whose `losing`-th call reaches CloudKit but reports a timeout, as when the answer is lost.
final class FakeLosingSession: CloudKitSession {
    let inner: any CloudKitSession
    let losing: Int
    private let counts = Locked((calls: 0, lost: 0))

    init(_ inner: any CloudKitSession, losing: Int) {
        self.inner = inner
        self.losing = losing
    }

    var lost: Int { counts.withLock { $0.lost } }

    func perform<Value: Sendable>(
        _ call: (CloudKitWebAuthToken) async throws(CloudKitError) -> CloudKitResponse<Value>
    ) async throws(CloudKitError) -> Value {
        let number = counts.withLock { counts -> Int in
            counts.calls += 1
            return counts.calls
        }
        let value = try await inner.perform(call)
        guard number == losing else { return value }
        counts.withLock { $0.lost += 1 }
        throw CloudKitError(.unavailable, reason: "timed out")
    }
}
