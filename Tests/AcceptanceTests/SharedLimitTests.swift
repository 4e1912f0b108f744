import Foundation
import RelayHTTP
import RelayJSON
import Testing

/// The limits that protect shared resources hold across instances: two `mustdo-relay serve`
/// processes on one DynamoDB table (moto) count new clients per address, unused clients, and
/// failed `/token` requests per address together, so two instances allow what one does. The test
/// proxy at 127.0.0.1 is trusted, so each request names its client address in `X-Forwarded-For`.
extension AcceptanceSuite {
    @Suite(.timeLimit(.minutes(10))) struct SharedLimitTests {
        /// The test proxy at 127.0.0.1 is trusted; `settings` may override that.
        private func pair(_ settings: [String: String]) async throws -> TwoInstances {
            try await TwoInstances.start(
                settings: settings.merging(["RELAY_TRUSTED_PROXIES": "127.0.0.1"]) { own, _ in own },
                timeout: .seconds(60))
        }

        @Test func testNewClientsPerAddressAreCountedOnBothInstancesTogether() async throws {
            let p = try await pair(["RELAY_OAUTH_REGISTRATIONS_PER_HOUR": "4"])
            defer { p.remove() }
            try await Self.awaitRoom(inWindowOf: 3600, seconds: 120)
            // Four new clients from one address, alternating instances: all stored.
            var ids: [String] = []
            for n in 0..<4 {
                let answer = try await Self.register(
                    p.http, name: "new \(n)", from: "198.51.100.7", at: p.both[n % 2].base)
                #expect(answer.status == 201, "registration \(n): \(answer.text)")
                ids.append(answer.clientID ?? "")
            }
            // The fifth is refused wherever it lands: one instance's four were not "its own".
            for instance in p.both {
                let refused = try await Self.register(
                    p.http, name: "one too many", from: "198.51.100.7", at: instance.base)
                #expect(refused.status == 429, "\(refused.text)")
                #expect(refused.headers["retry-after"] != nil)
            }
            // A registration of metadata already stored reuses that client on either instance, uncounted:
            // one store read.
            let beforeReuse = try await Self.storeOperations(p)
            for instance in p.both {
                let again = try await Self.register(p.http, name: "new 0", from: "198.51.100.7", at: instance.base)
                #expect(again.status == 201, "\(again.text)")
                #expect(again.clientID == ids[0], "identical public registrations share one client")
            }
            let reuse = try await Self.storeOperations(p) - beforeReuse
            #expect(reuse == 2, "two reused registrations, one read each")
            // Another address has its own budget. A new client costs: its lookup (1 read), the
            // address's counter (1 write; 2 for its window's first), the day's counters (1 write,
            // 2 reads, and since issue 41 a third), the record (1 write) and, since issue 41, its entries in the two indexes of
            // unused clients that eviction reads (2 writes: by time, by owner) and its owner's count
            // of new clients this hour (1 write; 2 for its window's first).
            let beforeNew = try await Self.storeOperations(p)
            let other = try await Self.register(p.http, name: "elsewhere", from: "198.51.100.8", at: p.b.base)
            #expect(other.status == 201, "\(other.text)")
            let new = try await Self.storeOperations(p) - beforeNew
            #expect(new <= 12)
            print("store operations: a reused registration \(reuse / 2), a new client \(new) (a new address's first)")
            let refusals = try await Self.sum(
                p, #"relay_oauth_limit_refusals_total{limit="registrations_per_address"}"#)
            #expect(refusals == 2)

            // An address that keeps sending new metadata is shed: once instance a has refused it as
            // often as its budget (4), a answers every registration from it 429 from the head alone,
            // known metadata and a body that is not JSON included, with no store operation; b, which
            // refused it once, still answers its known metadata.
            for n in 0..<3 {
                let refused = try await Self.register(p.http, name: "more \(n)", from: "198.51.100.7", at: p.a.base)
                #expect(refused.status == 429, "\(refused.text)")
            }
            let beforeShed = try await Self.storeOperations(p)
            let shed = try await Self.register(p.http, name: "new 0", from: "198.51.100.7", at: p.a.base)
            #expect(shed.status == 429, "\(shed.text)")
            #expect(shed.headers["retry-after"] != nil)
            #expect(shed.headers["access-control-allow-origin"] == "*")
            let notJSON = try await Self.send(
                ClientRequest(
                    method: .post, url: p.a.base + "/register",
                    headers: ["Content-Type": "application/json", "X-Forwarded-For": "198.51.100.7"],
                    body: Array(repeating: UInt8(ascii: "x"), count: 200_000)), p.http)
            #expect(notJSON.status == 429, "the body of a shed registration is never parsed")
            let shedOperations = try await Self.storeOperations(p) - beforeShed
            #expect(shedOperations == 0, "a shed registration cost store operations")
            let known = try await Self.register(p.http, name: "new 0", from: "198.51.100.7", at: p.b.base)
            #expect(known.status == 201, "\(known.text)")
            let allRefusals = try await Self.sum(
                p, #"relay_oauth_limit_refusals_total{limit="registrations_per_address"}"#)
            #expect(allRefusals == 7)
        }

        /// Issue 41 changed this: past the day's share a new client is no longer refused with 503
        /// until the next day; the oldest unused client is evicted instead, on either instance.
        @Test func testTheCapOnUnusedClientsHoldsAcrossInstancesAndAddresses() async throws {
            // An unused client lives an hour, so a day's share is half the cap: 50 of 100.
            let p = try await pair([
                "RELAY_OAUTH_REGISTRATIONS_PER_HOUR": "5", "RELAY_OAUTH_MAX_UNUSED_CLIENTS": "100",
                "RELAY_OAUTH_UNUSED_CLIENT_TTL": "3600",
            ])
            defer { p.remove() }
            try await Self.awaitRoom(inWindowOf: 86400, seconds: 300)
            var ids: [String] = []
            // 12 addresses × 5 new clients, spread over both instances: 60 tries for a share of 50.
            for n in 0..<60 {
                let answer = try await Self.register(
                    p.http, name: "flood \(n)", from: "203.0.113.\(n / 5 + 1)", at: p.both[n % 2].base)
                #expect(answer.status == 201, "registration \(n): \(answer.status) \(answer.text)")
                if let id = answer.clientID { ids.append(id) }
            }
            #expect(ids.count == 60, "nobody is refused for the flood")
            // The 10 past the share each evicted one of the oldest: each instance's metric counts its own.
            var evictions = 0.0
            for tier in ["own", "stale", "repeat_owner", "oldest"] {
                evictions += try await Self.sum(p, #"relay_oauth_unused_clients_evicted_total{tier="\#(tier)"}"#)
            }
            #expect(evictions == 10)
            // Issue 41: an address past the share gives up its own oldest; the first clients of the
            // last two addresses (50 and 55) had none, and took one of an address that registered
            // several this hour.
            let own = try await Self.sum(p, #"relay_oauth_unused_clients_evicted_total{tier="own"}"#)
            #expect(own == 8)
            let repeatOwners = try await Self.sum(p, #"relay_oauth_unused_clients_evicted_total{tier="repeat_owner"}"#)
            #expect(repeatOwners == 2)
            let refused = try await Self.sum(p, #"relay_oauth_limit_refusals_total{limit="unused_clients"}"#)
            #expect(refused == 0)
            // The newest registration is still there (its metadata is reused, not made again).
            let newest = try await Self.register(p.http, name: "flood 59", from: "203.0.113.12", at: p.a.base)
            #expect(newest.clientID == ids.last)
        }

        @Test func testFailedTokenRequestsPerAddressAreCountedOnBothInstancesTogether() async throws {
            let p = try await pair(["RELAY_OAUTH_TOKEN_FAILURES_PER_MINUTE": "6"])
            defer { p.remove() }
            try await Self.awaitRoom(inWindowOf: 60, seconds: 30)
            let storeBefore = try await Self.storeOperations(p)
            for n in 0..<6 {
                let answer = try await Self.badToken(p.http, from: "192.0.2.44", at: p.both[n % 2].base)
                #expect(answer.status == 401, "failure \(n): \(answer.text)")
            }
            let counted = try await Self.storeOperations(p) - storeBefore
            for instance in p.both {
                let refused = try await Self.badToken(p.http, from: "192.0.2.44", at: instance.base)
                #expect(refused.status == 429, "\(refused.text)")
                #expect(refused.headers["retry-after"] != nil)
            }
            let afterRefusals = try await Self.storeOperations(p)
            // Once an instance has seen the address over its budget it refuses without the store.
            for instance in p.both {
                let refused = try await Self.badToken(p.http, from: "192.0.2.44", at: instance.base)
                #expect(refused.status == 429, "\(refused.text)")
            }
            let known = try await Self.storeOperations(p) - afterRefusals
            #expect(known == 0, "a refusal this instance already knows about cost store operations")
            // Each failure costs its own lookup (one read) and one counter write, two for a window's first.
            #expect(counted <= 6 * 2 + 1, "store operations for six counted failures")
            print("store operations for 6 failed /token requests counted across two instances: \(counted)")
            let other = try await Self.badToken(p.http, from: "192.0.2.45", at: p.a.base)
            #expect(other.status == 401, "another address has its own budget")
        }
    }
}

extension AcceptanceSuite.SharedLimitTests {
    struct Answer {
        var status: Int
        var headers: HTTPHeaders
        var text: String
        var clientID: String? { (try? JSONValue(parsing: Array(text.utf8)))?["client_id"]?.stringValue }
    }

    static func register(_ http: HTTPClient, name: String, from address: String, at base: String) async throws -> Answer
    {
        let body: JSONValue = [
            "client_name": .string(name), "redirect_uris": ["http://127.0.0.1:9/callback"],
            "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        ]
        return try await send(
            ClientRequest(
                method: .post, url: base + "/register",
                headers: ["Content-Type": "application/json", "X-Forwarded-For": address], body: body.bytes), http)
    }

    /// A refresh grant for a client that does not exist: 401 `invalid_client`, a counted failure.
    static func badToken(_ http: HTTPClient, from address: String, at base: String) async throws -> Answer {
        let form = FormDecoding.encode([
            ("grant_type", "refresh_token"), ("refresh_token", "mdr_rt_nothing"), ("client_id", "no-such-client"),
        ])
        return try await send(
            ClientRequest(
                method: .post, url: base + "/token",
                headers: ["Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": address],
                body: Array(form.utf8)), http)
    }

    static func send(_ request: ClientRequest, _ http: HTTPClient) async throws -> Answer {
        let response = try await http.send(request)
        return Answer(status: response.status, headers: response.headers, text: response.text)
    }

    /// Store operations both instances have made (every operation kind).
    static func storeOperations(_ p: TwoInstances) async throws -> Double {
        var total = 0.0
        for operation in ["get", "put", "update", "delete", "query", "scan"] {
            total += try await sum(p, #"relay_store_operation_duration_seconds_count{operation="\#(operation)"}"#)
        }
        return total
    }

    static func sum(_ p: TwoInstances, _ series: String) async throws -> Double {
        var total = 0.0
        for instance in p.both { total += try await instance.metric(series) }
        return total
    }

    /// Waits, when needed, until the current fixed window (of `length` seconds since the epoch)
    /// has at least `seconds` left, so a scenario's counts all fall in one window.
    static func awaitRoom(inWindowOf length: Int, seconds: Int) async throws {
        let now = Int(Date().timeIntervalSince1970)
        let left = length - now % length
        if left < seconds { try await Task.sleep(for: .seconds(left + 1)) }
    }
}
