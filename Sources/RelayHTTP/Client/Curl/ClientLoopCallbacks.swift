import CCurl

// libcurl's multi callbacks, run on the loop thread inside curl_multi_* calls made there. They
// only record what libcurl asked for; the loop acts on it.

/// Watch (or stop watching) one socket.
let clientLoopSocket: curl_socket_callback = { _, socket, what, context, _ in
    guard let context else { return -1 }
    Unmanaged<ClientLoop>.fromOpaque(context).takeUnretainedValue().watch(socket, what: what)
    return 0
}

/// Call `CURL_SOCKET_TIMEOUT` in `milliseconds` (0: as soon as possible; -1: no timer).
let clientLoopTimer: curl_multi_timer_callback = { _, milliseconds, context in
    guard let context else { return -1 }
    let loop = Unmanaged<ClientLoop>.fromOpaque(context).takeUnretainedValue()
    loop.deadline = milliseconds < 0 ? nil : ClientLoop.monotonicMilliseconds() + Int64(milliseconds)
    return 0
}
