#if canImport(Glibc)
    import Glibc
#endif

/// The bytes between a connection's socket and its codec.
enum DirectChannel {
    /// Plain TCP: received bytes are the plaintext, outbound bytes go out as they are.
    case plain
    /// TLS over memory BIOs: received ciphertext goes to `receive(_:)`, plaintext comes out of
    /// `read(into:)` into the same inbound buffer the plain channel `recv`s into (so the codec never
    /// knows); outbound plaintext goes through `write(_:)` and `takeOutput(into:)` into
    /// `DirectConnection.outbound`. The handshake runs in `DirectConnection.State.handshaking`.
    case tls(TLSClientSession)
}

/// How a connection frames exchanges.
enum DirectCodec {
    /// One exchange at a time, `H1ResponseParser` reading the response.
    case http1
    /// Many exchanges at once, one stream each (`DirectConnection.streams`); the pool hands the
    /// connection out while it has free streams.
    case http2(H2Session)
}

/// One upstream connection of the direct loop: its socket, channel, codec, buffers and the
/// exchange it carries.
///
/// Used by the loop thread only (never crosses threads).
final class DirectConnection {
    enum State {
        /// `connect` in progress (to `addresses[nextAddress - 1]`).
        case connecting
        /// Connected, the TLS handshake in progress (the connect deadline still runs).
        case handshaking
        /// Connected, carrying `exchange` (HTTP/1.1) or streams (HTTP/2, even when none is open).
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
    /// The HTTP/1.1 exchange it carries, or the one it was opened for until its handshake ends.
    var exchange: DirectExchange?
    /// HTTP/2: the exchanges in flight by stream id.
    var streams: [Int32: DirectExchange] = [:]
    /// Whether it was opened for its origin's probe and has not answered yet.
    var probe = false
    /// Whether it is on the multiplexed path (counted in `DirectPool.multiplexedOpen`).
    var multiplexed = false
    /// Ciphertext (TLS) or HTTP/2 frames waiting for the socket: `outbound[sent...]`.
    var outbound: [UInt8] = []
    var sent = 0
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
    /// Whether it is in `DirectLoop.flushQueue`: HTTP/2 frames submitted this round, sent at its end.
    var flushQueued = false

    static let inboundSize = 16 * 1024

    init(id: UInt64, origin: String, addresses: [DirectAddress]) {
        self.id = id
        self.origin = origin
        self.addresses = addresses
        inbound = [UInt8](repeating: 0, count: Self.inboundSize)
    }

    var tls: TLSClientSession? {
        if case .tls(let session) = channel { return session }
        return nil
    }

    var h2: H2Session? {
        if case .http2(let session) = codec { return session }
        return nil
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

    /// One `recv` of ciphertext into `scratch`, handed to the TLS session.
    func receiveCiphertext(into scratch: UnsafeMutableRawBufferPointer) -> ReadOutcome {
        while true {
            let count = recv(fd, scratch.baseAddress!, scratch.count, 0)
            if count > 0 {
                tls?.receive(UnsafeRawBufferPointer(rebasing: scratch[..<count]))
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

    /// Appends `bytes` to the free end of `inbound` (TLS plaintext), growing it when needed.
    func appendInbound(_ bytes: [UInt8]) {
        if consumed == filled {
            consumed = 0
            filled = 0
        }
        if filled + bytes.count > inbound.count {
            inbound.append(contentsOf: repeatElement(0, count: filled + bytes.count - inbound.count))
        }
        inbound.withUnsafeMutableBytes { buffer in
            bytes.withUnsafeBytes {
                buffer.baseAddress!.advanced(by: filled).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
            }
        }
        filled += bytes.count
    }

    /// Sends `outbound` from `sent` on; forgets it once all is sent.
    func flushOutbound() -> WriteOutcome {
        let outcome = Self.send(outbound, from: &sent, on: fd)
        guard case .done = outcome else { return outcome }
        outbound.removeAll(keepingCapacity: true)
        sent = 0
        return .done
    }

    /// Sends what is left of `bytes` from `written` on.
    func writeSome(_ bytes: [UInt8]) -> WriteOutcome {
        Self.send(bytes, from: &written, on: fd)
    }

    /// Sends `bytes[offset...]` on `fd` until done, the socket would block or it fails; `offset`
    /// counts what went out.
    private static func send(_ bytes: [UInt8], from offset: inout Int, on fd: Int32) -> WriteOutcome {
        while offset < bytes.count {
            let start = offset
            let count = bytes.withUnsafeBytes { buffer in
                Glibc.send(fd, buffer.baseAddress! + start, buffer.count - start, Int32(MSG_NOSIGNAL))
            }
            if count >= 0 {
                offset += count
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
