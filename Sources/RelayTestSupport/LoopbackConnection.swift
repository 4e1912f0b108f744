import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP connection over loopback for tests that speak HTTP (or break it) byte by byte, where
/// URLSession would pool, retry or tidy up what is sent. Closed when released.
package final class LoopbackConnection {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    package let fd: Int32

    /// Connects to `port` on `host` (127.0.0.1 unless given; `::1` for IPv6), from `source` when
    /// given (another loopback address such as 127.0.0.2, so a test can be several clients); reads
    /// wait at most `receiveTimeout` seconds.
    package init(port: Int, host: String = "127.0.0.1", source: String? = nil, receiveTimeout: Double = 10) throws {
        let ipv6 = host.contains(":")
        fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(Self.lastError)") }
        do {
            if let source {
                var any: Int32 = 1
                // Let connect pick the source port per destination, not bind per address (many connections).
                setsockopt(fd, Int32(IPPROTO_IP), IP_BIND_ADDRESS_NO_PORT, &any, socklen_t(MemoryLayout<Int32>.size))
                var (address, length) = try Self.address(source, port: 0, ipv6: ipv6)
                let bound = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
                }
                guard bound == 0 else { throw Failure(description: "bind to \(source): \(Self.lastError)") }
            }
            var (address, length) = try Self.address(host, port: port, ipv6: ipv6)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
            }
            guard connected == 0 else { throw Failure(description: "connect to \(host):\(port): \(Self.lastError)") }
        } catch {
            close(fd)
            throw error
        }
        setReceiveTimeout(receiveTimeout)
    }

    private static func address(_ text: String, port: Int, ipv6: Bool) throws -> (sockaddr_storage, socklen_t) {
        var storage = sockaddr_storage()
        let parsed = withUnsafeMutablePointer(to: &storage) { pointer -> Bool in
            if ipv6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    $0.pointee.sin6_family = sa_family_t(AF_INET6)
                    $0.pointee.sin6_port = UInt16(port).bigEndian
                    return inet_pton(AF_INET6, text, &$0.pointee.sin6_addr) == 1
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                $0.pointee.sin_family = sa_family_t(AF_INET)
                $0.pointee.sin_port = UInt16(port).bigEndian
                return inet_pton(AF_INET, text, &$0.pointee.sin_addr) == 1
            }
        }
        guard parsed else { throw Failure(description: "not an address: \(text)") }
        let length = ipv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size
        return (storage, socklen_t(length))
    }

    deinit { close(fd) }

    package func setReceiveTimeout(_ seconds: Double) {
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends every byte (no SIGPIPE if the peer has gone: that is a thrown error).
    package func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw Failure(description: "send: \(Self.lastError)") }
            offset += sent
        }
    }

    /// Up to `limit` bytes as they arrive: empty at end of stream; throws on a timeout or reset.
    package func receive(limit: Int = 65536) throws -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: limit)
        let count = recv(fd, &chunk, limit, 0)
        guard count >= 0 else { throw Failure(description: "recv: \(Self.lastError)") }
        return Array(chunk[0..<count])
    }

    /// Everything the peer sends until it closes the connection.
    package func receiveToEnd() throws -> [UInt8] {
        var received: [UInt8] = []
        while true {
            let chunk = try receive()
            if chunk.isEmpty { return received }
            received += chunk
        }
    }

    private static var lastError: String { String(cString: strerror(errno)) }
}
