import Foundation
import RelayHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny blocking loop for a `TLSClientSession` in tests: it owns a loopback TCP socket, sends
/// all the session's output, and feeds it what `recv` returns. It blocks, so it runs only on a
/// thread of its own (`onOwnThread`), never on the cooperative pool.
final class TLSSocketDriver {
    enum Failure: Error {
        case socket(Int32)
        case connect(Int32)
        case send(Int32)
        case recv(Int32)
    }

    let session: TLSClientSession
    /// Every byte the server sent, in order (the fuzz test replays a real server's flight).
    private(set) var received: [UInt8] = []
    private let fd: Int32
    private var outgoing: [UInt8] = []
    private var incoming = [UInt8](repeating: 0, count: 16_384)

    /// Connects to 127.0.0.1:`port`; the session's server name need not be that address.
    init(port: Int, session: TLSClientSession) throws {
        self.session = session
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.socket(errno) }
        // Generous: a server that never answers fails the test instead of hanging it.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure.connect(code)
        }
    }

    deinit { Glibc.close(fd) }

    /// Sends everything the session has queued.
    func flush() throws {
        outgoing.removeAll(keepingCapacity: true)
        session.takeOutput(into: &outgoing)
        var sent = 0
        while sent < outgoing.count {
            let count = outgoing.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { throw Failure.send(errno) }
            sent += count
        }
    }

    /// One `recv` into the session; false (and the session told) when the server closed.
    @discardableResult
    func pump() throws -> Bool {
        let count = incoming.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count != 0 else {
            session.receiveEnd()
            return false
        }
        guard count > 0 else { throw Failure.recv(errno) }
        received.append(contentsOf: incoming[..<count])
        incoming.withUnsafeBytes { session.receive(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        return true
    }

    /// Runs the handshake to its end (or its error).
    func handshake() throws {
        while true {
            let done = try session.handshake()
            try flush()
            if done { return }
            try pump()
        }
    }

    /// Encrypts and sends `text`.
    func send(_ text: String) throws {
        try Array(text.utf8).withUnsafeBytes { try session.write($0) }
        try flush()
    }

    /// Reads until the stream ends (close_notify or not), returning the plaintext and how it ended.
    func readToEnd() throws -> (plaintext: [UInt8], end: TLSClientSession.ReadResult) {
        var plaintext: [UInt8] = []
        while true {
            let result = try session.read(into: &plaintext)
            try flush()
            if result != .needsInput { return (plaintext, result) }
            try pump()
        }
    }

    /// Reads until `plaintext` ends with `suffix` (a response of known shape on a kept-alive connection).
    func read(until suffix: String) throws -> String {
        var plaintext: [UInt8] = []
        let tail = Array(suffix.utf8)
        while !plaintext.ends(with: tail) {
            let result = try session.read(into: &plaintext)
            try flush()
            guard result == .needsInput else { break }
            if !plaintext.ends(with: tail) { try pump() }
        }
        return String(decoding: plaintext, as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with tail: [UInt8]) -> Bool {
        count >= tail.count && Array(self[(count - tail.count)...]) == tail
    }
}

/// Runs blocking work on a thread of its own and returns its result: socket calls and OpenSSL's
/// thread-local error queue must not meet the cooperative pool.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// The `.tls` message `body` failed with, or a description of what happened instead.
func tlsFailure(_ body: () throws -> Void) -> String {
    do {
        try body()
        return "no error"
    } catch ClientError.tls(let message) {
        return message
    } catch {
        return "not a TLS error: \(error)"
    }
}

/// A request nginx answers with `ok` and then closes (close_notify first).
let closingRequest = "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
/// A request nginx answers with `ok` and keeps the connection open.
let keptRequest = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"
