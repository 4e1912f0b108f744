import Foundation
import RelayHTTP
import Synchronization
import Testing

/// A server given an upstream client (`ServerConfiguration.upstream`): each event loop drives its
/// part of the direct client on its own thread, so a handler's call upstream starts and ends
/// there. Requests come from another client over real sockets; the front's handler calls a real
/// backend, plain or behind nginx with TLS and HTTP/2.
@Suite struct HostedDirectLoopTests {
    /// What the front's handlers got from upstream, in the order they finished.
    final class Outcomes: Sendable {
        private let texts = Mutex<[String]>([])
        func append(_ text: String) { texts.withLock { $0.append(text) } }
        var all: [String] { texts.withLock { $0 } }
    }

    /// A front server on 2 loops whose `/call` fetches `upstream` with `client` and answers with
    /// the body (502 and the error when the call failed); `/plain` answers without upstream.
    static func front(
        _ client: HTTPClient, upstream: String, drainMilliseconds: Int = 30_000, outcomes: Outcomes = Outcomes()
    ) throws -> Server {
        var router = Router()
        router.get("/call") { _ in
            do {
                let text = try await client.send(ClientRequest(url: upstream, timeout: .seconds(30))).text
                outcomes.append(text)
                return .text(text)
            } catch {
                outcomes.append("\(error)")
                return .text("\(error)", status: .badGateway)
            }
        }
        router.get("/plain") { _ in .text("plain") }
        return try server(router, client, drainMilliseconds: drainMilliseconds)
    }

    /// A started server on 2 loops with `client` as its upstream.
    static func server(_ router: Router, _ client: HTTPClient, drainMilliseconds: Int = 30_000) throws -> Server {
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, eventLoops: 2, drainTimeoutMilliseconds: drainMilliseconds)
        configuration.upstream = client
        let server = Server(configuration: configuration, responder: router.responder)
        try server.start()
        return server
    }

    /// `count` GETs of `url` side by side from a client of its own: the bodies, or the errors.
    static func burst(_ url: String, count: Int) async throws -> [String] {
        let caller = try HTTPClient(configuration: HTTPClientConfiguration(directClient: true))
        return await DirectHTTPSTests.burst(caller, count: count) { _ in ClientRequest(url: url, timeout: .seconds(60))
        }
        .map { result in
            switch result {
            case .success(let text): text
            case .failure(let error): "\(error)"
            }
        }
    }

    @Test(arguments: [false, true])
    func handlersCallUpstreamFromTheirOwnLoop(tls: Bool) async throws {
        let backend = try PostBackend(delay: .milliseconds(20))
        let nginx = tls ? try await TLSServer(upstreamPort: backend.port) : nil
        let client = try HTTPClient(
            configuration: HTTPClientConfiguration(caFile: nginx?.certificate, directClient: true))
        let upstream = nginx.map { "https://localhost:\($0.port)/slow" } ?? "http://127.0.0.1:\(backend.port)/slow"
        let front = try Self.front(client, upstream: upstream)
        defer { front.shutdown() }
        let answers = try await Self.burst("http://127.0.0.1:\(front.port)/call", count: 200)
        #expect(answers.count == 200)
        #expect(answers.allSatisfy { $0 == "slow" }, "\(Set(answers))")
        // Every call went through a loop's own part of the client, none through its thread.
        #expect(client.statistics.hostedExchanges == 200)
        #expect(client.statistics.requests == 200)
        #expect(client.statistics.inFlight == 0)
        if let nginx {
            let log = await nginx.log(lines: 200)
            #expect(log.allSatisfy { $0.split(separator: " ")[1] == "HTTP/2.0" }, "\(log)")
            #expect(nginx.connectionsLogged <= 8)
        }
    }

    /// The loops split the connection limit: 2 loops with a limit of 4 open at most 4 together,
    /// however many calls wait for a stream.
    @Test func theLoopsShareTheConnectionLimit() async throws {
        let backend = try PostBackend(delay: .milliseconds(200))
        let nginx = try await TLSServer(upstreamPort: backend.port)
        let client = try HTTPClient(
            configuration: HTTPClientConfiguration(
                caFile: nginx.certificate, maxMultiplexedConnectionsPerHost: 4, maxStreamsPerConnection: 8,
                directClient: true))
        let front = try Self.front(client, upstream: "https://localhost:\(nginx.port)/slow")
        defer { front.shutdown() }
        let answers = try await Self.burst("http://127.0.0.1:\(front.port)/call", count: 120)
        #expect(answers.allSatisfy { $0 == "slow" }, "\(Set(answers))")
        #expect(client.statistics.hostedExchanges == 120)
        #expect(client.statistics.connectionsOpened <= 4)
        await nginx.log(lines: 120)
        #expect(nginx.connectionsLogged <= 4)
        #expect(backend.gauge.mostAtOnce > 8, "the calls ran side by side")
    }

    /// The server stops (its drain time is up) while a handler's call is still upstream: the call
    /// finishes on the client's thread rather than failing or hanging to its timeout.
    @Test func aCallInFlightWhenTheServerStopsFinishes() async throws {
        // The backend answers after 3 s; the server's 100 ms drain ends long before, even on a
        // loaded machine (under a full parallel test run stopping took 1.7 s once).
        let backend = try PostBackend(delay: .seconds(3))
        let client = try HTTPClient(configuration: HTTPClientConfiguration(directClient: true))
        let outcomes = Outcomes()
        let front = try Self.front(
            client, upstream: "http://127.0.0.1:\(backend.port)/slow", drainMilliseconds: 100, outcomes: outcomes)
        let caller = Task { try await Self.burst("http://127.0.0.1:\(front.port)/call", count: 1) }
        for _ in 0..<300 where backend.gauge.mostAtOnce == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(backend.gauge.mostAtOnce == 1, "the call reached the backend")
        let stopping = ContinuousClock.now
        front.shutdown()
        await front.waitUntilStopped()
        #expect(ContinuousClock.now - stopping < .milliseconds(2_500), "the server stopped before the call ended")
        #expect(outcomes.all.isEmpty, "the call was still upstream when the server had stopped")
        _ = try await caller.value  // the connection was closed at the drain deadline
        for _ in 0..<500 where outcomes.all.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        #expect(outcomes.all == ["slow"])
        #expect(client.statistics.hostedExchanges == 1)
        #expect(client.statistics.inFlight == 0)
    }

    /// The client shuts down under a running server: calls fail with `shutDown` at once, and the
    /// loops go on serving everything else.
    @Test func aClientShutDownUnderARunningServerFailsOnlyTheCalls() async throws {
        let backend = try PostBackend(delay: .zero)
        let client = try HTTPClient(configuration: HTTPClientConfiguration(directClient: true))
        let front = try Self.front(client, upstream: "http://127.0.0.1:\(backend.port)/slow")
        defer { front.shutdown() }
        #expect(
            try await Self.burst("http://127.0.0.1:\(front.port)/call", count: 8) == Array(repeating: "slow", count: 8))
        client.shutdown()
        let started = ContinuousClock.now
        let failed = try await Self.burst("http://127.0.0.1:\(front.port)/call", count: 8)
        #expect(failed == Array(repeating: "\(ClientError.shutDown)", count: 8))
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(
            try await Self.burst("http://127.0.0.1:\(front.port)/plain", count: 8)
                == Array(repeating: "plain", count: 8))
    }

    /// An upstream that never answers: the call's deadline ends it on time. The loop bounds its
    /// wait by the guest's next deadline and turns it when one is due.
    @Test func aCallsDeadlineEndsItOnTheLoop() async throws {
        let silent = try ScriptedServer { _, _ in .hang }
        let client = try HTTPClient(configuration: HTTPClientConfiguration(directClient: true))
        var router = Router()
        router.get("/call") { _ in
            let started = ContinuousClock.now
            do {
                _ = try await client.send(ClientRequest(url: silent.url("/"), timeout: .milliseconds(300)))
                return .text("answered")
            } catch {
                return .text("\(error) after \((ContinuousClock.now - started).components.seconds < 2)")
            }
        }
        let front = try Self.server(router, client)
        defer { front.shutdown() }
        let answers = try await Self.burst("http://127.0.0.1:\(front.port)/call", count: 2)
        #expect(answers == Array(repeating: "\(ClientError.timedOut) after true", count: 2))
        #expect(client.statistics.hostedExchanges == 2)
        #expect(client.statistics.inFlight == 0)
    }

    /// A handler cancels its own call (a task group's child, on the loop): the hosted loop takes the
    /// cancel through its wake-up and the call ends with `cancelled` at once.
    @Test func aCancelledCallEndsAtOnce() async throws {
        let silent = try ScriptedServer { _, _ in .hang }
        let client = try HTTPClient(configuration: HTTPClientConfiguration(directClient: true))
        var router = Router()
        router.get("/call") { _ in
            let started = ContinuousClock.now
            let outcome = await withTaskGroup(of: String.self) { group in
                group.addTask {
                    do throws(ClientError) {
                        _ = try await client.send(ClientRequest(url: silent.url("/"), timeout: .seconds(30)))
                        return "answered"
                    } catch {
                        return "\(error)"
                    }
                }
                try? await Task.sleep(for: .milliseconds(100))
                group.cancelAll()
                return await group.next() ?? "none"
            }
            return .text("\(outcome) after \((ContinuousClock.now - started).components.seconds < 5)")
        }
        let front = try Self.server(router, client)
        defer { front.shutdown() }
        let answers = try await Self.burst("http://127.0.0.1:\(front.port)/call", count: 2)
        #expect(answers == Array(repeating: "\(ClientError.cancelled) after true", count: 2))
        #expect(client.statistics.hostedExchanges == 2)
        #expect(client.statistics.inFlight == 0)
    }
}
