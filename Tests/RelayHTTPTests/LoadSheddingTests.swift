import Foundation
import RelayTestSupport
import Testing

@testable import RelayHTTP

/// A full connection table gives up the connection that costs least to lose before it refuses
/// anyone (issue 38), on real sockets: idle keep-alive first (oldest idle first), then the slowest
/// request still arriving; a request being served is never closed; the deadlines shrink as the
/// table fills; each address's share shrinks as more addresses hold connections.
extension SocketSuite {
    @Suite struct LoadSheddingTests {
        /// Long enough for an idle connection to count as idle (`LoadShedding.minimumIdleAge`).
        private func waitPastIdleAge() async throws {
            try await Task.sleep(for: .milliseconds(Int(LoadShedding.minimumIdleAge) + 300))
        }

        @Test func testAtTheCapTheOldestIdleConnectionMakesRoomForANewClient() async throws {
            try await withEventServer {
                $0.maxConnections = 3
                $0.eventLoops = 1
            } run: { server, events in
                let oldest = try RawClient(port: server.port, source: "127.0.0.2")
                try oldest.expectServed()
                try await Task.sleep(for: .milliseconds(200))
                let others = try (0..<2).map { _ in try RawClient(port: server.port, source: "127.0.0.3") }
                for client in others { try client.expectServed() }
                try await waitPastIdleAge()
                let newcomer = try RawClient(port: server.port, source: "127.0.0.4")
                try newcomer.expectServed()
                #expect(oldest.isClosedByServer(), "the oldest idle connection was closed")
                for client in others { try client.expectServed() }
                #expect(events.all == [.shed(.idleKeepAlive)])
                #expect(server.openConnections == 3)
            }
        }

        @Test func testAClientThatHasJustBeenAnsweredIsNotShedAndTheNextClientIsRefused() async throws {
            // Idle for less than `minimumIdleAge`: a conversation in progress, not an idle connection.
            try await withEventServer {
                $0.maxConnections = 2
            } run: { server, events in
                let held = try (0..<2).map { _ in try RawClient(port: server.port) }
                for client in held { try client.expectServed() }
                let extra = try RawClient(port: server.port, source: "127.0.0.3")
                try? extra.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
                #expect(try extra.readResponse().status == 503)
                #expect(events.all == [.refused(.capacity)])
            }
        }

        @Test func testARequestBeingServedIsNeverShed() async throws {
            try await withEventServer {
                $0.maxConnections = 2
                $0.eventLoops = 1
            } run: { server, events in
                // Both slots serve slow requests: nothing may be closed for the newcomer.
                let busy = try (0..<2).map { _ in try RawClient(port: server.port, source: "127.0.0.2") }
                for client in busy { try client.send("GET /slow?ms=4000 HTTP/1.1\r\nHost: a\r\n\r\n") }
                try await Task.sleep(for: .milliseconds(LoadShedding.minimumIdleAge + 700))
                let newcomer = try RawClient(port: server.port, source: "127.0.0.3")
                try? newcomer.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
                #expect(try newcomer.readResponse().status == 503)
                for client in busy {
                    client.setReceiveTimeout(10)
                    #expect(try client.readResponse().status == 200, "the request in flight was answered")
                }
                #expect(events.all == [.refused(.capacity)])
            }
        }

        @Test func testWithNoIdleConnectionTheSlowestHeadMakesRoom() async throws {
            // A full table shrinks the head deadline to a fifth: 30 s leaves the heads 6 s.
            try await withEventServer {
                $0.maxConnections = 3
                $0.eventLoops = 1
                $0.headerReadTimeout = .milliseconds(30_000)
            } run: { server, events in
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
                try newcomer.expectServed()
                #expect(slow.isClosedByServer(), "the slowest head was closed")
                try faster.send("Content-Length: 2\r\n\r\nok")
                #expect(try faster.readResponse().status == 200, "the faster request went on")
                busy.setReceiveTimeout(10)
                #expect(try busy.readResponse().status == 200)
                #expect(events.all == [.shed(.slowRequest)])
            }
        }

        @Test func testIdleConnectionsGoBeforeSlowRequests() async throws {
            try await withEventServer {
                $0.maxConnections = 2
                $0.eventLoops = 1
                $0.headerReadTimeout = .milliseconds(30_000)
            } run: { server, events in
                let slow = try RawClient(port: server.port, source: "127.0.0.2")
                try slow.send("POST /echo HTTP/1.1\r\n")
                let idle = try RawClient(port: server.port, source: "127.0.0.3")
                try idle.expectServed()
                try await waitPastIdleAge()
                let newcomer = try RawClient(port: server.port, source: "127.0.0.4")
                try newcomer.expectServed()
                #expect(idle.isClosedByServer())
                try slow.send("Host: a\r\nContent-Length: 2\r\n\r\nok")
                #expect(try slow.readResponse().status == 200, "the slow request was kept while an idle one could go")
                #expect(events.all == [.shed(.idleKeepAlive)])
            }
        }

        /// With two loops, the connection that makes room may belong to the other loop: every newcomer
        /// is admitted while any loop holds an idle connection.
        @Test func testTheRuleHoldsAcrossLoops() async throws {
            try await withEventServer {
                $0.maxConnections = 4
                $0.eventLoops = 2
            } run: { server, events in
                var idle = try (0..<4).map { _ in try RawClient(port: server.port, source: "127.0.0.2") }
                for client in idle { try client.expectServed() }
                try await waitPastIdleAge()
                for index in 0..<4 {
                    let newcomer = try RawClient(port: server.port, source: "127.0.0.\(3 + index)")
                    try newcomer.expectServed()
                    idle.append(newcomer)
                }
                #expect(events.all.filter { $0 == .shed(.idleKeepAlive) }.count == 4, "\(events.all)")
                #expect(!events.all.contains(.refused(.capacity)), "\(events.all)")
                try await waitUntil("the table is back at the cap", timeout: .seconds(10)) {
                    server.openConnections <= 4
                }
            }
        }

        @Test func testDeadlinesShrinkAsTheTableFills() async throws {
            #expect(LoadShedding.deadlineScale(open: 100, capacity: 1000) == 1)
            #expect(LoadShedding.deadlineScale(open: 500, capacity: 1000) == 1)
            #expect(LoadShedding.deadlineScale(open: 950, capacity: 1000) == LoadShedding.minimumScale)
            #expect(LoadShedding.deadlineScale(open: 1000, capacity: 1000) == LoadShedding.minimumScale)
            let middle = LoadShedding.deadlineScale(open: 725, capacity: 1000)
            #expect(middle > LoadShedding.minimumScale)
            #expect(middle < 1)
            // A full table of idle keep-alive connections: 20 s of keep-alive becomes 4 s.
            try await withEventServer {
                $0.maxConnections = 4
                $0.eventLoops = 1
                $0.keepAliveTimeout = .milliseconds(20_000)
            } run: { server, _ in
                let clients = try (0..<4).map { _ in try RawClient(port: server.port, receiveTimeout: 15) }
                for client in clients { try client.expectServed() }
                let started = Date()
                for client in clients { #expect(client.isClosedByServer()) }
                let elapsed = Date().timeIntervalSince(started)
                #expect(elapsed < 12, "closed after the shrunk keep-alive, not the configured 20 s")
                #expect(elapsed > 2)
            }
            // Half full: the configured keep-alive holds.
            try await withEventServer {
                $0.maxConnections = 8
                $0.keepAliveTimeout = .milliseconds(3_000)
            } run: { server, _ in
                let client = try RawClient(port: server.port, receiveTimeout: 10)
                try client.expectServed()
                let started = Date()
                #expect(client.isClosedByServer())
                #expect(Date().timeIntervalSince(started) > 2.5)
            }
        }

        @Test func testEachAddressShareShrinksWithTheNumberOfAddresses() {
            #expect(LoadShedding.share(limit: 256, capacity: 20_000, addresses: 1) == 256)
            #expect(LoadShedding.share(limit: 256, capacity: 20_000, addresses: 80) == 250)
            #expect(LoadShedding.share(limit: 256, capacity: 20_000, addresses: 1000) == 20)
            #expect(LoadShedding.share(limit: 256, capacity: 20_000, addresses: 100_000) == LoadShedding.minimumShare)
            #expect(LoadShedding.share(limit: 3, capacity: 20_000, addresses: 100_000) == 3, "never above the limit")
            // The table itself: with 40 addresses holding one each, the 41st may hold 100 / 41 = 2... but
            // never fewer than the minimum share.
            let table = ConnectionsPerAddress(limit: 256, capacity: 41 * 20)
            for index in 0..<40 { #expect(table.admit(IPAddress("10.0.0.\(index)")!.block)) }
            let newcomer = IPAddress("10.0.1.1")!.block
            for _ in 0..<20 { #expect(table.admit(newcomer)) }
            #expect(!table.admit(newcomer), "an equal share of 820 among 41 addresses is 20")
            table.release(newcomer)
            #expect(table.admit(newcomer))
        }
    }
}
