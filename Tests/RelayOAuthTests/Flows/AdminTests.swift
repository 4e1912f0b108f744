import Foundation
import RelayStore
import Testing

@testable import RelayOAuth

/// The operator's API over records the real flows wrote: lists and counts, revocation paths that
/// the disconnect page does not cover (a grant missing from its user's index), the purge rules,
/// and store failures that say what failed.
struct AdminTests {
    @Test func listsAndCountsWhatTheFlowsStored() async throws {
        try await withHarness(memory: true) { h in
            _ = try await h.connect(appleID: "alice@example.com")
            _ = try await h.connect(appleID: "alice@example.com")
            let bob = try await h.connect(appleID: "bob@example.com")
            let unused = try await h.register()
            let admin = OAuthAdmin(store: h.store, clock: h.clock)
            let clients = try await admin.clients()
            #expect(clients.count == 4)
            #expect(clients.filter { $0.lastUsedAt != nil }.count == 3)
            #expect(clients.first { $0.id == unused.id }?.expiresAt != nil, "an unused registration expires")
            #expect(clients.allSatisfy { $0.source == "dcr" && $0.name?.hasPrefix("Test Client") == true })
            let grants = try await admin.grants()
            #expect(grants.count == 3)
            #expect(grants.allSatisfy { $0.state == "active" && $0.scopes == ["todos:read", "todos:write"] })
            let aliceID = h.oauth.userID(recordName: h.signIn.recordName(for: "alice@example.com"))
            #expect(try await admin.grants(userID: aliceID).count == 2)
            #expect(try await admin.grant(try #require(grants.first { $0.clientID == bob.clientID }).id) != nil)
            let counts = try await admin.statistics()
            #expect(counts["CLIENT"] == 4 && counts["GRANT"] == 3 && counts["TOKEN"] == 3 && counts["REFRESH"] == 3)
            #expect(counts["USER"] == 3 && counts["GRANT_INDEX"] == 6 && counts["CODE"] == 3 && counts["OTHER"] == 0)
            #expect(Set(counts.keys) == Set(OAuthAdmin.itemKinds))
            #expect(try await h.oauth.admin.activeGrantCount() == 3)
            h.clock.advance(by: Double(h.oauth.configuration.lifetimes.grant.components.seconds + 1))
            #expect(try await admin.activeGrantCount() == 0, "ended grants are not active")
        }
    }

    @Test func theUserIDIsTheHMACTheServerComputes() async throws {
        try await withHarness(memory: true) { h in
            let name = h.signIn.recordName(for: "carol@example.com")
            #expect(
                OAuthAdmin.userID(recordName: name, userIDKey: h.secrets.userIDKey) == h.oauth.userID(recordName: name))
            _ = try await h.connect(appleID: "carol@example.com")
            let stored = try await h.oauth.admin.grants().map(\.userID)
            #expect(stored == [OAuthAdmin.userID(recordName: name, userIDKey: h.secrets.userIDKey)])
        }
    }

    @Test func disconnectAlsoFindsAGrantMissingFromTheUserIndex() async throws {
        try await withHarness(memory: true) { h in
            let first = try await h.connect(appleID: "alice@example.com")
            let second = try await h.connect(appleID: "alice@example.com")
            let bob = try await h.connect(appleID: "bob@example.com")
            let admin = OAuthAdmin(store: h.store, clock: h.clock)
            let aliceID = h.oauth.userID(recordName: h.signIn.recordName(for: "alice@example.com"))
            let lost = try #require(try await admin.grants(userID: aliceID).first)
            _ = try await h.store.delete(ItemKey(pk: "USER#" + aliceID, sk: "GRANT#" + lost.id))
            #expect(try await admin.grants(userID: aliceID).count == 1)
            #expect(try await admin.disconnect(userID: aliceID) == 2)
            #expect(try await h.mcp(first.accessToken).status == 401)
            #expect(try await h.mcp(second.accessToken).status == 401)
            #expect(try await h.mcp(bob.accessToken).status == 200)
            let counts = try await admin.statistics()
            #expect(counts["GRANT"] == 1 && counts["TOKEN"] == 1 && counts["USER"] == 1 && counts["GRANT_INDEX"] == 2)
        }
    }

    @Test func deletingAClientRevokesItsGrantsOnly() async throws {
        try await withHarness(memory: true) { h in
            let client = try await h.register()
            let one = try await h.connect(appleID: "alice@example.com", clientID: client.id)
            let two = try await h.connect(appleID: "bob@example.com", clientID: client.id)
            let other = try await h.connect(appleID: "alice@example.com")
            let admin = OAuthAdmin(store: h.store, clock: h.clock)
            let deletion = try await admin.deleteClient(client.id)
            #expect(deletion == ClientDeletion(clientDeleted: true, grantsRevoked: 2))
            #expect(try await admin.client(client.id) == nil)
            #expect(try await h.mcp(one.accessToken).status == 401)
            #expect(try await h.mcp(two.accessToken).status == 401)
            #expect(try await h.mcp(other.accessToken).status == 200)
            #expect(try await admin.deleteClient(client.id) == ClientDeletion(clientDeleted: false, grantsRevoked: 0))
            #expect(try await admin.revokeGrant("no#such") == false)
        }
    }

    @Test func purgeDeletesOnlyOldClientsThatNeverConnectedAnyoneAndHoldNoGrant() async throws {
        try await withHarness(memory: true) { h in
            let unused = try await h.register()
            let used = try await h.connect().clientID
            // A client in the middle of connecting: its code is out, its grant pending.
            let midway = try await h.register()
            _ = try await h.code(clientID: midway.id, verifier: OAuthHarness.newVerifier())
            let admin = OAuthAdmin(store: h.store, clock: h.clock)
            #expect(try await admin.unusedClients(registeredBefore: h.clock.epochSeconds()).isEmpty, "none is old yet")
            h.clock.advance(by: 10)
            let cutoff = h.clock.epochSeconds()
            #expect(try await admin.unusedClients(registeredBefore: cutoff).map(\.id) == [unused.id])
            #expect(try await admin.purgeUnusedClients(registeredBefore: cutoff) == 1)
            #expect(Set(try await admin.clients().map(\.id)) == [used, midway.id])
        }
    }

    @Test func aStoreFailureSaysWhatFailed() async throws {
        let h = try await OAuthHarness.start(memory: true, wrap: { FailingStore($0) })
        let tokens = try await h.connect()
        let failing = try #require(h.store as? FailingStore)
        failing.fail(with: .unavailable("disk on fire"))
        let admin = h.oauth.admin
        for attempt in 0..<2 {
            do {
                if attempt == 0 { _ = try await admin.clients() } else { _ = try await admin.revokeGrant("g") }
                Issue.record("no error")
            } catch {
                #expect(error.code == .temporarilyUnavailable)
                #expect(error.detail?.contains("store unavailable: disk on fire") == true, "\(error)")
            }
        }
        failing.fail(with: nil)
        #expect(try await h.mcp(tokens.accessToken).status == 200)
        await h.stop()
    }
}
