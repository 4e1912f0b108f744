import Foundation
import RelayHTTP
import RelayJSON
import RelayStore
import Testing

@testable import RelayOAuth

/// Registrations from an address that keeps sending new metadata past its budget are refused from
/// the head alone (`RegistrationShedding`): the same 429 as before, without reading the body or
/// touching the store; an address that merely reached its budget still has its known metadata
/// answered; the next window starts afresh.
struct RegistrationSheddingTests {
    static func budget(_ configuration: inout OAuthConfiguration) {
        configuration.registrationRateLimit = .init(requests: 2, window: .seconds(3600))
    }

    static func register(_ h: OAuthHarness, _ name: String) async throws -> TestResponse {
        try await h.client.postJSON("/register", SharedRegistrationTests.selfRegisteredClient(name))
    }

    static func limitEvents(_ h: OAuthHarness) -> Int {
        h.recordedEvents.filter { $0 == .limitReached(limit: .registrationsPerAddress) }.count
    }

    @Test func anAddressRefusedAsOftenAsItsBudgetIsRefusedBeforeItsBodyIsRead() async throws {
        try await withHarness(configure: Self.budget) { h in
            #expect(try await Self.register(h, "Platform").status == 201)
            #expect(try await Self.register(h, "New 1").status == 201)
            // Over the budget, refused through the whole path: the platform's metadata still works.
            let first = try await Self.register(h, "New 2")
            #expect(first.status == 429)
            #expect(!h.oauth.shedsRegistration(Self.request(from: "127.0.0.1")))
            #expect(try await Self.register(h, "Platform").status == 201, "an address at its budget is not shed")
            #expect(try await Self.register(h, "New 3").status == 429)
            // Refused as often as its budget: shed. Everything from it is now answered 429 with the
            // same body and Retry-After, a body that is not even JSON included, and nothing is read
            // from or written to the store.
            #expect(h.oauth.shedsRegistration(Self.request(from: "127.0.0.1")))
            #expect(!h.oauth.shedsRegistration(Self.request(from: "127.0.0.1", method: .get)))
            #expect(!h.oauth.shedsRegistration(Self.request(from: "127.0.0.1", path: "/token")))
            #expect(!h.oauth.shedsRegistration(Self.request(from: "198.51.100.9")), "another address")
            let items = try await h.store.scan(pkPrefix: "", cursor: nil, limit: 1000).items
            let events = Self.limitEvents(h)
            for body in [SharedRegistrationTests.publicClient("Platform"), "not json at all", ""] {
                let shed = try await h.client.postJSON("/register", body)
                #expect(shed.status == 429, "\(shed.text)")
                #expect(shed.text == first.text, "the same body as a refusal through the whole path")
                let wait = try #require(shed.header("retry-after").flatMap(Int.init))
                #expect(wait > 0 && wait <= 3600)
                #expect(shed.header("access-control-allow-origin") == "*")
            }
            // The relay's responder answers them without a task; other addresses go on to the routes.
            let wrapped = h.oauth.sheddingRegistrations(Responder { _ in .now(.text("routes")) })
            guard case .now(let quick) = wrapped(Self.request(from: "127.0.0.1")) else {
                Issue.record("a shed registration was given a task")
                return
            }
            #expect(quick.status == .tooManyRequests)
            #expect(String(decoding: quick.body, as: UTF8.self) == first.text)
            #expect(quick.headers["retry-after"] != nil && quick.headers["access-control-allow-origin"] == "*")
            guard case .now(let other) = wrapped(Self.request(from: "198.51.100.9")) else { return }
            #expect(String(decoding: other.body, as: UTF8.self) == "routes")
            #expect(Self.limitEvents(h) == events + 4, "each shed registration is counted as a refusal")
            let after = try await h.store.scan(pkPrefix: "", cursor: nil, limit: 1000).items
            #expect(after.map(\.pk) == items.map(\.pk))
            #expect(after.map(\.version) == items.map(\.version), "no counter moved")
            // The next window starts afresh.
            h.clock.advance(by: 3600)
            #expect(!h.oauth.shedsRegistration(Self.request(from: "127.0.0.1")))
            #expect(try await Self.register(h, "Platform").status == 201)
            #expect(try await Self.register(h, "New 4").status == 201)
        }
    }

    @Test func theSheddingTableIsBounded() {
        func block(_ text: String) -> AddressBlock { IPAddress(text)!.block }
        let table = RegistrationShedding(threshold: 1, capacity: 10)
        for n in 0..<10 { table.refused(block("192.0.2.\(n)"), wait: 100, now: 0) }
        #expect(table.count == 10)
        #expect(table.wait(block("192.0.2.3"), now: 50) == 50)
        // An IPv6 client is its /64.
        table.refused(block("2001:db8:1:2::1"), wait: 100, now: 0)
        #expect(table.wait(block("2001:db8:1:2::99"), now: 50) == 50)
        #expect(table.count == 1, "full of live windows: the table started afresh rather than grow")
        #expect(table.wait(block("192.0.2.3"), now: 50) == nil)
        // Ended windows are forgotten when asked about.
        #expect(table.wait(block("2001:db8:1:2::1"), now: 150) == nil)
        #expect(table.count == 0)
    }

    @Test func aRequestWhoseBodyWasDroppedIsNeverRegistered() async throws {
        try await withHarness { h in
            // The server dropped the body because the address was shed at its head, and the window
            // ended before the handler ran: refused, with a short wait, never parsed as empty JSON.
            var request = Self.request(from: "127.0.0.1")
            request.bodyDropped = true
            #expect(h.oauth.registrationShedWait(request) == 1)
            request.bodyDropped = false
            #expect(h.oauth.registrationShedWait(request) == nil)
        }
    }

    static func request(from address: String, method: HTTPMethod = .post, path: String = "/register") -> Request {
        Request(
            method: method, target: path, headers: ["content-type": "application/json"],
            origin: RequestOrigin(peer: IPAddress(address)))
    }
}
