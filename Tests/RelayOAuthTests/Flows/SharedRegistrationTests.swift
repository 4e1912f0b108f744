import Foundation
import RelayJSON
import RelayStore
import Testing

@testable import RelayOAuth

/// Registration from shared addresses (a platform registering for each of its users from its
/// own servers) and the limits that hold across instances: registrations of one client's
/// metadata share one record and never count; new metadata counts per address and against the
/// cap on unused clients; failed `/token` requests count per address; two servers on one store
/// count together.
struct SharedRegistrationTests {
    static let chatGPT = """
        {"client_name":"ChatGPT","redirect_uris":["https://chatgpt.com/connector/oauth/c7Hq2bX9rTzA"],\
        "grant_types":["authorization_code","refresh_token"],"response_types":["code"],\
        "token_endpoint_auth_method":"client_secret_post"}
        """

    static func publicClient(_ name: String) -> String {
        #"{"client_name":"\#(name)","redirect_uris":["https://claude.ai/api/mcp/auth_callback"],"token_endpoint_auth_method":"none"}"#
    }

    /// A self-registered client: its redirect is no known platform's, so new metadata counts
    /// against the address's budget (issue 41: a known platform's registrations never do).
    static func selfRegisteredClient(_ name: String) -> String {
        #"{"client_name":"\#(name)","redirect_uris":["https://librechat.example.org/api/mcp/mustdo/oauth/callback"],"token_endpoint_auth_method":"none"}"#
    }

    static func clientItems(_ store: any Store) async throws -> Int {
        try await store.scan(pkPrefix: "CLIENT#", cursor: nil, limit: 1000).items.count
    }

    @Test func identicalPublicRegistrationsShareOneClientAndNeverCount() async throws {
        let settings: (inout OAuthConfiguration) -> Void = {
            $0.registrationRateLimit = .init(requests: 2, window: .seconds(3600))
        }
        try await withHarness(configure: settings) { h in
            var ids = Set<String>()
            for _ in 0..<50 {
                let response = try await h.client.postJSON("/register", Self.publicClient("Platform"))
                #expect(response.status == 201, "\(response.text)")
                ids.insert(try #require(try JSONValue(parsing: response.body)["client_id"]?.stringValue))
            }
            #expect(ids.count == 1, "identical public registrations get one client ID")
            #expect(try await Self.clientItems(h.store) == 1)
            // New self-registered metadata counts (the platform's, a known callback, never did):
            // the budget of 2, then 429.
            #expect(try await h.client.postJSON("/register", Self.selfRegisteredClient("Other 1")).status == 201)
            #expect(try await h.client.postJSON("/register", Self.selfRegisteredClient("Other 2")).status == 201)
            let limited = try await h.client.postJSON("/register", Self.selfRegisteredClient("Other 3"))
            #expect(limited.status == 429)
            #expect(limited.header("retry-after") != nil)
            #expect(h.recordedEvents.contains(.limitReached(limit: .registrationsPerAddress)))
            // The platform is never refused, even with the address's budget spent: neither its
            // stored metadata nor new metadata on a known platform's callback (issue 41).
            #expect(try await h.client.postJSON("/register", Self.publicClient("Platform")).status == 201)
            #expect(try await h.client.postJSON("/register", Self.publicClient("Platform 2")).status == 201)
            // Metadata that differs in any kept member is another client.
            let other = try await h.client.postJSON(
                "/register",
                #"{"client_name":"Other 1","redirect_uris":["https://librechat.example.org/api/mcp/mustdo/oauth/callback"],"token_endpoint_auth_method":"none","scope":"todos:read"}"#
            )
            #expect(other.status == 429, "a different scope is new metadata")
        }
    }

    @Test func confidentialRegistrationsShareARecordButGetTheirOwnIDAndSecret() async throws {
        try await withHarness { h in
            var answers: [(id: String, secret: String)] = []
            for _ in 0..<3 {
                let response = try await h.client.postJSON("/register", Self.chatGPT)
                #expect(response.status == 201, "\(response.text)")
                let json = try JSONValue(parsing: response.body)
                answers.append(
                    (try #require(json["client_id"]?.stringValue), try #require(json["client_secret"]?.stringValue)))
            }
            #expect(Set(answers.map(\.id)).count == 3, "RFC 7591 §3.2.1: a secret is unique per client ID")
            #expect(Set(answers.map(\.secret)).count == 3)
            #expect(try await Self.clientItems(h.store) == 1, "one record for the three")
            let record = String(answers[0].id.prefix { $0 != "." })
            let item = try #require(try await h.store.get(OAuthKeys.client(record)))
            #expect(item.attributes["secret"] == nil, "no secret is stored for derived secrets")
            for answer in answers {
                #expect(!JSONValue.object(item.attributes).jsonString.contains(answer.secret))
            }
            // Each secret authenticates its own ID only (a bad code is invalid_grant, 400; a bad
            // client is invalid_client, 401).
            func token(_ id: String, _ secret: String) async throws -> Int {
                try await h.client.postForm(
                    "/token",
                    [
                        ("grant_type", "authorization_code"), ("code", "mdr_ac_nothing"), ("code_verifier", "v"),
                        ("client_id", id), ("client_secret", secret),
                    ]
                ).status
            }
            #expect(try await token(answers[0].id, answers[0].secret) == 400)
            #expect(try await token(answers[1].id, answers[1].secret) == 400)
            #expect(try await token(answers[0].id, answers[1].secret) == 401)
            #expect(try await token(record, answers[0].secret) == 401, "the bare record ID is no client")
            #expect(try await token(record + ".AAAAAAAAAAAAAAAAAAAAAA", answers[0].secret) == 401)
        }
    }

    @Test func aConfidentialRegistrationConnectsWithItsDerivedSecret() async throws {
        try await withHarness { h in
            let response = try await h.client.postJSON("/register", Self.chatGPT)
            let json = try JSONValue(parsing: response.body)
            let id = try #require(json["client_id"]?.stringValue)
            let secret = try #require(json["client_secret"]?.stringValue)
            let redirect = "https://chatgpt.com/connector/oauth/c7Hq2bX9rTzA"
            let verifier = OAuthHarness.newVerifier()
            let code = try await h.code(clientID: id, verifier: verifier, redirectURI: redirect)
            let tokens = try await h.exchange(
                code: code, verifier: verifier, clientID: id, redirectURI: redirect, extra: [("client_secret", secret)])
            #expect(tokens.status == 200, "\(tokens.text)")
            // The record is kept for good once used; another registration still shares it.
            let record = String(id.prefix { $0 != "." })
            #expect(try #require(try await h.store.get(OAuthKeys.client(record))).expiresAt == nil)
            #expect(try await h.client.postJSON("/register", Self.chatGPT).status == 201)
            #expect(try await Self.clientItems(h.store) == 1)
        }
    }

    /// Issue 41 changed this: past the day's share a new client is accepted and the oldest unused
    /// client is evicted, instead of 503 until the next UTC day (which let junk freeze
    /// registration for everyone). Storage stays bounded; used clients are never evicted.
    @Test func theCapOnUnusedClientsEvictsTheOldestUnusedAndNeverRefuses() async throws {
        // 30-day unused clients: a day's share is maximum / 31 = 2.
        let settings: (inout OAuthConfiguration) -> Void = { $0.maximumUnusedClients = 62 }
        try await withHarness(configure: settings) { h in
            let first = try await h.client.postJSON("/register", Self.publicClient("A"))
            #expect(first.status == 201)
            h.clock.advance(by: 1)
            let second = try await h.client.postJSON("/register", Self.publicClient("B"))
            #expect(second.status == 201)
            h.clock.advance(by: 1)
            let third = try await h.client.postJSON("/register", Self.publicClient("C"))
            #expect(third.status == 201, "\(third.text)")
            #expect(h.recordedEvents.contains(.unusedClientEvicted(.own)), "one address: it gave up its own")
            #expect(!h.recordedEvents.contains(.limitReached(limit: .unusedClients)))
            #expect(try await Self.clientItems(h.store) == 2, "A, the oldest unused, was evicted")
            let a = try #require(try JSONValue(parsing: first.body)["client_id"]?.stringValue)
            #expect(try await h.store.get(OAuthKeys.client(a)) == nil)
            // A used client is never evicted: B connects, then D and E arrive.
            let b = try #require(try JSONValue(parsing: second.body)["client_id"]?.stringValue)
            _ = try await h.connect(clientID: b)
            h.clock.advance(by: 1)
            #expect(try await h.client.postJSON("/register", Self.publicClient("D")).status == 201)
            h.clock.advance(by: 1)
            #expect(try await h.client.postJSON("/register", Self.publicClient("E")).status == 201)
            #expect(try await h.store.get(OAuthKeys.client(b)) != nil)
            #expect(try await Self.clientItems(h.store) == 3, "B (used) and the two newest unused")
            // A flood: 40 more, and storage stays at the share plus the used one.
            for index in 0..<40 {
                h.clock.advance(by: 1)
                #expect(try await h.client.postJSON("/register", Self.publicClient("junk \(index)")).status == 201)
            }
            #expect(try await Self.clientItems(h.store) == 3)
        }
    }

    /// Issue 41: 25 distinct registrations from one address (Copilot Studio's per-connector
    /// callbacks; an office of native clients behind one NAT) are all answered 201 by default.
    @Test func twentyFiveDistinctRegistrationsFromOneAddressAreNotRefused() async throws {
        try await withHarness { h in
            for index in 0..<25 {
                let copilot = try await h.client.postJSON(
                    "/register",
                    #"{"redirect_uris":["https://global.consent.azure-apim.net/redirect/cr938-connector-\#(index)"],"token_endpoint_auth_method":"client_secret_post"}"#
                )
                #expect(copilot.status == 201, "connector \(index): \(copilot.text)")
                let native = try await h.client.postJSON(
                    "/register",
                    #"{"client_name":"Claude Code (\#(index))","redirect_uris":["http://localhost:\#(40000 + index)/callback"],"token_endpoint_auth_method":"none"}"#
                )
                #expect(native.status == 201, "person \(index): \(native.text)")
            }
        }
    }

    @Test func failedTokenRequestsPerAddressAreLimitedAndSuccessesNeverCount() async throws {
        let settings: (inout OAuthConfiguration) -> Void = {
            $0.tokenFailureLimit = .init(requests: 3, window: .seconds(60))
        }
        try await withHarness(configure: settings) { h in
            let tokens = try await h.connect()
            var refresh = try #require(tokens.refreshToken)
            for _ in 0..<6 {
                let refreshed = try await h.refresh(refresh, clientID: tokens.clientID)
                #expect(refreshed.status == 200, "\(refreshed.text)")
                refresh = try #require(try Tokens(refreshed, clientID: tokens.clientID).refreshToken)
            }
            let bad: [(String, String)] = [
                ("grant_type", "refresh_token"), ("refresh_token", "x"), ("client_id", "no-such-client"),
            ]
            for _ in 0..<3 { #expect(try await h.client.postForm("/token", bad).status == 401) }
            let limited = try await h.client.postForm("/token", bad)
            #expect(limited.status == 429, "the fourth failure in the window is answered 429")
            #expect(limited.header("retry-after") != nil)
            #expect(try await h.client.postForm("/revoke", bad).status == 429, "/revoke shares the budget")
            h.clock.advance(by: 60)
            #expect(try await h.client.postForm("/token", bad).status == 401, "a new window")
        }
    }

    @Test func twoServersOnOneStoreCountTogether() async throws {
        let settings: (inout OAuthConfiguration) -> Void = {
            $0.registrationRateLimit = .init(requests: 4, window: .seconds(3600))
            $0.tokenFailureLimit = .init(requests: 4, window: .seconds(60))
            $0.pageRateLimit = .init(requests: 3, window: .seconds(600))
        }
        let a = try await OAuthHarness.start(configure: settings)
        let b = try await OAuthHarness.start(secrets: a.secrets, directory: a.directory, configure: settings)
        b.clock.set(to: a.clock.now())
        do {
            try await Self.countTogether(a, b)
        } catch {
            await b.stop(removeFiles: false)
            await a.stop()
            throw error
        }
        await b.stop(removeFiles: false)
        await a.stop()
    }

    static func countTogether(_ a: OAuthHarness, _ b: OAuthHarness) async throws {
        let servers = [a, b]
        for n in 0..<4 {
            let response = try await servers[n % 2].client.postJSON("/register", selfRegisteredClient("new \(n)"))
            #expect(response.status == 201)
        }
        for server in servers {
            #expect(try await server.client.postJSON("/register", selfRegisteredClient("fifth")).status == 429)
            #expect(try await server.client.postJSON("/register", selfRegisteredClient("new 0")).status == 201)
        }
        let bad: [(String, String)] = [("grant_type", "refresh_token"), ("refresh_token", "x"), ("client_id", "x")]
        for n in 0..<4 { #expect(try await servers[n % 2].client.postForm("/token", bad).status == 401) }
        for server in servers { #expect(try await server.client.postForm("/token", bad).status == 429) }
        // Pages that store a pending request: three in all, wherever they are shown.
        for n in 0..<3 { #expect(try await servers[n % 2].client.get("/disconnect").status == 200) }
        for server in servers { #expect(try await server.client.get("/disconnect").status == 429) }
        // No address is stored: counters are keyed by a keyed hash of it.
        let counters = try await a.store.scan(pkPrefix: "LIMIT#", cursor: nil, limit: 1000).items
        #expect(!counters.isEmpty)
        #expect(counters.allSatisfy { !$0.pk.contains("127.0.0.1") && $0.attributes.members.isEmpty })
        #expect(counters.allSatisfy { $0.expiresAt != nil })
    }
}
