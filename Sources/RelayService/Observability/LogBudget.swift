#if canImport(Glibc)
    import Glibc
#endif

/// How many log lines the relay writes at most, so that no stream of requests (a flood of
/// unauthenticated ones, a client retrying in a loop, a busy relay) can fill the disk through the log.
///
/// Lines are grouped by kind: the same event with the same level, route, status, tool and outcome (the
/// fields that take a bounded set of values chosen in code; never the request ID, user or client). In
/// each `window`, a kind writes its first `linesPerKind` lines in full and all kinds
/// together at most `linesPerWindow`; the rest are counted, and when the window ends each kind that lost
/// lines writes one summary line: the same event and fields with `"suppressed": N`. Beyond `maxKinds`
/// kinds in one window, further lines are only counted, in one `log.suppressed` line. Metrics are not
/// affected: they count every request.
///
/// So at most `(linesPerWindow + maxKinds + 1) / window` lines per second, whatever arrives
/// (with the defaults 30 full lines per second plus at most 257 summary lines per 10 s); a quiet relay
/// (under 10 lines of a kind per second) loses nothing. `RELAY_LOG_LEVEL=debug` turns the budget off.
package struct LogBudget: Sendable, Equatable {
    /// The length of a window (whole seconds, at least one).
    package var window: Duration
    /// Lines of one kind written in full per window.
    package var linesPerKind: Int
    /// Lines of all kinds written in full per window.
    package var linesPerWindow: Int
    /// Kinds tracked per window; lines of further kinds share one summary.
    package var maxKinds: Int

    /// A budget; the defaults are the relay's.
    package init(
        window: Duration = .seconds(10), linesPerKind: Int = 100, linesPerWindow: Int = 300, maxKinds: Int = 256
    ) {
        self.window = .seconds(max(1, window.wholeSeconds))
        self.linesPerKind = max(1, linesPerKind)
        self.linesPerWindow = max(1, linesPerWindow)
        self.maxKinds = max(1, maxKinds)
    }

    /// The relay's budget: 10-second windows, 100 lines per kind, 300 in all.
    package static let standard = LogBudget()

    /// The most lines a window can write: every full line, one summary per kind, one overflow line.
    package var maxLinesPerWindow: Int { linesPerWindow + maxKinds + 1 }
}

/// The kind a line counts under (see `LogBudget`).
struct LogKind: Hashable {
    var event: UInt
    var level: LogEvent.Level
    var route: String?
    var status: Int?
    var tool: String?
    var outcome: String?

    init(_ event: LogEvent) {
        self.event =
            event.event.hasPointerRepresentation
            ? UInt(bitPattern: event.event.utf8Start) : UInt(event.event.unicodeScalar.value)
        level = event.level
        route = event.route?.description
        status = event.status
        tool = event.tool?.description
        outcome = event.outcome?.description
    }
}

/// The budget's bookkeeping for the current window; the logger keeps it under its lock.
struct LogSampler {
    /// A class: a line of a known kind updates its tally in place, where a struct was copied out of
    /// the dictionary and back (its sample event field by field) on every request's line. Only
    /// touched under the logger's lock, as the sampler itself.
    private final class Tally: @unchecked Sendable {
        /// An event carrying only the kind's fields, for the summary line.
        let sample: LogEvent
        var written = 0
        var suppressed = 0

        init(sample: LogEvent) { self.sample = sample }
    }

    let budget: LogBudget
    private var windowStart: Double
    private var tallies: [LogKind: Tally] = [:]
    private var written = 0
    private var overflow = 0
    /// Lines counted instead of written, since the start.
    private(set) var suppressedTotal = 0

    init(budget: LogBudget, now: Double) {
        self.budget = budget
        windowStart = now
    }

    /// Whether `event` may be written in full now. Ends the window first when its time is up, and
    /// then returns the summary lines of the window that ended (to be written before this one).
    mutating func admit(_ event: LogEvent, now: Double) -> (write: Bool, summaries: [LogEvent]) {
        var summaries: [LogEvent] = []
        if now - windowStart >= budget.window.seconds { summaries = endWindow(now: now) }
        let kind = LogKind(event)
        if let tally = tallies[kind] {
            let write = tally.written < budget.linesPerKind && written < budget.linesPerWindow
            if write {
                tally.written += 1
                written += 1
            } else {
                tally.suppressed += 1
                suppressedTotal += 1
            }
            return (write, summaries)
        }
        guard tallies.count < budget.maxKinds else {
            overflow += 1
            suppressedTotal += 1
            return (false, summaries)
        }
        let tally = Tally(sample: Self.sample(of: event))
        let write = written < budget.linesPerWindow
        if write {
            tally.written = 1
            written += 1
        } else {
            tally.suppressed = 1
            suppressedTotal += 1
        }
        tallies[kind] = tally
        return (write, summaries)
    }

    /// The summaries of the current window if its time is up (the writer asks while idle), else none.
    mutating func summariesIfDue(now: Double) -> [LogEvent] {
        now - windowStart >= budget.window.seconds ? endWindow(now: now) : []
    }

    /// Ends the current window: one line per kind that lost lines, then one for the overflow.
    mutating func endWindow(now: Double) -> [LogEvent] {
        var summaries: [LogEvent] = []
        for tally in tallies.values where tally.suppressed > 0 {
            var line = tally.sample
            line.suppressed = tally.suppressed
            summaries.append(line)
        }
        if overflow > 0 {
            var line = LogEvent(.warning, "log.suppressed")
            line.suppressed = overflow
            summaries.append(line)
        }
        tallies.removeAll(keepingCapacity: true)
        written = 0
        overflow = 0
        windowStart = now
        return summaries
    }

    private static func sample(of event: LogEvent) -> LogEvent {
        var sample = LogEvent(event.level, event.event)
        sample.route = event.route
        sample.status = event.status
        sample.tool = event.tool
        sample.outcome = event.outcome
        return sample
    }

    /// Seconds on the monotonic clock (windows must not jump with the wall clock).
    static func monotonicNow() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
