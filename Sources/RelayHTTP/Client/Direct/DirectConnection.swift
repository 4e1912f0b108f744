#if canImport(Glibc)
    import Glibc
#endif

/// The bytes between a connection's socket and its codec.
///
/// The seam for TLS: `case tls(TLSClientSession)` (branch `i17-tls`, memory BIOs) comes next. Its
/// connection feeds received ciphertext to `receive(_:)` and reads plaintext out with `read(into:)`
/// into the same inbound buffer the plain channel `recv`s into, so the codec never knows; outbound
/// plaintext goes through `write(_:)` and `takeOutput(into:)` into the outbound buffer the loop
/// sends from; the handshake runs between `connected` and the first exchange (`DirectConnection.
/// State.handshaking`), driven by the same readable/writable events.
enum DirectChannel {
    /// Plain TCP: received bytes are the plaintext, outbound bytes go out as they are.
    case plain
}

/// How a connection frames exchanges.
///
/// The seam for HTTP/2: `case http2(H2Session)` (branch `i17-h2`, I/O-free) comes next. A
/// connection then carries many exchanges (`submit(request) -> streamID`, per-stream events,
/// `availableStreams`) instead of one, and the pool hands it out while it has free streams rather
/// than only when idle; `DirectLoop.start(_:on:)` and `DirectLoop.received(on:)` are the two places
/// that switch on the codec.
enum DirectCodec {
    /// One exchange at a time, `H1ResponseParser` reading the response.
    case http1
}

/// One upstream connection of the direct loop: its socket, channel, codec, buffers and the
/// exchange it carries.
///
/// Used by the loop thread only (never crosses threads).
final class DirectConnection {
    enum State {
        /// `connect` in progress (to `addresses[nextAddress - 1]`).
        case connecting
        /// Connected, carrying `exchange`.
        case busy
        /// Connected, in the origin's idle pool.
        case idle
        case closed
    }

    /// The epoll tag: unique for the loop's lifetime, so a stale event never reaches a new socket
    /// that reused the fd.
    let id: UInt64
    let origin: String
    var fd: Int32 = -1
    var state = State.connecting
    var channel = DirectChannel.plain
    var codec = DirectCodec.http1
    var parser = H1ResponseParser()
    var exchange: DirectExchange?
    /// Where to connect, tried in order until one answers.
    var addresses: [DirectAddress]
    var nextAddress = 0
    /// When the connect must have succeeded (ms, monotonic).
    var connectDeadline: Int64 = .max
    /// The first failure while connecting, reported when every address failed.
    var connectError: Int32 = 0
    /// Whether an earlier exchange completed on it (a failure before any byte of the response may
    /// then be a stale connection rather than a server fault).
    var reused = false
    /// Bytes of the current exchange's request written so far.
    var written = 0
    /// Received bytes not yet consumed by the codec: `inbound[consumed..<filled]`. Grows only for
    /// a head larger than it; reused by every exchange on the connection.
    var inbound: [UInt8]
    var consumed = 0
    var filled = 0
    /// When it went idle (ms, monotonic), for the idle age limit.
    var idleSince: Int64 = 0

    static let inboundSize = 16 * 1024

    init(id: UInt64, origin: String, addresses: [DirectAddress]) {
        self.id = id
        self.origin = origin
        self.addresses = addresses
        inbound = [UInt8](repeating: 0, count: Self.inboundSize)
    }

    /// Closes the socket (epoll forgets it with the last reference).
    func close() {
        if fd >= 0 { _ = Glibc.close(fd) }
        fd = -1
        state = .closed
    }

    enum ReadOutcome {
        /// Bytes arrived (`filled` moved).
        case data
        /// Nothing more for now.
        case wouldBlock
        /// The peer closed.
        case end
        case failed(Int32)
    }

    /// One `recv` into the free end of `inbound` (compacting or growing it first when full).
    func readSome() -> ReadOutcome {
        if consumed == filled {
            consumed = 0
            filled = 0
        }
        if filled == inbound.count {
            if consumed > 0 {
                inbound.withUnsafeMutableBytes { buffer in
                    let base = buffer.baseAddress!
                    base.copyMemory(from: base + consumed, byteCount: filled - consumed)
                }
                filled -= consumed
                consumed = 0
            } else {
                inbound.append(contentsOf: repeatElement(0, count: inbound.count))
            }
        }
        while true {
            let count = inbound.withUnsafeMutableBytes { buffer in
                recv(fd, buffer.baseAddress! + filled, buffer.count - filled, 0)
            }
            if count > 0 {
                filled += count
                return .data
            }
            if count == 0 { return .end }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed(errno)
            }
        }
    }

    enum WriteOutcome {
        case done
        case wouldBlock
        case failed(Int32)
    }

    /// Sends what is left of `bytes` from `written` on.
    func writeSome(_ bytes: [UInt8]) -> WriteOutcome {
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                send(fd, buffer.baseAddress! + written, buffer.count - written, Int32(MSG_NOSIGNAL))
            }
            if count >= 0 {
                written += count
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed(errno)
            }
        }
        return .done
    }
}
