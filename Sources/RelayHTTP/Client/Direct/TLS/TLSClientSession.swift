import COpenSSL

/// One TLS client connection with no I/O of its own: ciphertext from the socket goes in through
/// `receive`, plaintext comes out of `read`; plaintext goes in through `write`, ciphertext to send
/// comes out of `takeOutput`. OpenSSL reads and writes two memory BIOs (BIO_s_mem(3)), so any loop
/// can drive it and tests need no socket.
///
/// After every call (`handshake`, `read`, `write`, `close`) the caller sends what `takeOutput`
/// gives: handshake messages, alerts and post-handshake replies appear there too.
///
/// Verification is always on: the peer's chain against the context's anchors, and its name
/// against `serverName` (SSL_set1_host(3); for an IP literal X509_VERIFY_PARAM_set1_ip_asc(3)).
/// SNI is sent for a DNS name only (RFC 6066 section 3 forbids literal addresses).
///
/// Not `Sendable`: one thread at a time (the loop that owns the socket). OpenSSL manual pages
/// relied on: SSL_new(3), SSL_set_bio(3), SSL_do_handshake(3), SSL_read_ex(3), SSL_write_ex(3),
/// SSL_get_error(3), SSL_shutdown(3), SSL_get0_alpn_selected(3), SSL_session_reused(3),
/// BIO_s_mem(3), BIO_ctrl_pending(3).
package final class TLSClientSession {
    /// What `read` found besides any plaintext it appended.
    package enum ReadResult: Equatable, Sendable {
        /// Everything received so far is consumed; more ciphertext is needed.
        case needsInput
        /// The peer sent close_notify: the stream ended cleanly.
        case closed
        /// The input ended (`receiveEnd`) without close_notify. Not thrown: whether that is an
        /// error depends on the caller's framing (an HTTP/1.1 body delimited by the connection's
        /// end is truncated; one with a complete Content-Length is not).
        case truncated
    }

    let context: TLSClientContext
    /// `host:port`, the key of the session cache.
    let cacheKey: String
    private let ssl: OpaquePointer
    private let input: OpaquePointer
    private let output: OpaquePointer
    /// Plaintext written before the handshake finished (or refused for now), sent as soon as it can.
    private var pendingPlaintext: [UInt8] = []
    /// Decrypted records land here, then are appended to the caller's buffer.
    private var scratch: UnsafeMutableRawBufferPointer?
    private var inputEnded = false
    private var inputFailed = false
    private var offeredCachedSession = false
    /// Set by any failure: the connection is unusable, and its session not worth keeping.
    private var failed = false

    /// Whether the handshake has completed.
    package private(set) var isHandshakeComplete = false
    /// The protocol the server chose by ALPN (`"h2"`, `"http/1.1"`), nil if none; set by the handshake.
    package private(set) var negotiatedProtocol: String?

    /// A client for `serverName` (a DNS name or an IP literal, IPv6 with or without brackets) on
    /// `port`, offering the session last kept for the same `serverName:port` if any.
    package init(context: TLSClientContext, serverName: String, port: Int) throws(ClientError) {
        var name = serverName
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        guard !name.isEmpty, !name.utf8.contains(0) else { throw .invalidRequest("no server name") }
        ERR_clear_error()
        guard let ssl = SSL_new(context.handle) else { throw TLSErrors.failure("creating a TLS connection") }
        guard let input = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw TLSErrors.failure("creating a memory BIO")
        }
        guard let output = BIO_new(BIO_s_mem()) else {
            BIO_free(input)
            SSL_free(ssl)
            throw TLSErrors.failure("creating a memory BIO")
        }
        // An empty input BIO means "wait for more" (-1 with the retry flag), never end of file.
        relay_BIO_set_mem_eof_return(input, -1)
        SSL_set_bio(ssl, input, output)  // the SSL owns both BIOs from here
        self.context = context
        self.ssl = ssl
        self.input = input
        self.output = output
        cacheKey = "\(name):\(port)"
        SSL_set_connect_state(ssl)
        let isAddress = IPAddress(name) != nil
        let named =
            isAddress
            ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name) == 1
            : SSL_set1_host(ssl, name) == 1 && relay_SSL_set_tlsext_host_name(ssl, name) == 1
        guard named else { throw TLSErrors.failure("setting the server name") }
        // libcurl's host check refuses partial wildcards ("f*.example.com") too.
        SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
        _ = relay_SSL_set_app_data(ssl, Unmanaged.passUnretained(self).toOpaque())
        if let session = context.cachedSession(for: cacheKey), SSL_set_session(ssl, session) == 1 {
            offeredCachedSession = true
        }
        ERR_clear_error()
    }

    deinit {
        // SSL_free(3) marks the session not resumable unless close_notify was sent (SSL_shutdown(3));
        // libcurl shuts down before freeing too, so its sessions survive an idle close. A failed
        // connection's session is already dropped by OpenSSL when the fatal alert goes out.
        if isHandshakeComplete && !failed { close() }
        SSL_free(ssl)  // frees both BIOs
        scratch?.deallocate()
    }

    /// Whether the handshake resumed a kept session (an abbreviated handshake, no certificate sent).
    package var isResumed: Bool { SSL_session_reused(ssl) == 1 }

    /// The protocol version in use, e.g. `"TLSv1.3"`.
    package var protocolVersion: String { String(cString: SSL_get_version(ssl)) }

    /// Whether ciphertext is waiting to be taken by `takeOutput`.
    package var hasOutput: Bool { BIO_ctrl_pending(output) > 0 }

    /// Hands over bytes read from the socket (copied; the buffer can be reused at once).
    package func receive(_ ciphertext: UnsafeRawBufferPointer) {
        guard let base = ciphertext.baseAddress, !ciphertext.isEmpty else { return }
        var written = 0
        // A memory BIO grows to take everything; only an allocation failure stops it.
        if BIO_write_ex(input, base, ciphertext.count, &written) != 1 || written != ciphertext.count {
            inputFailed = true
        }
    }

    /// Says the socket's read side ended (recv returned 0): what is still incomplete then is truncated.
    package func receiveEnd() { inputEnded = true }

    /// Advances the handshake: true once it is complete (then `negotiatedProtocol` is set, and
    /// plaintext written earlier is encrypted), false while it needs more bytes from the peer.
    /// Throws `.tls` for a failed verification, a refused protocol version or a malformed message.
    package func handshake() throws(ClientError) -> Bool {
        if isHandshakeComplete { return true }
        try checkInput()
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        guard result == 1 else {
            if SSL_get_error(ssl, result) == SSL_ERROR_WANT_READ && !inputEnded { return false }
            if offeredCachedSession { context.forgetSession(for: cacheKey) }
            if SSL_get_error(ssl, result) == SSL_ERROR_WANT_READ {
                failed = true
                throw .tls("the connection ended during the TLS handshake")
            }
            throw fail(result)
        }
        isHandshakeComplete = true
        negotiatedProtocol = selectedProtocol()
        try flushPendingPlaintext()
        return true
    }

    /// Encrypts all of `plaintext` into the output (kept and sent once the handshake completes if
    /// it has not yet).
    package func write(_ plaintext: UnsafeRawBufferPointer) throws(ClientError) {
        guard !plaintext.isEmpty else { return }
        if !isHandshakeComplete || !pendingPlaintext.isEmpty {
            pendingPlaintext.append(contentsOf: plaintext)
            if isHandshakeComplete { try flushPendingPlaintext() }
            return
        }
        let written = try encrypt(plaintext)
        if written < plaintext.count { pendingPlaintext.append(contentsOf: plaintext[written...]) }
    }

    /// Appends all plaintext available to `buffer`, then says why it stopped (more input needed,
    /// clean close, truncation). Drives the handshake first if it is not complete. Throws `.tls`
    /// for a record that fails to decrypt or parse (garbage, tampering).
    package func read(into buffer: inout [UInt8]) throws(ClientError) -> ReadResult {
        if !isHandshakeComplete {
            guard try handshake() else { return .needsInput }
        }
        try checkInput()
        try flushPendingPlaintext()
        let scratch = scratchBuffer()
        while true {
            ERR_clear_error()
            var count = 0
            let result = SSL_read_ex(ssl, scratch.baseAddress, scratch.count, &count)
            if result == 1 {
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[..<count]))
                continue
            }
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ:
                ERR_clear_error()
                return inputEnded ? .truncated : .needsInput
            case SSL_ERROR_ZERO_RETURN:
                ERR_clear_error()
                return .closed
            default:
                throw fail(result)
            }
        }
    }

    /// Appends the ciphertext ready to send to `buffer` (the caller sends it all).
    package func takeOutput(into buffer: inout [UInt8]) {
        let pending = Int(BIO_ctrl_pending(output))
        guard pending > 0 else { return }
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: pending))
        var count = 0
        buffer.withUnsafeMutableBytes { bytes in
            _ = BIO_read_ex(output, bytes.baseAddress! + start, pending, &count)
        }
        if count < pending { buffer.removeLast(pending - count) }
    }

    /// Queues close_notify (take the output to send it). Reading after it still works until the
    /// peer's own close_notify.
    package func close() {
        guard isHandshakeComplete else { return }
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    private func encrypt(_ plaintext: UnsafeRawBufferPointer) throws(ClientError) -> Int {
        ERR_clear_error()
        var written = 0
        let result = SSL_write_ex(ssl, plaintext.baseAddress, plaintext.count, &written)
        if result == 1 { return written }
        // Only a renegotiation could make a write wait for the peer, and the context refuses it.
        if SSL_get_error(ssl, result) == SSL_ERROR_WANT_READ {
            ERR_clear_error()
            return 0
        }
        throw fail(result)
    }

    private func fail(_ result: Int32) -> ClientError {
        failed = true
        return TLSErrors.failure(ssl: ssl, result: result)
    }

    private func flushPendingPlaintext() throws(ClientError) {
        guard isHandshakeComplete, !pendingPlaintext.isEmpty else { return }
        let result = pendingPlaintext.withUnsafeBytes { bytes in Result { () throws(ClientError) in try encrypt(bytes) }
        }
        pendingPlaintext.removeFirst(try result.get())
    }

    private func checkInput() throws(ClientError) {
        if inputFailed { throw .tls("out of memory buffering received bytes") }
    }

    private func selectedProtocol() -> String? {
        var name: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &name, &length)
        guard let name, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: name, count: Int(length)), as: UTF8.self)
    }

    /// One maximal TLS record of plaintext (16 KiB, RFC 8446 section 5.1), allocated on first read.
    private func scratchBuffer() -> UnsafeMutableRawBufferPointer {
        if let scratch { return scratch }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16_384, alignment: 16)
        scratch = buffer
        return buffer
    }
}
