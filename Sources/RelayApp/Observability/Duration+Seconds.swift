extension Duration {
    /// The duration in seconds, for metrics and logs.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
