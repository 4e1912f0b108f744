import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// A socket address to connect to (IPv4 or IPv6, port included).
struct DirectAddress: @unchecked Sendable {
    // `@unchecked Sendable`: a plain C struct of bytes, copied by value.
    var storage = sockaddr_storage()
    var length: socklen_t = 0

    init(_ ip: IPAddress, port: Int) {
        if ip.isIPv4 {
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    pointer.pointee.sin_family = sa_family_t(AF_INET)
                    pointer.pointee.sin_port = UInt16(port).bigEndian
                    withUnsafeMutableBytes(of: &pointer.pointee.sin_addr) { $0.copyBytes(from: ip.bytes[12...]) }
                }
            }
        } else {
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    pointer.pointee.sin6_family = sa_family_t(AF_INET6)
                    pointer.pointee.sin6_port = UInt16(port).bigEndian
                    withUnsafeMutableBytes(of: &pointer.pointee.sin6_addr) { $0.copyBytes(from: ip.bytes) }
                }
            }
        }
    }

    init(_ address: UnsafePointer<sockaddr>, length: socklen_t) {
        self.length = min(length, socklen_t(MemoryLayout<sockaddr_storage>.size))
        withUnsafeMutableBytes(of: &storage) {
            $0.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(self.length)))
        }
    }

    var family: Int32 { Int32(storage.ss_family) }
}

/// The system calls the direct client makes on its sockets; every one is non-blocking.
enum DirectSocket {
    /// A non-blocking, close-on-exec TCP socket with `TCP_NODELAY`, its connect started. Returns
    /// the fd, or -errno.
    static func startConnect(_ address: DirectAddress) -> Int32 {
        let fd = socket(
            address.family, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return -errno }
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = address
        let result = withUnsafePointer(to: &address.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, address.length) }
        }
        if result != 0 && errno != EINPROGRESS {
            let code = errno
            close(fd)
            return -code
        }
        return fd
    }

    /// The outcome of a connect in progress (`SO_ERROR`): 0 when connected.
    static func connectError(_ fd: Int32) -> Int32 {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else { return errno }
        return code
    }

    /// Whether an idle kept-alive connection is still usable: nothing to read and no EOF
    /// (`recv` with `MSG_PEEK`; an idle HTTP/1.1 connection has nothing to say, so any byte, an
    /// EOF or an error means it is dead).
    static func isQuiet(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
    }

    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
