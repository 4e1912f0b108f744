import COpenSSL

/// The TLS settings one `HTTPClient` shares across its direct connections: an OpenSSL `SSL_CTX`
/// that always verifies the peer, a TLS 1.2 minimum, the ALPN list, and the last good session per
/// `host:port` so a reconnection resumes instead of doing a full handshake.
///
/// Trust matches the libcurl client (`Transfer.configure`): Debian's libcurl is built with both a
/// CA bundle and a CA directory (`/etc/ssl/certs`), and `CURLOPT_CAINFO` replaces only the bundle,
/// so the system anchors stay trusted and the CA file *adds* anchors (`curl -v --cacert` prints
/// both `CAfile` and `CApath: /etc/ssl/certs`). Here: OpenSSL's default paths (the same
/// `/etc/ssl/certs`), then the CA file on top. Like libcurl since 7.68
/// (`CURLSSLOPT_NO_PARTIALCHAIN` is its opt-out), a trusted intermediate is accepted as an anchor.
///
/// Not `Sendable`: one thread (the direct client's loop) creates sessions from it, and OpenSSL
/// calls back into its session cache on that thread. OpenSSL manual pages relied on:
/// SSL_CTX_new(3), SSL_CTX_set_verify(3), SSL_CTX_load_verify_locations(3),
/// SSL_CTX_set_min_proto_version(3), SSL_CTX_set_alpn_protos(3), SSL_CTX_sess_set_new_cb(3),
/// SSL_CTX_set_session_cache_mode(3), SSL_set_session(3), X509_STORE_set_flags(3).
package final class TLSClientContext {
    let handle: OpaquePointer
    /// Resumable sessions by `host:port`, each holding one reference (freed when replaced).
    private var sessions: [String: OpaquePointer] = [:]
    /// Keys oldest first, for eviction past `maxCachedSessions`.
    private var sessionOrder: [String] = []
    private let maxCachedSessions: Int

    /// A context trusting the system store plus `caFile` (a PEM bundle) if given, offering
    /// `alpn` (e.g. `["h2", "http/1.1"]`, most preferred first; empty offers none), and keeping
    /// the last session of at most `maxCachedSessions` origins.
    package init(caFile: String? = nil, alpn: [String] = [], maxCachedSessions: Int = 64) throws(ClientError) {
        ERR_clear_error()
        guard let handle = SSL_CTX_new(TLS_client_method()) else { throw TLSErrors.failure("creating the TLS context") }
        self.handle = handle
        self.maxCachedSessions = max(1, maxCachedSessions)
        SSL_CTX_set_verify(handle, SSL_VERIFY_PEER, nil)
        guard SSL_CTX_set_default_verify_paths(handle) == 1 else {
            throw TLSErrors.failure("loading the system trust store")
        }
        if let caFile, SSL_CTX_load_verify_locations(handle, caFile, nil) != 1 {
            throw TLSErrors.failure("loading the CA file")
        }
        X509_STORE_set_flags(SSL_CTX_get_cert_store(handle), UInt(X509_V_FLAG_PARTIAL_CHAIN))
        guard relay_SSL_CTX_set_min_proto_version(handle, TLS1_2_VERSION) == 1 else {
            throw TLSErrors.failure("setting the minimum TLS version")
        }
        // HTTP/2 forbids renegotiation (RFC 9113 section 9.2.1) and the relay presents no client
        // certificate; refusing it also means a write never has to wait for the peer.
        relay_SSL_CTX_refuse_renegotiation(handle)
        // A write retried after a "want read" may come from a buffer that has moved.
        _ = relay_SSL_CTX_set_mode(handle, Int(SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        try Self.setALPN(alpn, on: handle)
        // Client caching with no internal store: the callback hands each new session here.
        _ = relay_SSL_CTX_set_session_cache_mode(
            handle, Int(SSL_SESS_CACHE_CLIENT) | Int(SSL_SESS_CACHE_NO_INTERNAL_STORE))
        SSL_CTX_sess_set_new_cb(handle, tlsClientNewSession)
        ERR_clear_error()
    }

    deinit {
        for session in sessions.values { SSL_SESSION_free(session) }
        SSL_CTX_free(handle)
    }

    /// Trust anchors (and CRLs) loaded now: the system bundle, plus the CA file's.
    package var trustAnchorCount: Int { Int(relay_X509_STORE_object_count(SSL_CTX_get_cert_store(handle))) }

    /// The lowest protocol version allowed, as on the wire (0x0303 is TLS 1.2).
    package var minimumProtocolVersion: Int { Int(relay_SSL_CTX_get_min_proto_version(handle)) }

    /// Origins with a session kept for resumption.
    package var cachedSessionCount: Int { sessions.count }

    /// The session to offer for `key`, if one is kept and still resumable (not expired).
    func cachedSession(for key: String) -> OpaquePointer? {
        guard let session = sessions[key] else { return nil }
        if SSL_SESSION_is_resumable(session) == 1 { return session }
        forgetSession(for: key)
        return nil
    }

    /// Keeps `session` (whose reference the caller gives up) as the one to resume for `key`.
    func keepSession(_ session: OpaquePointer, for key: String) {
        if let old = sessions.updateValue(session, forKey: key) {
            SSL_SESSION_free(old)
            sessionOrder.removeAll { $0 == key }
        }
        sessionOrder.append(key)
        if sessionOrder.count > maxCachedSessions { forgetSession(for: sessionOrder[0]) }
    }

    /// Drops the session kept for `key` (its handshake failed: do not offer it again).
    func forgetSession(for key: String) {
        guard let session = sessions.removeValue(forKey: key) else { return }
        SSL_SESSION_free(session)
        sessionOrder.removeAll { $0 == key }
    }

    /// The ALPN list in its wire form: each name preceded by its length (RFC 7301 section 3.1).
    private static func setALPN(_ protocols: [String], on handle: OpaquePointer) throws(ClientError) {
        guard !protocols.isEmpty else { return }
        var wire: [UInt8] = []
        for name in protocols {
            guard (1...255).contains(name.utf8.count) else { throw .invalidRequest("an ALPN name of 1 to 255 bytes") }
            wire.append(UInt8(name.utf8.count))
            wire.append(contentsOf: name.utf8)
        }
        // Unlike most of OpenSSL, this one returns 0 on success.
        guard SSL_CTX_set_alpn_protos(handle, wire, UInt32(wire.count)) == 0 else {
            throw TLSErrors.failure("setting the ALPN list")
        }
    }
}

/// OpenSSL's new-session callback: the session belongs to the `TLSClientSession` stored as the
/// `SSL`'s app data. Returning 1 keeps the reference OpenSSL passed (SSL_CTX_sess_set_new_cb(3)).
/// It runs only inside that session's own calls (handshake, and reads for TLS 1.3 tickets, which
/// arrive after the handshake), so the session is alive and on its thread.
private func tlsClientNewSession(_ ssl: OpaquePointer?, _ session: OpaquePointer?) -> Int32 {
    guard let ssl, let session, let owner = relay_SSL_get_app_data(ssl) else { return 0 }
    let client = Unmanaged<TLSClientSession>.fromOpaque(owner).takeUnretainedValue()
    client.context.keepSession(session, for: client.cacheKey)
    return 1
}
