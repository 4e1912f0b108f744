import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP connection to 127.0.0.1 for tests that speak HTTP (or break it) byte by byte, where
/// URLSession would pool, retry or tidy up what is sent. Closed when released.
public final class LoopbackConnection {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let fd: Int32

    /// Connects to `port` on 127.0.0.1; reads wait at most `receiveTimeout` seconds.
    public init(port: Int, receiveTimeout: Double = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(Self.lastError)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let error = Failure(description: "connect to 127.0.0.1:\(port): \(Self.lastError)")
            close(fd)
            throw error
        }
        setReceiveTimeout(receiveTimeout)
    }

    deinit { close(fd) }

    public func setReceiveTimeout(_ seconds: Double) {
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends every byte (no SIGPIPE if the peer has gone: that is a thrown error).
    public func send(_ bytes: [UInt8]) throws {
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
    public func receive(limit: Int = 65536) throws -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: limit)
        let count = recv(fd, &chunk, limit, 0)
        guard count >= 0 else { throw Failure(description: "recv: \(Self.lastError)") }
        return Array(chunk[0..<count])
    }

    /// Everything the peer sends until it closes the connection.
    public func receiveToEnd() throws -> [UInt8] {
        var received: [UInt8] = []
        while true {
            let chunk = try receive()
            if chunk.isEmpty { return received }
            received += chunk
        }
    }

    private static var lastError: String { String(cString: strerror(errno)) }
}
