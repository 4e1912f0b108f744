import Foundation
import RelayHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// What the helpers of this module throw: the step that failed and what was seen.
package struct TestSupportFailure: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) { self.description = description }
}

/// A loopback TCP port that was free a moment ago, for a child process that must be told its port
/// before it starts. Chosen at random below the kernel's ephemeral range (32768–60999 by default):
/// a port from bind(0) is an ephemeral one, which any outgoing connection of any test may take as
/// its local port before the child binds it (a relay once failed with "Address already in use").
/// Falls back to bind(0) if no port in the range binds.
package func freePort(host: String = "127.0.0.1") throws -> Int {
    for _ in 0..<64 {
        let port = Int.random(in: 20_000..<32_768)
        if Server.isFree(port: port, host: host) { return port }
    }
    return try Server.freePort(host: host)
}

/// Whether something on `host` accepts TCP connections on `port` (a child process has started listening).
package func isListening(port: Int, host: String = "127.0.0.1") -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = ipv4Address(host, port: port)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

/// A TCP socket listening on a port of `host` the kernel chose (a test's own server, which needs no port
/// known in advance); the caller accepts on it and closes it.
package func loopbackListener(host: String = "127.0.0.1", backlog: Int32) throws -> (descriptor: Int32, port: Int) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw TestSupportFailure("socket: \(String(cString: strerror(errno)))") }
    var address = ipv4Address(host, port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let listening = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, length) == 0 && listen(descriptor, backlog) == 0
                && getsockname(descriptor, $0, &length) == 0
        }
    }
    guard listening else {
        let reason = String(cString: strerror(errno))
        close(descriptor)
        throw TestSupportFailure("cannot listen on \(host): \(reason)")
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}

private func ipv4Address(_ host: String, port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr(host)
    address.sin_port = UInt16(port).bigEndian
    return address
}

/// A new empty directory under the system's temporary directory, named with `prefix`; the caller
/// removes it.
package func temporaryDirectory(prefix: String = "relay-test") throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
