import CNghttp2

/// An HTTP/2 client session (RFC 9113) over libnghttp2, I/O-free: the caller feeds it the
/// plaintext the peer sent (`receive`), writes out what it produces (`takeOutput`) and takes the
/// per-stream events (`takeEvents`). It owns no socket and no TLS, never blocks, and is used by
/// one thread at a time (the direct client's loop), so it is neither `Sendable` nor locked.
///
/// Events are collected and taken, not delivered to a delegate: nghttp2 calls back from inside
/// `nghttp2_session_mem_recv`, where the caller must not re-enter the session (submit, cancel), and
/// a list taken afterwards lets it act on each event with the session at rest.
package final class H2Session {
    /// The session's settings.
    package struct Configuration: Sendable {
        /// Each stream's response limit (header bytes plus body) unless the request sets its own.
        package var maxResponseBytes: Int
        /// SETTINGS_INITIAL_WINDOW_SIZE: how much each stream may send before a WINDOW_UPDATE.
        package var streamWindow: Int32
        /// The connection's receive window, raised from the protocol's 65,535 bytes at once.
        package var connectionWindow: Int32
        /// SETTINGS_MAX_HEADER_LIST_SIZE (RFC 9113 §6.5.2), advertised to the peer.
        package var maxHeaderListSize: UInt32

        /// Windows large enough that a response of a few MiB never waits for a WINDOW_UPDATE
        /// round trip (nghttp2 sends one when half a window is consumed).
        package init(
            maxResponseBytes: Int = 8 << 20, streamWindow: Int32 = 1 << 20, connectionWindow: Int32 = 16 << 20,
            maxHeaderListSize: UInt32 = 64 << 10
        ) {
            self.maxResponseBytes = maxResponseBytes
            self.streamWindow = streamWindow
            self.connectionWindow = connectionWindow
            self.maxHeaderListSize = maxHeaderListSize
        }
    }

    let configuration: Configuration
    let session: OpaquePointer
    /// The streams submitted and not yet closed by nghttp2 (cancelled and failed ones too, until
    /// their RST_STREAM is sent: they still count against the peer's limit).
    var streams: [Int32: H2Stream] = [:]
    var events: [H2Event] = []
    /// The session failed (a connection error, or nghttp2 itself failed): no more I/O but output.
    private(set) var dead = false
    private(set) var goAwayReceived = false
    private var goAwaySubmitted = false
    /// The library's code for the last invalid frame, for a connection error's message (never
    /// nghttp2's own text, which can quote header values).
    var invalidFrameError: Int32 = 0
    /// Fields whose values are longer than a small string and repeat from one response to the next
    /// on a connection (`date` changes once a second). Never a field that carries a secret or an id.
    static let repeatingValueNames: [String] = [
        "date", "content-type", "access-control-expose-headers", "strict-transport-security", "x-responding-instance",
        "access-control-allow-origin", "cache-control", "x-apple-cloudkit-version",
    ]
    /// The last value of each of `repeatingValueNames` (by position): reused for the next response
    /// when its bytes are the same, instead of a heap string per response.
    var lastRepeatingValues = [String?](repeating: nil, count: repeatingValueNames.count)
    /// `submit`'s scratch space, kept between calls: every name and value back to back, their
    /// offsets, and the `nghttp2_nv` array pointing into them.
    var fieldBytes: [UInt8] = []
    var fieldOffsets: [Int] = []
    var fieldVectors: [nghttp2_nv] = []

    /// A session with the connection preface, SETTINGS (ENABLE_PUSH 0, the stream window, the
    /// header list limit) and a WINDOW_UPDATE for the connection queued: the caller's first
    /// `takeOutput` sends them.
    package init(configuration: Configuration = Configuration()) throws(ClientError) {
        self.configuration = configuration
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
            throw .transport("HTTP/2: out of memory")
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        Self.install(callbacks)
        var created: OpaquePointer?
        guard nghttp2_session_client_new(&created, callbacks, nil) == 0, let created else {
            throw .transport("HTTP/2: out of memory")
        }
        session = created
        nghttp2_session_set_user_data(session, Unmanaged.passUnretained(self).toOpaque())
        let settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue),
                value: UInt32(configuration.streamWindow)),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                value: configuration.maxHeaderListSize),
        ]
        let none = UInt8(NGHTTP2_FLAG_NONE.rawValue)
        guard nghttp2_submit_settings(session, none, settings, settings.count) == 0,
            nghttp2_session_set_local_window_size(session, none, 0, configuration.connectionWindow) == 0
        else { throw .transport("HTTP/2: the settings were refused") }
    }

    deinit { nghttp2_session_del(session) }

    /// Whether the connection still has a use: false once the session failed, or when a GOAWAY
    /// (either side's) has left no stream to finish. The caller then closes the connection.
    package var isAlive: Bool {
        !dead && (nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0)
    }

    /// How many more streams `submit` may open now: the peer's SETTINGS_MAX_CONCURRENT_STREAMS
    /// (100 until its SETTINGS arrive, nghttp2's default) minus the open ones; 0 after a GOAWAY
    /// either way or once the session failed.
    package var availableStreams: Int {
        guard !dead, !goAwaySubmitted, nghttp2_session_check_request_allowed(session) != 0 else { return 0 }
        let limit = Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
        return max(0, limit - streams.count)
    }

    /// Feeds bytes the peer sent (plaintext). Events they cause wait in `takeEvents`; frames they
    /// call for (SETTINGS and PING ACKs, WINDOW_UPDATEs, RST_STREAMs) in `takeOutput`.
    /// Throws `.transport` on a connection error: the session is then dead (its GOAWAY is still
    /// in `takeOutput`), and the caller fails every stream it still has open on it with the error.
    package func receive(_ bytes: UnsafeRawBufferPointer) throws(ClientError) {
        guard !dead else { throw .transport("HTTP/2: the session is closed") }
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let consumed = nghttp2_session_mem_recv(session, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        if consumed < 0 {
            dead = true
            throw .transport("HTTP/2: \(String(cString: nghttp2_strerror(Int32(consumed))))")
        }
        // A connection error makes nghttp2 queue GOAWAY and ignore the rest, without telling the
        // caller: a session that now refuses new streams with no GOAWAY from either side is one.
        if !goAwayReceived, !goAwaySubmitted, nghttp2_session_check_request_allowed(session) == 0 {
            dead = true
            let reason =
                invalidFrameError == 0 ? "protocol error" : String(cString: nghttp2_strerror(invalidFrameError))
            throw .transport("HTTP/2 connection error: \(reason)")
        }
    }

    /// Appends every byte nghttp2 wants to send now (`nghttp2_session_mem_send` until it has
    /// nothing left).
    package func takeOutput(into buffer: inout [UInt8]) {
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            guard count > 0, let data else {
                if count < 0 { dead = true }
                return
            }
            buffer.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
        }
    }

    /// Appends the events collected since the last call, oldest first.
    package func takeEvents(into buffer: inout [H2Event]) {
        buffer.append(contentsOf: events)
        events.removeAll(keepingCapacity: true)
    }

    /// Resets a stream with CANCEL; no event follows for it.
    package func cancel(stream id: Int32) {
        guard let stream = streams[id], !stream.finished else { return }
        stream.finished = true
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_CANCEL.rawValue)
    }

    /// A clean shutdown: GOAWAY(NO_ERROR) so the peer opens nothing, no new stream here, and the
    /// open ones finish; `isAlive` turns false when they have.
    package func goAway() {
        guard !dead, !goAwaySubmitted else { return }
        goAwaySubmitted = true
        _ = nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, NGHTTP2_NO_ERROR.rawValue, nil, 0)
    }

    /// Records a stream's end for the caller (called from the callbacks).
    func fail(_ stream: H2Stream, id: Int32) {
        stream.finished = true
        stream.body = []
        stream.headers = HTTPHeaders()
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_CANCEL.rawValue)
        events.append(.failed(stream: id, error: .responseTooLarge(limit: stream.limit)))
    }

    func noteGoAway(lastStreamID: Int32, errorCode: UInt32) {
        goAwayReceived = true
        events.append(.goAway(lastStreamID: lastStreamID, errorCode: errorCode))
    }
}
