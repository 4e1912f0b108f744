import Foundation
import RelayHTTP
import RelayJSON
import RelayStore
import RelaySync
import RelayTestSupport
import Testing

@testable import RelayAWS

/// Hundreds of concurrent signed requests across credential refreshes, over HTTP: credentials from
/// a fake instance metadata service, requests to a service that records the key each one was
/// signed with and when (on the provider's clock). No request may carry a key in its last minute,
/// and each refresh is exactly one call to IMDS.
struct CredentialRefreshLoadTests {
    let clock = ManualClock()
    /// Its own client with a long connect timeout: 300 requests open connections at once to a
    /// server in this process, which a loaded two-core machine can leave unaccepted for seconds.
    let http: HTTPClient

    init() throws {
        http = try HTTPClient(
            configuration: HTTPClientConfiguration(connectTimeout: .seconds(60), timeout: .seconds(60)))
    }

    /// `count` concurrent calls through `client`; the errors of those that failed, each with how
    /// many times it happened (printed when a test fails, so a failure says why).
    func calls(_ client: AWSJSONClient, count: Int) async -> [String: Int] {
        await withTaskGroup(of: String?.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do {
                        _ = try await client.call("GetItem", ["Key": [:]])
                        return nil
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [:]) { if let error = $1 { $0[error, default: 0] += 1 } }
        }
    }

    @Test func noRequestEverSignsWithAnExpiredKeyAndEachRefreshIsOneCall() async throws {
        let imds = try FakeInstanceMetadata(host: "127.0.0.6", clock: clock)
        let service = try RecordingService(clock: clock)
        let events = Locked<[AWSCredentialEvent]>([])
        let (_, provider) = try AWSCredentialChain.resolve(
            environment: ["AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.base], http: http,
            options: AWSCredentialChain.Options(region: "us-east-1", homeDirectory: nil, clock: clock) { event in
                events.withLock { $0.append(event) }
            })
        let refreshing = try #require(provider as? RefreshingCredentialsProvider)
        let client = try AWSJSONClient(
            service: "dynamodb", http: http,
            configuration: AWSConfiguration(
                region: "us-east-1", credentials: provider, endpoint: service.base, requestTimeout: .seconds(120)),
            contentType: "application/x-amz-json-1.0", targetPrefix: "DynamoDB_20120810")

        // Start: every request waits for the one first fetch.
        imds.issuer.closeGate()
        let start = Task { await calls(client, count: 200) }
        try await waitUntil { imds.issuer.fetches == 1 }
        try await Task.sleep(for: .milliseconds(100))
        #expect(service.requests.isEmpty, "nothing is signed before there are credentials")
        imds.issuer.openGate()
        #expect(await start.value == [:])
        #expect(imds.issuer.fetches == 1)

        // Inside the refresh window, with the refresh held at IMDS: every request goes out at once
        // with the current key, and only one refresh is asked for.
        let first = try #require(imds.issuer.issued.first)
        clock.set(to: first.expiration - 600)
        imds.issuer.closeGate()
        #expect(await calls(client, count: 300) == [:])
        #expect(refreshing.fetchCount == 2, "one refresh for 300 requests")
        try await waitUntil { imds.issuer.fetches == 2 }  // the refresh, still held at IMDS
        imds.issuer.openGate()
        try await waitUntil { refreshing.expiration != first.expiration }
        #expect(await calls(client, count: 100) == [:])
        #expect(imds.issuer.fetches == 2)

        // A refresh that fails while the key is still good: requests carry on with it.
        let second = try #require(imds.issuer.issued.dropFirst().first)
        clock.set(to: second.expiration - 300)
        imds.issuer.fail(with: 500)
        #expect(await calls(client, count: 200) == [:])
        try await waitUntil { events.withLock { $0.contains { if case .refreshFailed = $0 { true } else { false } } } }
        #expect(refreshing.fetchCount == 3, "one failed refresh for 200 requests (then a backoff)")

        // Past the last usable minute: all requests wait for the one refresh that succeeds.
        imds.issuer.fail(with: nil)
        imds.issuer.closeGate()
        clock.set(to: second.expiration - 30)
        let seenBefore = service.requests.count
        let late = Task { await calls(client, count: 300) }
        try await waitUntil { refreshing.fetchCount == 4 }
        try await Task.sleep(for: .milliseconds(100))
        #expect(service.requests.count == seenBefore, "no request signed with a key in its last minute")
        imds.issuer.openGate()
        #expect(await late.value == [:])
        #expect(refreshing.fetchCount == 4)

        let requests = service.requests
        try #require(requests.count == 1100)
        for request in requests {
            let expiration = try #require(imds.issuer.expiration(of: request.accessKeyID), "\(request.accessKeyID)")
            #expect(
                expiration - request.at >= 60,
                "\(request.accessKeyID) signed \(expiration - request.at) s before expiry")
        }
        let keys = requests.map(\.accessKeyID)
        #expect(Set(keys[0..<500]) == [first.accessKeyID])
        #expect(Set(keys[500..<800]) == [second.accessKeyID])
        #expect(Set(keys[800...]) == [imds.issuer.issued.last!.accessKeyID])
    }
}
