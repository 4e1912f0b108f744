extension Duration {
    /// The duration in seconds, for metrics, logs and the settings kept as `TimeInterval`.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// The duration in whole milliseconds (rounded down), for the settings kept as milliseconds.
    var wholeMilliseconds: Int { Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000) }
}
