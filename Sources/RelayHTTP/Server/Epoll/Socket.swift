import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// A failed system call, with its errno.
package struct SocketError: Error, CustomStringConvertible, Sendable {
    /// The call that failed.
    package let operation: String
    /// errno at the time.
    package let code: Int32

    init(_ operation: String, code: Int32 = errno) {
        self.operation = operation
        self.code = code
    }

    package var description: String { "\(operation) failed: \(String(cString: strerror(code)))" }
}

/// Thin wrappers over the socket calls the server makes; everything here is non-blocking.
enum Socket {
    /// Opens a non-blocking listener with SO_REUSEADDR and SO_REUSEPORT (each loop gets its own
    /// and the kernel spreads connections). Returns the fd and the bound port.
    static func listen(host: String, port: Int, backlog: Int) throws(SocketError) -> (fd: Int32, port: Int) {
        let address = host == "localhost" ? "127.0.0.1" : host
        guard let ip = IPAddress(address) else { throw SocketError("parse listen address", code: EINVAL) }
        let family = ip.isIPv4 ? AF_INET : AF_INET6
        let fd = socket(family, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError("socket") }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, socklen_t(MemoryLayout<Int32>.size))
        var storage = sockaddr_storage()
        let length = fill(&storage, ip: ip, port: port)
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let error = SocketError("bind \(address):\(port)")
            close(fd)
            throw error
        }
        guard Glibc.listen(fd, Int32(backlog)) == 0 else {
            let error = SocketError("listen")
            close(fd)
            throw error
        }
        return (fd, boundPort(fd))
    }

    /// Fails with EADDRINUSE when anything listens on `host:port` already. The listeners bind with
    /// SO_REUSEPORT, which would otherwise let a second relay (or a second sign-in listener) of the
    /// same user join the port silently and take a share of its connections; a socket bound without
    /// it cannot share, so binding one (then closing it) asks the kernel whether the port is free.
    static func claim(host: String, port: Int) throws(SocketError) {
        let address = host == "localhost" ? "127.0.0.1" : host
        guard let ip = IPAddress(address) else { throw SocketError("parse listen address", code: EINVAL) }
        let fd = socket(ip.isIPv4 ? AF_INET : AF_INET6, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError("socket") }
        defer { close(fd) }
        var on: Int32 = 1
        // SO_REUSEADDR: connections of an earlier run in TIME_WAIT do not count as a listener.
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var storage = sockaddr_storage()
        let length = fill(&storage, ip: ip, port: port)
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw SocketError("bind \(address):\(port) (is another server listening there?)") }
    }

    /// A TCP port on `host` that was free a moment ago: a socket bound to port 0 (without
    /// SO_REUSEPORT), read back and closed. Another program could take it before its user binds it.
    static func freePort(host: String) throws(SocketError) -> Int {
        guard let ip = IPAddress(host) else { throw SocketError("parse address \(host)", code: EINVAL) }
        let fd = socket(ip.isIPv4 ? AF_INET : AF_INET6, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError("socket") }
        defer { close(fd) }
        var storage = sockaddr_storage()
        let length = fill(&storage, ip: ip, port: 0)
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw SocketError("bind \(host):0") }
        return boundPort(fd)
    }

    private static func fill(_ storage: inout sockaddr_storage, ip: IPAddress, port: Int) -> socklen_t {
        if ip.isIPv4 {
            return withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    pointer.pointee.sin_family = sa_family_t(AF_INET)
                    pointer.pointee.sin_port = UInt16(port).bigEndian
                    withUnsafeMutableBytes(of: &pointer.pointee.sin_addr) { $0.copyBytes(from: ip.bytes[12...]) }
                    return socklen_t(MemoryLayout<sockaddr_in>.size)
                }
            }
        }
        return withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                pointer.pointee.sin6_family = sa_family_t(AF_INET6)
                pointer.pointee.sin6_port = UInt16(port).bigEndian
                withUnsafeMutableBytes(of: &pointer.pointee.sin6_addr) { $0.copyBytes(from: ip.bytes) }
                return socklen_t(MemoryLayout<sockaddr_in6>.size)
            }
        }
    }

    private static func boundPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return peerAddress(storage).port
    }

    /// The address and port in a `sockaddr_storage`.
    static func peerAddress(_ storage: sockaddr_storage) -> (ip: IPAddress?, port: Int) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    let bytes = withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
                    return (IPAddress(bytes: bytes), Int(UInt16(bigEndian: pointer.pointee.sin_port)))
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    let bytes = withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                    return (IPAddress(bytes: bytes), Int(UInt16(bigEndian: pointer.pointee.sin6_port)))
                }
            }
        default:
            return (nil, 0)
        }
    }

    /// Accepts one connection, non-blocking and close-on-exec.
    static func accept(_ listener: Int32) -> (fd: Int32, peer: IPAddress?) {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                accept4(listener, $0, &length, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue))
            }
        }
        guard fd >= 0 else { return (fd, nil) }
        return (fd, peerAddress(storage).ip)
    }

    static func setNoDelay(_ fd: Int32) {
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Monotonic clock in milliseconds.
    static func monotonicMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}
