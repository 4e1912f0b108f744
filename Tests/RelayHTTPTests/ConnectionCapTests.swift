import Foundation
import RelayTestSupport
import XCTest

@testable import RelayHTTP

/// The per-address connection cap and the connection limit on real sockets: several clients are
/// several loopback addresses (127.0.0.2, 127.0.0.3), IPv6 is `::1`; the /64 grouping of distinct
/// IPv6 addresses is checked on the table itself (loopback has one IPv6 address).
final class ConnectionCapTests: XCTestCase {
    private func served(_ client: RawClient, file: StaticString = #filePath, line: UInt = #line) throws {
        try client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 200, file: file, line: line)
    }

    private func refused(_ client: RawClient, file: StaticString = #filePath, line: UInt = #line) throws {
        try? client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 503, file: file, line: line)
        XCTAssertEqual(response.header("retry-after"), "1", file: file, line: line)
        XCTAssertTrue(client.isClosedByServer(), "refused but left open", file: file, line: line)
    }

    func testOneAddressHoldsAtMostTheCapWhileOthersAreServed() async throws {
        let (configuration, events) = ServerEvents.configuration { $0.maxConnectionsPerAddress = 2 }
        let first = IPAddress("127.0.0.2")!
        try await withServer(configuration, router: testRouter()) { server in
            var held = try (0..<2).map { _ in try RawClient(port: server.port, source: "127.0.0.2") }
            for client in held { try served(client) }
            XCTAssertEqual(server.connections(from: first), 2)
            try refused(try RawClient(port: server.port, source: "127.0.0.2"))
            XCTAssertEqual(events.all, [.refused(.perAddress)])
            // Another address has its own budget; the held connections keep working.
            try served(try RawClient(port: server.port, source: "127.0.0.3"))
            try served(held[0])

            // A closed connection gives its place back.
            held.removeFirst()
            try await waitUntil { server.connections(from: first) == 1 }
            try served(try RawClient(port: server.port, source: "127.0.0.2"))

            // Nothing is left in the table once every connection is gone.
            held.removeAll()
            try await waitUntil { server.addressesWithConnections == 0 }
            XCTAssertEqual(server.addressesWithConnections, 0)
        }
    }

    func testIPv6IsCappedOnARealSocket() async throws {
        let (configuration, events) = ServerEvents.configuration {
            $0.host = "::1"
            $0.maxConnectionsPerAddress = 2
        }
        try await withServer(configuration, router: testRouter()) { server in
            let held = try (0..<2).map { _ in try RawClient(port: server.port, host: "::1") }
            for client in held { try served(client) }
            XCTAssertEqual(server.connections(from: IPAddress("::1")!), 2)
            try refused(try RawClient(port: server.port, host: "::1"))
            XCTAssertEqual(events.all, [.refused(.perAddress)])
        }
    }

    func testAnIPv6SubscriberIsOneClientAcrossItsSlash64() {
        let table = ConnectionsPerAddress(limit: 2)
        func admit(_ text: String) -> Bool { table.admit(IPAddress(text)!.block) }
        XCTAssertTrue(admit("2001:db8:1:2::1"))
        XCTAssertTrue(admit("2001:db8:1:2:ffff:eeee:dddd:cccc"))
        XCTAssertFalse(admit("2001:db8:1:2::99"), "a third address of the same /64")
        XCTAssertTrue(admit("2001:db8:1:3::1"), "the next /64 is someone else")
        XCTAssertTrue(admit("192.0.2.1"))
        XCTAssertTrue(admit("::ffff:192.0.2.1"), "IPv4-mapped is the same IPv4 client")
        XCTAssertFalse(admit("192.0.2.1"))
        XCTAssertTrue(admit("192.0.2.2"), "IPv4 counts per address, not per block")
        XCTAssertEqual(table.blocks, 4)
        table.release(IPAddress("2001:db8:1:2::1234")!.block)
        XCTAssertTrue(admit("2001:db8:1:2::5"), "released by any address of the /64")
        for text in ["2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:3::1", "192.0.2.1", "192.0.2.1", "192.0.2.2"] {
            table.release(IPAddress(text)!.block)
        }
        XCTAssertEqual(table.blocks, 0, "an empty block leaves the table")
    }

    func testTrustedProxiesAreNotCapped() async throws {
        let (configuration, events) = ServerEvents.configuration {
            $0.maxConnectionsPerAddress = 1
            $0.trustedProxies = TrustedProxies([IPAddressRange("127.0.0.1")!])
        }
        try await withServer(configuration, router: testRouter()) { server in
            let proxy = try (0..<3).map { _ in try RawClient(port: server.port) }
            for client in proxy { try served(client) }
            XCTAssertEqual(
                server.connections(from: IPAddress("127.0.0.1")!), 0, "a proxy's connections are not counted")
            let direct = try RawClient(port: server.port, source: "127.0.0.2")
            try served(direct)
            try refused(try RawClient(port: server.port, source: "127.0.0.2"))
            XCTAssertEqual(events.all, [.refused(.perAddress)])
        }
    }

    func testConnectionsBeyondTheLimitGet503FromAnyAddress() async throws {
        let (configuration, events) = ServerEvents.configuration {
            $0.maxConnections = 2
            $0.maxConnectionsPerAddress = 10
        }
        try await withServer(configuration, router: testRouter()) { server in
            let held = [try RawClient(port: server.port, source: "127.0.0.2"), try RawClient(port: server.port)]
            for client in held { try served(client) }
            try refused(try RawClient(port: server.port, source: "127.0.0.3"))
            XCTAssertEqual(events.all, [.refused(.capacity)])
            XCTAssertEqual(server.openConnections, 2)
            XCTAssertEqual(server.connections(from: IPAddress("127.0.0.3")!), 0, "a refused connection is not counted")
        }
    }
}

/// How a block reads as a key (the OAuth rate limiter keys by it too), and that it never prints.
final class AddressBlockTests: XCTestCase {
    func testBlocksAreKeyedAsTheIPv4AddressOrTheIPv6Slash64AndPrintRedacted() {
        XCTAssertEqual(IPAddress("192.0.2.7")!.block.unredacted, "192.0.2.7")
        XCTAssertEqual(IPAddress("::ffff:192.0.2.7")!.block.unredacted, "192.0.2.7")
        XCTAssertEqual(IPAddress("2001:DB8:0:0A:1:2:3:4")!.block.unredacted, "2001:db8:0:a::/64")
        XCTAssertEqual(IPAddress("::1")!.block.unredacted, "0:0:0:0::/64")
        XCTAssertNotEqual(IPAddress("::1")!.block, IPAddress("0.0.0.1")!.block)
        XCTAssertEqual("\(IPAddress("192.0.2.7")!.block)", "<address>")
    }
}
