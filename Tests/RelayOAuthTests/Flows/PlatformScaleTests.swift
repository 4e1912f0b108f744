import Foundation
import RelayJSON
import RelayStore
import Testing

@testable import RelayOAuth

/// Issue 41, item 5, attacked through the server on a real socket, each client from its own
/// loopback address (127.x): a platform registering thousands of distinct clients from one egress
/// address is never refused, a flood (from one address or from a thousand) never evicts a client
/// another address registered recently, and the unused clients stored stay within the bound.
struct PlatformScaleTests {
    /// Copilot Studio's per-connector registration (SmartBear/smartbear-mcp#463).
    static func copilot(_ connector: String) -> String {
        #"{"redirect_uris":["https://global.consent.azure-apim.net/redirect/\#(connector)"],"token_endpoint_auth_method":"client_secret_post"}"#
    }

    /// A self-registered client (LibreChat's shape on a host of its own).
    static func selfRegistered(_ host: String) -> String {
        #"{"client_name":"LibreChat","redirect_uris":["https://\#(host)/api/mcp/mustdo/oauth/callback"],"token_endpoint_auth_method":"none"}"#
    }

    static func from(_ h: OAuthHarness, _ address: String) -> TestHTTPClient {
        TestHTTPClient(port: h.client.port, source: address)
    }

    static func id(_ response: TestResponse) throws -> String {
        try #require(try JSONValue(parsing: response.body)["client_id"]?.stringValue)
    }

    /// Unused `CLIENT#` records in the store.
    static func unusedClients(_ store: any Store) async throws -> Int {
        var count = 0
        var cursor: ScanCursor?
        repeat {
            let page = try await store.scan(pkPrefix: "CLIENT#", cursor: cursor, limit: 1000)
            count += page.items.filter { $0.attributes["used"] == nil }.count
            cursor = page.next
        } while cursor != nil
        return count
    }

    /// A person's client, registered from `address` (the harness's browser and `/token` come
    /// from 127.0.0.1, as a person's device and their AI client's server would differ).
    static func person(_ h: OAuthHarness, _ address: String, _ name: String) async throws -> String {
        let response = try await from(h, address).postJSON(
            "/register",
            #"{"client_name":"\#(name)","redirect_uris":["https://claude.ai/api/mcp/auth_callback"],"token_endpoint_auth_method":"none"}"#
        )
        #expect(response.status == 201, "\(response.text)")
        return try id(response)
    }

    /// Sends `bodies` from `address(i)` eight at a time; every answer must be 201. Returns the IDs.
    static func register(
        _ h: OAuthHarness, _ count: Int, address: @escaping @Sendable (Int) -> String,
        body: @escaping @Sendable (Int) -> String
    ) async throws -> [String] {
        var ids: [String] = []
        for start in stride(from: 0, to: count, by: 8) {
            let answers = try await withThrowingTaskGroup(of: TestResponse.self) { group in
                for index in start..<min(count, start + 8) {
                    group.addTask { try await from(h, address(index)).postJSON("/register", body(index)) }
                }
                var answers: [TestResponse] = []
                for try await answer in group { answers.append(answer) }
                return answers
            }
            for answer in answers {
                #expect(answer.status == 201, "\(answer.status) \(answer.text)")
                ids.append(try id(answer))
            }
        }
        return ids
    }

    static func evictions(_ h: OAuthHarness, _ tier: EvictionTier) -> Int {
        h.recordedEvents.filter { $0 == .unusedClientEvicted(tier) }.count
    }

    /// 10,000 distinct connectors from one address in an hour, on the default limits (60 new
    /// self-registered clients per address per hour; 100,000 unused clients, 3,225 a day): every
    /// one is 201 with its own ID, a person's client registered meanwhile from another address
    /// still connects, and the store holds no more than the day's share of unused clients.
    @Test func aPlatformRegisteringTenThousandClientsFromOneAddressIsNeverRefused() async throws {
        try await withHarness { h in
            let perDay = 100_000 / 31
            var ids: [String] = []
            var personID = ""
            for batch in 0..<20 {
                ids += try await Self.register(h, 500, address: { _ in "127.0.9.9" }) {
                    Self.copilot("cr938-\(batch)-\($0)")
                }
                // 10,000 within 3,500 seconds.
                h.clock.advance(by: 175)
                if batch == 10 { personID = try await Self.person(h, "127.0.0.2", "Claude") }
            }
            #expect(ids.count == 10000)
            #expect(Set(ids).count == 10000, "each connector has a client ID of its own")
            #expect(!h.recordedEvents.contains(.limitReached(limit: .registrationsPerAddress)))
            #expect(!h.recordedEvents.contains(.limitReached(limit: .unusedClients)))
            // Past the share the platform replaced its own; the person's new client one of the
            // platform's (eight in flight at once may evict one more than needed, never fewer).
            #expect(Self.evictions(h, .own) >= 10000 - perDay)
            #expect(Self.evictions(h, .repeatOwner) == 1)
            #expect(Self.evictions(h, .stale) + Self.evictions(h, .oldest) == 0)
            // The person, registered half an hour ago from another address, connects.
            let tokens = try await h.connect(clientID: personID)
            #expect(try await h.mcp(tokens.accessToken).status == 200)
            let unused = try await Self.unusedClients(h.store)
            #expect(unused <= perDay - 1 && unused >= perDay - 9, "the share, less the person's (used): \(unused)")
            // The platform's newest connectors are all there; its oldest made room.
            let newest = ids.suffix(100).map { String($0.prefix { $0 != "." }) }
            for record in newest { #expect(try await h.store.get(OAuthKeys.client(record)) != nil) }
            #expect(try await h.store.get(OAuthKeys.client(String(ids[0].prefix { $0 != "." }))) == nil)
        }
    }

    /// One address floods: self-registered metadata is refused past its budget and evicts only
    /// its own; platform-shaped metadata (any Copilot connector ID) is never refused and evicts
    /// clients nobody used for an hour before its own, never a fresh one.
    @Test func aFloodFromOneAddressNeverEvictsAnotherAddresssFreshClient() async throws {
        // 100 unused clients a day.
        let settings: (inout OAuthConfiguration) -> Void = {
            $0.maximumUnusedClients = 3100
            $0.registrationRateLimit = .init(requests: 100_000, window: .seconds(3600))
        }
        try await withHarness(configure: settings) { h in
            let stale = try await Self.person(h, "127.0.0.4", "Abandoned two hours ago")
            h.clock.advance(by: 7200)
            let fresh = try await Self.person(h, "127.0.0.2", "Claude")
            h.clock.advance(by: 60)
            // Self-registered junk: the flooder pays with its own clients, even before stale ones.
            _ = try await Self.register(h, 1500, address: { _ in "127.0.6.6" }) {
                Self.selfRegistered("junk-\($0).example")
            }
            #expect(try await h.store.get(OAuthKeys.client(stale)) != nil, "own first: even the stale one stays")
            #expect(Self.evictions(h, .own) >= 1500 + 2 - 100)
            #expect(Self.evictions(h, .stale) + Self.evictions(h, .repeatOwner) + Self.evictions(h, .oldest) == 0)
            let afterOwn = try await Self.unusedClients(h.store)
            #expect(afterOwn <= 100 && afterOwn >= 92, "the day's share: \(afterOwn)")
            // Platform-shaped junk from another address: stale first (the abandoned client), then its own.
            h.clock.advance(by: 60)
            _ = try await Self.register(h, 1500, address: { _ in "127.0.7.7" }) { Self.copilot("junk-\($0)") }
            #expect(try await h.store.get(OAuthKeys.client(stale)) == nil, "an hour unused: evicted before fresh ones")
            #expect(Self.evictions(h, .stale) == 1)
            #expect(!h.recordedEvents.contains(.limitReached(limit: .unusedClients)))
            let afterPlatform = try await Self.unusedClients(h.store)
            #expect(afterPlatform <= 100 && afterPlatform >= 92, "the bound holds: \(afterPlatform)")
            h.clock.advance(by: 600)
            let tokens = try await h.connect(clientID: fresh)
            #expect(try await h.mcp(tokens.accessToken).status == 200, "the fresh client survived both floods")
        }
    }

    /// A thousand addresses flood with the default limits, each within its budget: five
    /// self-registered clients each (5,000, past the day's share of 3,225), then 500 more addresses
    /// once each (no own clients to give up). People who registered before and during the flood
    /// from addresses of their own connect afterwards; the bound holds.
    @Test func aFloodFromAThousandAddressesNeverEvictsAFreshClientOfAnotherAddress() async throws {
        try await withHarness { h in
            let perDay = 100_000 / 31
            let before = try await Self.person(h, "127.0.0.2", "Claude")
            h.clock.advance(by: 30)
            @Sendable func address(_ n: Int) -> String { "127.1.\(n / 250).\(n % 250 + 1)" }
            for round in 0..<5 {
                _ = try await Self.register(h, 1000, address: address) {
                    Self.selfRegistered("r\(round)-\($0).example")
                }
                h.clock.advance(by: 60)
            }
            let during = try await Self.person(h, "127.0.0.3", "ChatGPT")
            _ = try await Self.register(h, 500, address: { address(1000 + $0) }) {
                Self.selfRegistered("w\($0).example")
            }
            #expect(Self.evictions(h, .own) > 0)
            // The person during the flood and the 500 first-time flooders: the repeat flooders paid.
            #expect(Self.evictions(h, .repeatOwner) >= 501)
            #expect(Self.evictions(h, .oldest) == 0)
            let unused = try await Self.unusedClients(h.store)
            #expect(unused <= perDay && unused >= perDay - 8, "the bound holds: \(unused)")
            h.clock.advance(by: 600)
            for clientID in [before, during] {
                let tokens = try await h.connect(clientID: clientID)
                #expect(try await h.mcp(tokens.accessToken).status == 200, "a person's client survived the flood")
            }
        }
    }
}
