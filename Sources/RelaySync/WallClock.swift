import Foundation

/// Wall-clock time as a seam, so expiry and time windows can be tested without sleeping. (Named
/// apart from the standard library's `Clock`, which measures durations, not dates.)
package protocol WallClock: Sendable {
    /// Seconds since the Unix epoch, with sub-second precision.
    func now() -> Double
}

extension WallClock {
    /// Whole seconds since the Unix epoch (rounded down): the unit of `Item.expiresAt`.
    package func epochSeconds() -> Int {
        Int(now().rounded(.down))
    }
}

/// The system's real-time clock.
package struct SystemClock: WallClock {
    /// The system clock.
    package init() {}

    package func now() -> Double {
        Date().timeIntervalSince1970
    }
}

/// A clock that moves only when told to; for tests and for replaying time-dependent logic.
package final class ManualClock: WallClock {
    private let current: Locked<Double>

    /// A clock reading `start` seconds since the epoch (default 2027-01-15, a fixed, recent date).
    package init(start: Double = 1_800_000_000) {
        current = Locked(start)
    }

    package func now() -> Double {
        current.withLock { $0 }
    }

    /// Moves the clock forward by `seconds`.
    package func advance(by seconds: Double) {
        current.withLock { $0 += seconds }
    }

    /// Sets the clock to `seconds` since the epoch.
    package func set(to seconds: Double) {
        current.withLock { $0 = seconds }
    }
}
