import Foundation
import RelaySync

#if canImport(Glibc)
    import Glibc
#endif

/// Writes `LogEvent`s as JSON lines. Events are buffered and written by a background thread, so
/// an event loop never blocks on a slow stderr reader; when the buffer is full, lines are dropped
/// and counted rather than stalling requests. A `LogBudget` bounds the lines written per second
/// (repeated kinds become one summary line per window), except at level `debug`.
package final class Logger: Sendable {
    private struct Buffer {
        var bytes: [UInt8] = []
        var dropped = 0
        var closed = false
        var sampler: LogSampler?
    }

    private let minimumLevel: LogEvent.Level
    private let fd: Int32
    private let buffer = Locked(Buffer())
    private let wakeup = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let capacity: Int
    /// How long the writer lets lines gather after a write; a line waits at most this long.
    private let lingerMicroseconds: UInt32 = 5_000
    /// Lines dropped because the writer fell behind.
    package var droppedLines: Int { buffer.withLock { $0.dropped } }
    /// Lines counted in a summary instead of written, because their kind or the window was over budget.
    package var suppressedLines: Int { buffer.withLock { $0.sampler?.suppressedTotal ?? 0 } }
    /// The budget in force; nil at level `debug` (every line is written).
    package let budget: LogBudget?

    /// A logger writing to `fd` (stderr by default) with events below `minimumLevel` ignored, and at
    /// most `budget` lines (nil, or level `debug`: every line).
    package init(
        minimumLevel: LogEvent.Level = .info, fd: Int32 = 2, capacity: Int = 4 * 1024 * 1024,
        budget: LogBudget? = .standard
    ) {
        self.minimumLevel = minimumLevel
        self.fd = fd
        self.capacity = capacity
        self.budget = minimumLevel == .debug ? nil : budget
        if let budget = self.budget {
            buffer.withLock { $0.sampler = LogSampler(budget: budget, now: LogSampler.monotonicNow()) }
        }
        guard fd >= 0 else { return }
        let thread = Thread { [self] in writeLoop() }
        thread.name = "relay-log"
        thread.start()
    }

    /// Records an event (or only counts it, when its kind is over budget).
    package func log(_ event: LogEvent) {
        guard event.level >= minimumLevel, fd >= 0 else { return }
        var line: [UInt8] = []
        if budget != nil {
            let now = LogSampler.monotonicNow()
            let (write, summaries) = buffer.withLock { buffer in
                buffer.sampler?.admit(event, now: now) ?? (true, [])
            }
            let time = Self.timestamp()
            for summary in summaries { summary.writeJSONLine(time: time, into: &line) }
            if write { event.writeJSONLine(time: time, into: &line) }
            if line.isEmpty { return }
        } else {
            line.reserveCapacity(256)
            event.writeJSONLine(time: Self.timestamp(), into: &line)
        }
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
    package func close() {
        guard fd >= 0 else { return }
        buffer.withLock { $0.closed = true }
        wakeup.signal()
        done.wait()
    }

    /// Swaps the shared buffer with its own, writes, and then
    /// lets lines gather for `lingerMicroseconds` before the next swap: under load that is one
    /// `write` and one wake-up per interval instead of one per line. With a budget it also wakes once
    /// per window, so a window's summary lines are written even when nothing else is logged after it
    /// (and on `close`).
    private func writeLoop() {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 * 1024)
        while true {
            if let budget {
                _ = wakeup.wait(timeout: .now() + .seconds(budget.window.wholeSeconds))
            } else {
                wakeup.wait()
            }
            let now = LogSampler.monotonicNow()
            let (closed, summaries) = buffer.withLock { buffer -> (Bool, [LogEvent]) in
                swap(&bytes, &buffer.bytes)
                let summaries =
                    buffer.closed
                    ? buffer.sampler?.endWindow(now: now) : buffer.sampler?.summariesIfDue(now: now)
                return (buffer.closed, summaries ?? [])
            }
            if !summaries.isEmpty {
                let time = Self.timestamp()
                for summary in summaries { summary.writeJSONLine(time: time, into: &bytes) }
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
            bytes.removeAll(keepingCapacity: true)
            if closed {
                done.signal()
                return
            }
            usleep(lingerMicroseconds)
        }
    }

    /// RFC 3339 UTC with milliseconds, as ASCII bytes: `2026-01-02T03:04:05.678Z`.
    static func timestamp() -> InlineTimestamp {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return InlineTimestamp(
            year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday),
            hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec),
            millisecond: now.tv_nsec / 1_000_000)
    }
}

/// A log line's time, written digit by digit (no strings on the request path).
struct InlineTimestamp {
    var year, month, day, hour, minute, second, millisecond: Int

    /// Appends `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    func write(into output: inout [UInt8]) {
        func digits(_ value: Int, _ width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            var rest = max(0, value)
            while divisor > 0 {
                output.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(year, 4)
        output.append(UInt8(ascii: "-"))
        digits(month, 2)
        output.append(UInt8(ascii: "-"))
        digits(day, 2)
        output.append(UInt8(ascii: "T"))
        digits(hour, 2)
        output.append(UInt8(ascii: ":"))
        digits(minute, 2)
        output.append(UInt8(ascii: ":"))
        digits(second, 2)
        output.append(UInt8(ascii: "."))
        digits(millisecond, 3)
        output.append(UInt8(ascii: "Z"))
    }

    /// The same as a string.
    var description: String {
        var bytes: [UInt8] = []
        write(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
