import CCurl

/// libcurl's process-wide setup, run once before the first handle is made.
enum CurlGlobal {
    /// Evaluated lazily and exactly once (Swift guarantees thread-safe initialisation of globals).
    static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
}

/// Owns one easy handle.
///
/// `@unchecked Sendable`: the handle is configured on the thread that creates it and afterwards
/// used only by the client's loop thread; the hand-over goes through a lock (the loop's inbox).
final class CurlEasy: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    init?() {
        guard CurlGlobal.initialized, let handle = curl_easy_init() else { return nil }
        self.handle = handle
    }

    deinit { curl_easy_cleanup(handle) }

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

    deinit { curl_slist_free_all(head) }
}

/// Owns the multi handle: the connection pool, DNS cache and HTTP/2 multiplexing live here.
///
/// `@unchecked Sendable`: used by the loop thread only, except `wakeup`, which libcurl allows
/// from any thread.
final class CurlMulti: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    init?(maxIdleConnections: Int, maxConnectionsPerHost: Int) {
        guard CurlGlobal.initialized, let handle = curl_multi_init() else { return nil }
        self.handle = handle
        _ = relay_curl_multi_setopt_long(handle, CURLMOPT_MAXCONNECTS, max(1, maxIdleConnections))
        _ = relay_curl_multi_setopt_long(handle, CURLMOPT_MAX_HOST_CONNECTIONS, max(0, maxConnectionsPerHost))
        _ = relay_curl_multi_setopt_long(handle, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
    }

    deinit { curl_multi_cleanup(handle) }

    /// Interrupts a `curl_multi_poll` in progress; safe from any thread.
    func wakeup() { _ = curl_multi_wakeup(handle) }
}
