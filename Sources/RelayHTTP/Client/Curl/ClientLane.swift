import CCurl

/// One of the client loop's two multi handles, each a connection pool of its own (see
/// `OriginRouter`): `multiplexed` caps connections per host and makes new exchanges wait for a
/// stream on one (`CURLOPT_PIPEWAIT`); `parallel` opens a connection per exchange in flight when
/// the origin cannot multiplex, and carries plain `http`, pinned and policy-checked exchanges.
///
/// `@unchecked Sendable`: used by the loop thread only; libcurl calls the socket and timer
/// callbacks (below) inside `curl_multi_*` calls made there.
final class ClientLane: @unchecked Sendable {
    enum Kind: Int {
        case multiplexed = 0
        case parallel = 1
    }

    let kind: Kind
    let multi: CurlMulti
    private let poller: ClientPoller
    /// When libcurl wants `CURL_SOCKET_TIMEOUT` next (ms on the monotonic clock); nil: no timer.
    var deadline: Int64?
    /// Transfers in this lane's multi handle.
    var transfers = 0

    init?(_ kind: Kind, poller: ClientPoller, configuration: HTTPClientConfiguration) {
        let perHost =
            kind == .multiplexed ? configuration.maxMultiplexedConnectionsPerHost : configuration.maxConnectionsPerHost
        guard
            let multi = CurlMulti(
                maxIdleConnections: configuration.maxIdleConnections, maxConnectionsPerHost: perHost,
                maxStreamsPerConnection: configuration.maxStreamsPerConnection)
        else { return nil }
        self.kind = kind
        self.multi = multi
        self.poller = poller
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = relay_curl_multi_setopt_socket(multi.handle, clientLaneSocket)
        _ = relay_curl_multi_setopt_pointer(multi.handle, CURLMOPT_SOCKETDATA, context)
        _ = relay_curl_multi_setopt_timer(multi.handle, clientLaneTimer)
        _ = relay_curl_multi_setopt_pointer(multi.handle, CURLMOPT_TIMERDATA, context)
    }

    /// libcurl's socket callback: watch `fd` as asked, tagged with this lane.
    func watch(_ fd: Int32, what: Int32) {
        poller.watch(
            fd, lane: kind.rawValue, read: what == CURL_POLL_IN || what == CURL_POLL_INOUT,
            write: what == CURL_POLL_OUT || what == CURL_POLL_INOUT)
    }

    /// Tells libcurl what a socket is ready for.
    func act(on ready: ClientPoller.Ready) {
        var mask: Int32 = 0
        if ready.readable { mask |= CURL_CSELECT_IN }
        if ready.writable { mask |= CURL_CSELECT_OUT }
        if ready.failed { mask |= CURL_CSELECT_ERR }
        var running: Int32 = 0
        curl_multi_socket_action(multi.handle, ready.fd, mask, &running)
    }

    /// Runs libcurl's timer if it is due.
    func runTimer(now: Int64) {
        guard let deadline, deadline <= now else { return }
        self.deadline = nil
        var running: Int32 = 0
        curl_multi_socket_action(multi.handle, CURL_SOCKET_TIMEOUT, 0, &running)
    }

    /// Stops the callbacks: the multi handle may outlive the loop's thread, and its cleanup must
    /// not call back.
    func detach() {
        _ = relay_curl_multi_setopt_socket(multi.handle, nil)
        _ = relay_curl_multi_setopt_timer(multi.handle, nil)
    }
}

// libcurl's multi callbacks, run on the loop thread inside curl_multi_* calls made there. They
// only record what libcurl asked for; the loop acts on it.

/// Watch (or stop watching) one socket.
private let clientLaneSocket: curl_socket_callback = { _, socket, what, context, _ in
    guard let context else { return -1 }
    Unmanaged<ClientLane>.fromOpaque(context).takeUnretainedValue().watch(socket, what: what)
    return 0
}

/// Call `CURL_SOCKET_TIMEOUT` in `milliseconds` (0: as soon as possible; -1: no timer).
private let clientLaneTimer: curl_multi_timer_callback = { _, milliseconds, context in
    guard let context else { return -1 }
    let lane = Unmanaged<ClientLane>.fromOpaque(context).takeUnretainedValue()
    lane.deadline = milliseconds < 0 ? nil : ClientLoop.monotonicMilliseconds() + Int64(milliseconds)
    return 0
}
