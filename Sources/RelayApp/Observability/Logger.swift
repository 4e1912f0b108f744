import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Writes `LogEvent`s as JSON lines. Events are buffered and written by a background thread, so
/// an event loop never blocks on a slow stderr reader; when the buffer is full, lines are dropped
/// and counted rather than stalling requests.
public final class Logger: Sendable {
    private struct Buffer {
        var bytes: [UInt8] = []
        var dropped = 0
        var closed = false
    }

    private let minimumLevel: LogEvent.Level
    private let fd: Int32
    private let buffer = Mutex(Buffer())
    private let wakeup = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let capacity: Int
    /// Lines dropped because the writer fell behind.
    public var droppedLines: Int { buffer.withLock { $0.dropped } }

    /// A logger writing to `fd` (stderr by default) with events below `minimumLevel` ignored.
    public init(minimumLevel: LogEvent.Level = .info, fd: Int32 = 2, capacity: Int = 4 * 1024 * 1024) {
        self.minimumLevel = minimumLevel
        self.fd = fd
        self.capacity = capacity
        guard fd >= 0 else { return }
        let thread = Thread { [self] in writeLoop() }
        thread.name = "relay-log"
        thread.start()
    }

    /// A logger that drops everything (tests that do not look at logs).
    public static let discarding = Logger(minimumLevel: .error, fd: -1)

    /// Records an event.
    public func log(_ event: LogEvent) {
        guard event.level >= minimumLevel, fd >= 0 else { return }
        let line = event.jsonLine(time: Self.timestamp())
        let accepted = buffer.withLock { buffer -> Bool in
            guard !buffer.closed, buffer.bytes.count + line.count <= capacity else {
                buffer.dropped += 1
                return false
            }
            let wasEmpty = buffer.bytes.isEmpty
            buffer.bytes.append(contentsOf: line)
            return wasEmpty
        }
        if accepted { wakeup.signal() }
    }

    /// Writes everything buffered and stops the writer. Later events are dropped.
    public func close() {
        guard fd >= 0 else { return }
        buffer.withLock { $0.closed = true }
        wakeup.signal()
        done.wait()
    }

    private func writeLoop() {
        while true {
            wakeup.wait()
            let (bytes, closed) = buffer.withLock { buffer -> ([UInt8], Bool) in
                defer { buffer.bytes.removeAll(keepingCapacity: true) }
                return (buffer.bytes, buffer.closed)
            }
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
                if written <= 0 {
                    if errno == EINTR { continue }
                    break
                }
                offset += written
            }
            if closed {
                done.signal()
                return
            }
        }
    }

    /// RFC 3339 UTC with milliseconds.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(now.tv_nsec / 1_000_000), 3))Z"
    }
}
