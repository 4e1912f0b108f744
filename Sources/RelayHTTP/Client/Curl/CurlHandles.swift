import CCurl
import RelaySync

/// libcurl's process-wide setup, run once before the first handle is made.
enum CurlGlobal {
    /// Evaluated lazily and exactly once (Swift guarantees thread-safe initialisation of globals).
    static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
}

/// Owns one easy handle.
///
/// `@unchecked Sendable`: one thread at a time uses a handle. It is configured by the sending
/// task, then used only by the client's loop thread, then reset and parked in `CurlEasyPool`;
/// every hand-over goes through a lock (the loop's inbox, the pool's mutex).
final class CurlEasy: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    /// The share handle this one uses, kept alive as long as this handle is (libcurl must free
    /// an easy handle before the share it uses). Set by the loop thread only.
    private var share: CurlShare?

    init?() {
        guard CurlGlobal.initialized, let handle = curl_easy_init() else { return nil }
        self.handle = handle
    }

    deinit { curl_easy_cleanup(handle) }

    /// Back to a fresh state for the next transfer (connections stay in the multi handle's pool;
    /// the share handle stays attached).
    func reset() { curl_easy_reset(handle) }

    /// Uses `share` from now on (a no-op when it already does).
    func attach(_ share: CurlShare) {
        guard self.share !== share else { return }
        _ = relay_curl_setopt_pointer(handle, CURLOPT_SHARE, share.handle)
        self.share = share
    }

    @discardableResult
    func set(_ option: CURLoption, _ value: Int) -> Bool {
        relay_curl_setopt_long(handle, option, value) == CURLE_OK
    }

    @discardableResult
    func set(_ option: CURLoption, _ value: String) -> Bool {
        relay_curl_setopt_string(handle, option, value) == CURLE_OK
    }

    @discardableResult
    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) -> Bool {
        relay_curl_setopt_pointer(handle, option, pointer) == CURLE_OK
    }

    func info(_ item: CURLINFO) -> Int {
        var value = 0
        _ = relay_curl_getinfo_long(handle, item, &value)
        return value
    }
}

/// Owns a `curl_slist` (header lines, connect-to entries).
final class CurlList: @unchecked Sendable {  // same hand-over rule as CurlEasy
    private(set) var head: UnsafeMutablePointer<curl_slist>?

    init(_ lines: [String]) {
        for line in lines { head = curl_slist_append(head, line) }
    }

    /// Appends a copy of the NUL-terminated `line`.
    func append(_ line: UnsafePointer<CChar>) { head = curl_slist_append(head, line) }

    deinit { curl_slist_free_all(head) }
}

/// Owns a multi handle: a connection pool, DNS cache and HTTP/2 multiplexing live here.
///
/// `@unchecked Sendable`: used by the loop thread only (callers wake the loop through its
/// poller, not through this handle).
final class CurlMulti: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    /// `maxConnectionsPerHost` 0: no limit; beyond a limit, libcurl queues a transfer until a
    /// connection (or, with HTTP/2, a stream on one) is free.
    init?(maxIdleConnections: Int, maxConnectionsPerHost: Int, maxStreamsPerConnection: Int) {
        guard CurlGlobal.initialized, let handle = curl_multi_init() else { return nil }
        self.handle = handle
        _ = relay_curl_multi_setopt_long(handle, CURLMOPT_MAXCONNECTS, max(1, maxIdleConnections))
        _ = relay_curl_multi_setopt_long(handle, CURLMOPT_MAX_HOST_CONNECTIONS, max(0, maxConnectionsPerHost))
        _ = relay_curl_multi_setopt_long(handle, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        _ = relay_curl_multi_setopt_long(handle, CURLMOPT_MAX_CONCURRENT_STREAMS, max(1, maxStreamsPerConnection))
    }

    deinit { curl_multi_cleanup(handle) }
}

/// Idle easy handles, reused by the next request.
final class CurlEasyPool: Sendable {
    private let idle = Locked<[CurlEasy]>([])
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    /// An idle handle, or nil (the caller makes a new one).
    func take() -> CurlEasy? { idle.withLock { $0.popLast() } }

    /// Takes back a handle whose transfer has finished and left the multi handle.
    func recycle(_ easy: CurlEasy) {
        easy.reset()
        idle.withLock { handles in
            if handles.count < limit { handles.append(easy) }
        }
    }
}
