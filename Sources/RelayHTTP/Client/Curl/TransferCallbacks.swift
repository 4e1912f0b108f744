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
    // Close-on-exec, so child processes (tools the relay or its tests start) never inherit it.
    return socket(
        address.pointee.family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue), address.pointee.protocol)
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
