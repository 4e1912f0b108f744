extension Duration {
    /// The duration in seconds, for APIs that take a `TimeInterval`, and for metrics and logs.
    package var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// Whole seconds (rounded down), for epoch-second arithmetic and wire fields in seconds.
    package var wholeSeconds: Int { Int(components.seconds) }

    /// Whole milliseconds (rounded down), for a monotonic millisecond clock or a C API in milliseconds.
    package var wholeMilliseconds: Int {
        Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000)
    }

    /// Whole milliseconds, rounded up so a tiny positive duration never becomes "no limit".
    package var roundedUpMilliseconds: Int {
        let (seconds, attoseconds) = components
        let fraction = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return max(0, Int(seconds) * 1000 + Int(fraction))
    }
}
