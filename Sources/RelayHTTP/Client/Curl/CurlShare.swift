import CCurl

#if canImport(Glibc)
    import Glibc
#endif

/// Owns the share handle through which every easy handle of one client shares TLS sessions: a
/// new connection to an origin resumes the session of an earlier one (an abbreviated handshake)
/// whichever pooled easy handle opens it. Without it each easy handle keeps sessions of its own,
/// and a connection opened by a handle that never met the origin pays a full handshake.
///
/// `@unchecked Sendable`: libcurl calls the lock functions below around every use of the shared
/// data (the loop thread uses it; an easy handle freed on another thread detaches under the
/// same locks); the handle itself is set up in `init` and freed in `deinit`, after every easy
/// handle using it (each keeps it alive).
final class CurlShare: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    /// One mutex per `curl_lock_data` kind, so libcurl may hold two kinds at once.
    private let locks: UnsafeMutablePointer<pthread_mutex_t>
    private static let lockCount = Int(CURL_LOCK_DATA_LAST.rawValue)

    init?() {
        guard CurlGlobal.initialized, let handle = curl_share_init() else { return nil }
        self.handle = handle
        locks = .allocate(capacity: Self.lockCount)
        for index in 0..<Self.lockCount { pthread_mutex_init(locks + index, nil) }
        _ = relay_curl_share_setopt_lock(handle, curlShareLock)
        _ = relay_curl_share_setopt_unlock(handle, curlShareUnlock)
        _ = relay_curl_share_setopt_pointer(handle, CURLSHOPT_USERDATA, UnsafeMutableRawPointer(locks))
        _ = relay_curl_share_setopt_long(handle, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue))
    }

    deinit {
        curl_share_cleanup(handle)
        for index in 0..<Self.lockCount { pthread_mutex_destroy(locks + index) }
        locks.deallocate()
    }
}

private let curlShareLock: curl_lock_function = { _, data, _, locks in
    guard let locks, Int(data.rawValue) < Int(CURL_LOCK_DATA_LAST.rawValue) else { return }
    pthread_mutex_lock(locks.assumingMemoryBound(to: pthread_mutex_t.self) + Int(data.rawValue))
}

private let curlShareUnlock: curl_unlock_function = { _, data, locks in
    guard let locks, Int(data.rawValue) < Int(CURL_LOCK_DATA_LAST.rawValue) else { return }
    pthread_mutex_unlock(locks.assumingMemoryBound(to: pthread_mutex_t.self) + Int(data.rawValue))
}
