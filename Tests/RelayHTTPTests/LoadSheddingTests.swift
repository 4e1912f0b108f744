import Foundation
import RelayTestSupport
import XCTest

@testable import RelayHTTP

/// A full connection table gives up the connection that costs least to lose before it refuses
/// anyone (issue 38), on real sockets: idle keep-alive first (oldest idle first), then the slowest
/// request still arriving; a request being served is never closed; the deadlines shrink as the
/// table fills; each address's share shrinks as more addresses hold connections.
final class LoadSheddingTests: XCTestCase {
    private func served(
        _ client: RawClient, _ path: String = "/hello", file: StaticString = #filePath, line: UInt = #line
    )
        throws
    {
        try client.send("GET \(path) HTTP/1.1\r\nHost: a\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 200, file: file, line: line)
    }

    /// Long enough for an idle connection to count as idle (`LoadShedding.minimumIdleAge`).
    private func waitPastIdleAge() async throws {
        try await Task.sleep(for: .milliseconds(Int(LoadShedding.minimumIdleAge) + 300))
    }

    func testAtTheCapTheOldestIdleConnectionMakesRoomForANewClient() async throws {
        let (configuration, events) = ServerEvents.configuration {
            $0.maxConnections = 3
            $0.eventLoops = 1
        }
        try await withServer(configuration, router: testRouter()) { server in
            let oldest = try RawClient(port: server.port, source: "127.0.0.2")
            try served(oldest)
            try await Task.sleep(for: .milliseconds(200))
            let others = try (0..<2).map { _ in try RawClient(port: server.port, source: "127.0.0.3") }
            for client in others { try served(client) }
            try await waitPastIdleAge()
            let newcomer = try RawClient(port: server.port, source: "127.0.0.4")
            try served(newcomer)
            XCTAssertTrue(oldest.isClosedByServer(), "the oldest idle connection was closed")
            for client in others { try served(client) }
            XCTAssertEqual(events.all, [.shed(.idleKeepAlive)])
            XCTAssertEqual(server.openConnections, 3)
        }
    }

    func testAClientThatHasJustBeenAnsweredIsNotShedAndTheNextClientIsRefused() async throws {
        // Idle for less than `minimumIdleAge`: a conversation in progress, not an idle connection.
        let (configuration, events) = ServerEvents.configuration { $0.maxConnections = 2 }
        try await withServer(configuration, router: testRouter()) { server in
            let held = try (0..<2).map { _ in try RawClient(port: server.port) }
            for client in held { try served(client) }
            let extra = try RawClient(port: server.port, source: "127.0.0.3")
            try? extra.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
            XCTAssertEqual(try extra.readResponse().status, 503)
            XCTAssertEqual(events.all, [.refused(.capacity)])
        }
    }

    func testARequestBeingServedIsNeverShed() async throws {
        let (configuration, events) = ServerEvents.configuration {
            $0.maxConnections = 2
            $0.eventLoops = 1
        }
        try await withServer(configuration, router: testRouter()) { server in
            // Both slots serve slow requests: nothing may be closed for the newcomer.
            let busy = try (0..<2).map { _ in try RawClient(port: server.port, source: "127.0.0.2") }
            for client in busy { try client.send("GET /slow?ms=4000 HTTP/1.1\r\nHost: a\r\n\r\n") }
            try await Task.sleep(for: .milliseconds(LoadShedding.minimumIdleAge + 700))
            let newcomer = try RawClient(port: server.port, source: "127.0.0.3")
            try? newcomer.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
            XCTAssertEqual(try newcomer.readResponse().status, 503)
            for client in busy {
                client.setReceiveTimeout(10)
                XCTAssertEqual(try client.readResponse().status, 200, "the request in flight was answered")
            }
            XCTAssertEqual(events.all, [.refused(.capacity)])
        }
    }

    func testWithNoIdleConnectionTheSlowestHeadMakesRoom() async throws {
        // A full table shrinks the head deadline to a fifth: 30 s leaves the heads 6 s.
        let (configuration, events) = ServerEvents.configuration {
            $0.maxConnections = 3
            $0.eventLoops = 1
            $0.headerReadTimeout = .milliseconds(30_000)
        }
        try await withServer(configuration, router: testRouter()) { server in
            // One request is being served (never a candidate), one head trickles, one arrives faster.
            let busy = try RawClient(port: server.port, source: "127.0.0.2")
            try busy.send("GET /slow?ms=3000 HTTP/1.1\r\nHost: a\r\n\r\n")
            let slow = try RawClient(port: server.port, source: "127.0.0.3")
            try slow.send("POST /echo HTTP/1.1\r\n")
            let faster = try RawClient(port: server.port, source: "127.0.0.4")
            try faster.send(
                "POST /echo HTTP/1.1\r\nHost: a\r\nX-Padding: " + String(repeating: "p", count: 2000) + "\r\n")
            try await Task.sleep(for: .milliseconds(LoadShedding.minimumReadingAge + 500))
            let newcomer = try RawClient(port: server.port, source: "127.0.0.5")
            try served(newcomer)
            XCTAssertTrue(slow.isClosedByServer(), "the slowest head was closed")
            try faster.send("Content-Length: 2\r\n\r\nok")
            XCTAssertEqual(try faster.readResponse().status, 200, "the faster request went on")
            busy.setReceiveTimeout(10)
            XCTAssertEqual(try busy.readResponse().status, 200)
            XCTAssertEqual(events.all, [.shed(.slowRequest)])
        }
    }

    func testIdleConnectionsGoBeforeSlowRequests() async throws {
        let (configuration, events) = ServerEvents.configuration {
            $0.maxConnections = 2
            $0.eventLoops = 1
            $0.headerReadTimeout = .milliseconds(30_000)
        }
        try await withServer(configuration, router: testRouter()) { server in
            let slow = try RawClient(port: server.port, source: "127.0.0.2")
            try slow.send("POST /echo HTTP/1.1\r\n")
            let idle = try RawClient(port: server.port, source: "127.0.0.3")
            try served(idle)
            try await waitPastIdleAge()
            let newcomer = try RawClient(port: server.port, source: "127.0.0.4")
            try served(newcomer)
            XCTAssertTrue(idle.isClosedByServer())
            try slow.send("Host: a\r\nContent-Length: 2\r\n\r\nok")
            XCTAssertEqual(try slow.readResponse().status, 200, "the slow request was kept while an idle one could go")
            XCTAssertEqual(events.all, [.shed(.idleKeepAlive)])
        }
    }

    /// With two loops, the connection that makes room may belong to the other loop: every newcomer
    /// is admitted while any loop holds an idle connection.
    func testTheRuleHoldsAcrossLoops() async throws {
        let (configuration, events) = ServerEvents.configuration {
            $0.maxConnections = 4
            $0.eventLoops = 2
        }
        try await withServer(configuration, router: testRouter()) { server in
            var idle = try (0..<4).map { _ in try RawClient(port: server.port, source: "127.0.0.2") }
            for client in idle { try served(client) }
            try await waitPastIdleAge()
            for index in 0..<4 {
                let newcomer = try RawClient(port: server.port, source: "127.0.0.\(3 + index)")
                try served(newcomer)
                idle.append(newcomer)
            }
            XCTAssertEqual(events.all.filter { $0 == .shed(.idleKeepAlive) }.count, 4, "\(events.all)")
            XCTAssertFalse(events.all.contains(.refused(.capacity)), "\(events.all)")
            try await waitUntil("the table is back at the cap", timeout: .seconds(10)) { server.openConnections <= 4 }
        }
    }

    func testDeadlinesShrinkAsTheTableFills() async throws {
        XCTAssertEqual(LoadShedding.deadlineScale(open: 100, capacity: 1000), 1)
        XCTAssertEqual(LoadShedding.deadlineScale(open: 500, capacity: 1000), 1)
        XCTAssertEqual(LoadShedding.deadlineScale(open: 950, capacity: 1000), LoadShedding.minimumScale)
        XCTAssertEqual(LoadShedding.deadlineScale(open: 1000, capacity: 1000), LoadShedding.minimumScale)
        let middle = LoadShedding.deadlineScale(open: 725, capacity: 1000)
        XCTAssertGreaterThan(middle, LoadShedding.minimumScale)
        XCTAssertLessThan(middle, 1)
        // A full table of idle keep-alive connections: 20 s of keep-alive becomes 4 s.
        let (configuration, _) = ServerEvents.configuration {
            $0.maxConnections = 4
            $0.eventLoops = 1
            $0.keepAliveTimeout = .milliseconds(20_000)
        }
        try await withServer(configuration, router: testRouter()) { server in
            let clients = try (0..<4).map { _ in try RawClient(port: server.port, receiveTimeout: 15) }
            for client in clients { try served(client) }
            let started = Date()
            for client in clients { XCTAssertTrue(client.isClosedByServer()) }
            let elapsed = Date().timeIntervalSince(started)
            XCTAssertLessThan(elapsed, 12, "closed after the shrunk keep-alive, not the configured 20 s")
            XCTAssertGreaterThan(elapsed, 2)
        }
        // Half full: the configured keep-alive holds.
        let (relaxed, _) = ServerEvents.configuration {
            $0.maxConnections = 8
            $0.keepAliveTimeout = .milliseconds(3_000)
        }
        try await withServer(relaxed, router: testRouter()) { server in
            let client = try RawClient(port: server.port, receiveTimeout: 10)
            try served(client)
            let started = Date()
            XCTAssertTrue(client.isClosedByServer())
            XCTAssertGreaterThan(Date().timeIntervalSince(started), 2.5)
        }
    }

    func testEachAddressShareShrinksWithTheNumberOfAddresses() {
        XCTAssertEqual(LoadShedding.share(limit: 256, capacity: 20_000, addresses: 1), 256)
        XCTAssertEqual(LoadShedding.share(limit: 256, capacity: 20_000, addresses: 80), 250)
        XCTAssertEqual(LoadShedding.share(limit: 256, capacity: 20_000, addresses: 1000), 20)
        XCTAssertEqual(LoadShedding.share(limit: 256, capacity: 20_000, addresses: 100_000), LoadShedding.minimumShare)
        XCTAssertEqual(LoadShedding.share(limit: 3, capacity: 20_000, addresses: 100_000), 3, "never above the limit")
        // The table itself: with 40 addresses holding one each, the 41st may hold 100 / 41 = 2... but
        // never fewer than the minimum share.
        let table = ConnectionsPerAddress(limit: 256, capacity: 41 * 20)
        for index in 0..<40 { XCTAssertTrue(table.admit(IPAddress("10.0.0.\(index)")!.block)) }
        let newcomer = IPAddress("10.0.1.1")!.block
        for _ in 0..<20 { XCTAssertTrue(table.admit(newcomer)) }
        XCTAssertFalse(table.admit(newcomer), "an equal share of 820 among 41 addresses is 20")
        table.release(newcomer)
        XCTAssertTrue(table.admit(newcomer))
    }
}
