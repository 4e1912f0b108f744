/// Collected latencies of one operation, in nanoseconds.
struct Latency {
    private(set) var samples: [Int64] = []

    init() {
        samples.reserveCapacity(100_000)
    }

    /// Times one call.
    mutating func measure<T>(_ body: () async throws -> T) async rethrows -> T {
        let start = ContinuousClock.now
        let result = try await body()
        let elapsed = ContinuousClock.now - start
        samples.append(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        return result
    }

    /// The p-th percentile (0...100) in microseconds.
    func percentile(_ p: Double) -> Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return 0 }
        let index = min(sorted.count - 1, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1)
        return Double(sorted[max(0, index)]) / 1000
    }

    /// `name p50=… p99=…` in microseconds, one line, for the script to parse.
    func line(_ name: String) -> String {
        "\(name) samples=\(samples.count) p50_us=\(Self.format(percentile(50))) p99_us=\(Self.format(percentile(99)))"
    }

    /// The median over rounds of each round's p50 and p99.
    static func medianLine(_ name: String, _ rounds: [Latency]) -> String {
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let p50 = median(rounds.map { $0.percentile(50) })
        let p99 = median(rounds.map { $0.percentile(99) })
        return "\(name) rounds=\(rounds.count) p50_us=\(format(p50)) p99_us=\(format(p99))"
    }

    private static func format(_ value: Double) -> String {
        String(Double(Int(value * 10)) / 10)
    }
}
