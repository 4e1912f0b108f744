import Foundation
import RelayTestSupport
import Testing

@testable import RelayHTTP

/// The per-address connection cap and the connection limit on real sockets: several clients are
/// several loopback addresses (127.0.0.2, 127.0.0.3), IPv6 is `::1`; the /64 grouping of distinct
/// IPv6 addresses is checked on the table itself (loopback has one IPv6 address).
extension SocketSuite {
    @Suite struct ConnectionCapTests {
        private func refused(_ client: RawClient, sourceLocation: SourceLocation = #_sourceLocation) throws {
            try? client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 503, sourceLocation: sourceLocation)
            #expect(response.header("retry-after") == "1", sourceLocation: sourceLocation)
            #expect(client.isClosedByServer(), "refused but left open", sourceLocation: sourceLocation)
        }

        @Test func testOneAddressHoldsAtMostTheCapWhileOthersAreServed() async throws {
            let first = IPAddress("127.0.0.2")!
            try await withEventServer {
                $0.maxConnectionsPerAddress = 2
            } run: { server, events in
                var held = try (0..<2).map { _ in try RawClient(port: server.port, source: "127.0.0.2") }
                for client in held { try client.expectServed() }
                #expect(server.connections(from: first) == 2)
                try refused(try RawClient(port: server.port, source: "127.0.0.2"))
                #expect(events.all == [.refused(.perAddress)])
                // Another address has its own budget; the held connections keep working.
                try RawClient(port: server.port, source: "127.0.0.3").expectServed()
                try held[0].expectServed()

                // A closed connection gives its place back.
                held.removeFirst()
                try await waitUntil { server.connections(from: first) == 1 }
                try RawClient(port: server.port, source: "127.0.0.2").expectServed()

                // Nothing is left in the table once every connection is gone.
                held.removeAll()
                try await waitUntil { server.addressesWithConnections == 0 }
                #expect(server.addressesWithConnections == 0)
            }
        }

        @Test func testIPv6IsCappedOnARealSocket() async throws {
            try await withEventServer {
                $0.host = "::1"
                $0.maxConnectionsPerAddress = 2
            } run: { server, events in
                let held = try (0..<2).map { _ in try RawClient(port: server.port, host: "::1") }
                for client in held { try client.expectServed() }
                #expect(server.connections(from: IPAddress("::1")!) == 2)
                try refused(try RawClient(port: server.port, host: "::1"))
                #expect(events.all == [.refused(.perAddress)])
            }
        }

        @Test func testAnIPv6SubscriberIsOneClientAcrossItsSlash64() {
            let table = ConnectionsPerAddress(limit: 2)
            func admit(_ text: String) -> Bool { table.admit(IPAddress(text)!.block) }
            #expect(admit("2001:db8:1:2::1"))
            #expect(admit("2001:db8:1:2:ffff:eeee:dddd:cccc"))
            #expect(!admit("2001:db8:1:2::99"), "a third address of the same /64")
            #expect(admit("2001:db8:1:3::1"), "the next /64 is someone else")
            #expect(admit("192.0.2.1"))
            #expect(admit("::ffff:192.0.2.1"), "IPv4-mapped is the same IPv4 client")
            #expect(!admit("192.0.2.1"))
            #expect(admit("192.0.2.2"), "IPv4 counts per address, not per block")
            #expect(table.blocks == 4)
            table.release(IPAddress("2001:db8:1:2::1234")!.block)
            #expect(admit("2001:db8:1:2::5"), "released by any address of the /64")
            for text in [
                "2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:3::1", "192.0.2.1", "192.0.2.1", "192.0.2.2",
            ] {
                table.release(IPAddress(text)!.block)
            }
            #expect(table.blocks == 0, "an empty block leaves the table")
        }

        @Test func testTrustedProxiesAreNotCapped() async throws {
            try await withEventServer {
                $0.maxConnectionsPerAddress = 1
                $0.trustedProxies = TrustedProxies([IPAddressRange("127.0.0.1")!])
            } run: { server, events in
                let proxy = try (0..<3).map { _ in try RawClient(port: server.port) }
                for client in proxy { try client.expectServed() }
                #expect(server.connections(from: IPAddress("127.0.0.1")!) == 0, "a proxy's connections are not counted")
                let direct = try RawClient(port: server.port, source: "127.0.0.2")
                try direct.expectServed()
                try refused(try RawClient(port: server.port, source: "127.0.0.2"))
                #expect(events.all == [.refused(.perAddress)])
            }
        }

        @Test func testConnectionsBeyondTheLimitGet503FromAnyAddress() async throws {
            try await withEventServer {
                $0.maxConnections = 2
                $0.maxConnectionsPerAddress = 10
            } run: { server, events in
                let held = [try RawClient(port: server.port, source: "127.0.0.2"), try RawClient(port: server.port)]
                for client in held { try client.expectServed() }
                try refused(try RawClient(port: server.port, source: "127.0.0.3"))
                #expect(events.all == [.refused(.capacity)])
                #expect(server.openConnections == 2)
                #expect(server.connections(from: IPAddress("127.0.0.3")!) == 0, "a refused connection is not counted")
            }
        }
    }
}

/// How a block reads as a key (the OAuth rate limiter keys by it too), and that it never prints.
extension SocketSuite {
    @Suite struct AddressBlockTests {
        @Test func testBlocksAreKeyedAsTheIPv4AddressOrTheIPv6Slash64AndPrintRedacted() {
            #expect(IPAddress("192.0.2.7")!.block.unredacted == "192.0.2.7")
            #expect(IPAddress("::ffff:192.0.2.7")!.block.unredacted == "192.0.2.7")
            #expect(IPAddress("2001:DB8:0:0A:1:2:3:4")!.block.unredacted == "2001:db8:0:a::/64")
            #expect(IPAddress("::1")!.block.unredacted == "0:0:0:0::/64")
            #expect(IPAddress("::1")!.block != IPAddress("0.0.0.1")!.block)
            #expect("\(IPAddress("192.0.2.7")!.block)" == "<address>")
        }
    }
}
