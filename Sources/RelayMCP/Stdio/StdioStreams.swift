import Foundation
import RelaySync

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One line read from the client (`basic/transports/stdio.mdx`: newline-delimited messages).
enum StdioLine: Sendable {
    /// A message's bytes, without the newline (and without a `\r` before it).
    case message([UInt8])
    /// A line longer than the limit; its bytes were dropped.
    case tooLong
}

/// Reads newline-delimited lines from a descriptor on a thread of its own (a blocking `read` must not
/// hold a thread of the cooperative pool). The stream ends at end of file or on a read error.
enum StdioReader {
    static func lines(from descriptor: Int32, maxLineBytes: Int) -> AsyncStream<StdioLine> {
        let (stream, continuation) = AsyncStream<StdioLine>.makeStream()
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            var pending: [UInt8] = []
            var discarding = false
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                var start = 0
                for index in 0..<count where buffer[index] == 0x0A {
                    if discarding || pending.count + (index - start) > maxLineBytes {
                        discarding = false
                        continuation.yield(.tooLong)
                    } else {
                        pending.append(contentsOf: buffer[start..<index])
                        if pending.last == 0x0D { pending.removeLast() }
                        if pending.contains(where: { !Self.isSpace($0) }) { continuation.yield(.message(pending)) }
                    }
                    pending.removeAll(keepingCapacity: true)
                    start = index + 1
                }
                if !discarding { pending.append(contentsOf: buffer[start..<count]) }
                if pending.count > maxLineBytes {
                    pending.removeAll()
                    discarding = true
                }
            }
            continuation.finish()
        }
        thread.name = "mcp-stdio-in"
        thread.start()
        return stream
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D }
}

/// Writes one message per line to a descriptor, whole lines only, one writer at a time. A closed pipe
/// (the client went away) turns every later write into a no-op rather than a crash (SIGPIPE must be
/// ignored by the process; `MCPStdioServer.run` does so).
final class StdioWriter: Sendable {
    private let descriptor: Int32
    /// Whether the descriptor still takes output.
    private let open = Locked(true)

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// Writes `message` and a newline. The message must not contain one: the JSON writer escapes
    /// control characters inside strings, so encoded messages never do.
    func send(_ message: [UInt8]) {
        var line = message
        line.append(0x0A)
        open.withLock { open in
            guard open else { return }
            var offset = 0
            while offset < line.count {
                let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
                if written < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    open = false
                    return
                }
                offset += written
            }
        }
    }
}
