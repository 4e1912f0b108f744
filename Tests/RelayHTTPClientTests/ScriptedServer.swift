import Foundation
import RelaySync
import RelayTestSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback HTTP/1.1 server that answers each request with raw bytes from a script: for
/// responses `Server` would never write (malformed, chunked, one byte at a time, closing at a
/// chosen moment). Blocking sockets on threads of its own, never on the cooperative pool. It
/// counts connections and requests (a request counts once its head and body are read).
final class ScriptedServer: Sendable {
    enum Action: Sendable {
        /// Writes these bytes, one `send` per byte when `oneByteAtATime`, then closes if `close`.
        case reply([UInt8], oneByteAtATime: Bool = false, close: Bool = false)
        /// Closes the connection without answering.
        case close
        /// Never answers; holds the connection until the client closes it or the server goes.
        case hang
        /// Writes these bytes (a partial response), then holds the connection like `hang`.
        case replyThenHang([UInt8])
    }

    let port: Int
    private let listener: Int32
    private let state = Locked(State())
    private let requestCount = Tally()
    private let connectionCount = Tally()
    private let closedCount = Tally()

    private struct State {
        var descriptors: [Int32] = []
        var stopped = false
    }

    /// Requests read so far.
    var requests: Int { requestCount.value.load(ordering: .relaxed) }
    /// Connections accepted so far.
    var connections: Int { connectionCount.value.load(ordering: .relaxed) }
    /// Connections that ended (the client closed, or the script did).
    var closedConnections: Int { closedCount.value.load(ordering: .relaxed) }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// `script` gets the request's number (1-based, across connections) and its head.
    init(_ script: @escaping @Sendable (_ number: Int, _ head: String) -> Action) throws {
        let (fd, port) = try loopbackListener(backlog: 1024)
        listener = fd
        self.port = port
        let state = state
        let requestCount = requestCount
        let connectionCount = connectionCount
        let closedCount = closedCount
        let thread = Thread {
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { return }
                let accepted = state.withLock { state -> Bool in
                    guard !state.stopped else { return false }
                    state.descriptors.append(connection)
                    return true
                }
                guard accepted else {
                    close(connection)
                    return
                }
                connectionCount.value.add(1, ordering: .relaxed)
                let worker = Thread {
                    Self.serve(connection, script: script, requests: requestCount)
                    // Closed by `deinit` when the server goes, so the number is never reused early.
                    shutdown(connection, Int32(SHUT_RDWR))
                    // Counted once the FIN is on its way: a test that waits for the count knows
                    // the client can see the end.
                    closedCount.value.add(1, ordering: .relaxed)
                }
                worker.stackSize = 256 << 10
                worker.start()
            }
        }
        thread.start()
    }

    deinit {
        let descriptors = state.withLock { state -> [Int32] in
            state.stopped = true
            return state.descriptors
        }
        shutdown(listener, Int32(SHUT_RDWR))
        for descriptor in descriptors { shutdown(descriptor, Int32(SHUT_RDWR)) }
        // The descriptors stay open (leaked for the test process's life): a worker thread may
        // still be in a call on one, and closing would let the number go to another test.
    }

    private static func serve(
        _ fd: Int32, script: @Sendable (Int, String) -> Action, requests: Tally
    ) {
        var buffer: [UInt8] = []
        while true {
            guard let head = readHead(fd, &buffer) else { return }
            let text = String(decoding: head, as: UTF8.self)
            let length = contentLength(text)
            while buffer.count < length {
                guard receive(fd, &buffer) else { return }
            }
            buffer.removeFirst(length)
            let number = requests.value.add(1, ordering: .relaxed).newValue
            let action = script(number, text)
            switch action {
            case .reply(let bytes, let oneByteAtATime, let close):
                if oneByteAtATime {
                    for byte in bytes {
                        guard sendAll(fd, [byte]) else { return }
                    }
                } else {
                    guard sendAll(fd, bytes) else { return }
                }
                if close { return }
            case .close:
                return
            case .hang, .replyThenHang:
                if case .replyThenHang(let bytes) = action { guard sendAll(fd, bytes) else { return } }
                var sink: [UInt8] = []
                while receive(fd, &sink) { sink.removeAll() }
                return
            }
        }
    }

    private static func readHead(_ fd: Int32, _ buffer: inout [UInt8]) -> [UInt8]? {
        while true {
            if let end = find(buffer) {
                let head = Array(buffer[..<end])
                buffer.removeFirst(end)
                return head
            }
            guard receive(fd, &buffer) else { return nil }
        }
    }

    private static func find(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    private static func contentLength(_ head: String) -> Int {
        for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
            return Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return 0
    }

    private static func receive(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(fd, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }

    private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }
}

/// An atomic count shared with the server's threads.
final class Tally: Sendable {
    let value = Atomic<Int>(0)
}

/// An HTTP/1.1 response with a Content-Length.
func plainResponse(_ body: String, status: String = "200 OK", extra: String = "") -> [UInt8] {
    Array("HTTP/1.1 \(status)\r\nContent-Length: \(body.utf8.count)\r\n\(extra)\r\n\(body)".utf8)
}
