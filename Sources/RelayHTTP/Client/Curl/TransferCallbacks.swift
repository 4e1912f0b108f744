import CCurl

#if canImport(Glibc)
    import Glibc
#endif

// libcurl callbacks: plain C functions that find their `Transfer` through the user-data pointer.
// Returning a short count from a write callback makes libcurl abort the transfer.

let transferWriteBody: curl_write_callback = { data, size, count, context in
    guard let data, let context else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.appendBody(UnsafeRawPointer(data), size * count) ? size * count : 0
}

let transferWriteHeader: curl_write_callback = { data, size, count, context in
    guard let data, let context else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.appendHeaderLine(UnsafeRawPointer(data), size * count) ? size * count : 0
}

/// Sees the exact address before every connect, so a policy cannot be dodged by DNS tricks
/// (rebinding, a second A record, an IPv4-mapped IPv6 literal).
let transferOpenSocket: curl_opensocket_callback = { context, purpose, address in
    guard let context, let address else { return CURL_SOCKET_BAD }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    let peer = peerAddress(address)
    guard transfer.allow(peer) else { return CURL_SOCKET_BAD }
    let fd = socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
    // Close-on-exec, so child processes (tools the relay or its tests start) never inherit it.
    // (fcntl, not SOCK_CLOEXEC: using that constant in this file made release builds fail with
    // "cannot find 'SOCK_STREAM'" in Server/Epoll/Socket.swift; curl.h and Glibc both bring in
    // the <sys/socket.h> enum.)
    if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return fd
}

private func peerAddress(_ address: UnsafeMutablePointer<curl_sockaddr>) -> IPAddress? {
    let raw = UnsafeRawPointer(relay_curl_sockaddr_address(address)!)
    switch Int32(address.pointee.family) {
    case AF_INET:
        var v4 = raw.loadUnaligned(as: sockaddr_in.self).sin_addr
        return IPAddress(bytes: withUnsafeBytes(of: &v4) { Array($0) })
    case AF_INET6:
        guard Int(address.pointee.addrlen) >= MemoryLayout<sockaddr_in6>.size else { return nil }
        var v6 = raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr
        return IPAddress(bytes: withUnsafeBytes(of: &v6) { Array($0) })
    default:
        return nil  // unix sockets and anything else: refused under `.publicOnly`
    }
}
