import Foundation
import RelaySync

/// Prometheus metrics: counters and histograms with labels, rendered in the text exposition
/// format (version 0.0.4) on the separate metrics listener. Label values come from code-defined
/// sets (routes, statuses, tool names, outcome codes), never from request data.
///
/// A counter or histogram is updated only through the handle its declaration returns
/// (`Metrics.Counter`, `Metrics.Histogram`): there is no update by name, so code cannot name a
/// series nobody declared (it used to be dropped without a word). A handle keeps its series behind
/// one lock of its own. Updating with another number of label values than declared stops the
/// process (a programming error, found by the first test that takes the path).
package final class Metrics: Sendable {
    /// Default latency buckets in seconds.
    package static let latencyBuckets: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    /// A counter family: one number per combination of label values.
    package final class Counter: Sendable {
        package let name: String
        let help: String
        let labelNames: [String]
        fileprivate let series = Locked<[[String]: Double]>([:])

        fileprivate init(name: String, help: String, labelNames: [String]) {
            self.name = name
            self.help = help
            self.labelNames = labelNames
        }

        /// Adds `amount` to the series named by `labels` (one value per declared label, in order).
        package func increment(_ labels: String..., by amount: Double = 1) {
            checkArity(labels, labelNames, name)
            series.withLock { $0[labels, default: 0] += amount }
        }
    }

    /// A histogram family: cumulative buckets, a sum and a count per combination of label values.
    package final class Histogram: Sendable {
        package let name: String
        let help: String
        let labelNames: [String]
        let buckets: [Double]
        fileprivate let series = Locked<[[String]: Observations]>([:])

        fileprivate init(name: String, help: String, labelNames: [String], buckets: [Double]) {
            self.name = name
            self.help = help
            self.labelNames = labelNames
            self.buckets = buckets
        }

        /// Records `value` in the series named by `labels` (one value per declared label, in order).
        package func observe(_ value: Double, _ labels: String...) {
            checkArity(labels, labelNames, name)
            series.withLock { all in
                all[labels, default: Observations(buckets: buckets.count)].record(value, buckets: buckets)
            }
        }
    }

    /// One histogram series' numbers.
    fileprivate struct Observations: Sendable {
        var bucketCounts: [Int]
        var sum: Double = 0
        var count: Int = 0

        init(buckets: Int) { bucketCounts = Array(repeating: 0, count: buckets) }

        mutating func record(_ value: Double, buckets: [Double]) {
            for index in buckets.indices where value <= buckets[index] { bucketCounts[index] += 1 }
            sum += value
            count += 1
        }
    }

    private enum Family: Sendable {
        case counter(Counter)
        case histogram(Histogram)
    }

    private let families = Locked<[String: Family]>([:])
    private let gauges = Locked<[String: (help: String, kind: String, read: @Sendable () -> Double)]>([:])

    package init() {}

    /// Declares a counter and returns its handle. Declaring a name again returns the same handle
    /// (several parts of an instance may declare what they update); declaring it again with other
    /// labels or as a histogram stops the process.
    @discardableResult
    package func declareCounter(_ name: String, help: String, labels: [String] = []) -> Counter {
        families.withLock { families in
            if case .counter(let existing) = families[name], existing.labelNames == labels { return existing }
            precondition(families[name] == nil, "metric \(name) declared twice, differently")
            let counter = Counter(name: name, help: help, labelNames: labels)
            families[name] = .counter(counter)
            return counter
        }
    }

    /// Declares a histogram and returns its handle (again: the same handle, as for counters).
    @discardableResult
    package func declareHistogram(
        _ name: String, help: String, labels: [String] = [], buckets: [Double] = latencyBuckets
    ) -> Histogram {
        families.withLock { families in
            if case .histogram(let existing) = families[name], existing.labelNames == labels,
                existing.buckets == buckets
            {
                return existing
            }
            precondition(families[name] == nil, "metric \(name) declared twice, differently")
            let histogram = Histogram(name: name, help: help, labelNames: labels, buckets: buckets)
            families[name] = .histogram(histogram)
            return histogram
        }
    }

    /// Declares a gauge whose value is read when metrics are rendered.
    package func declareGauge(_ name: String, help: String, read: @escaping @Sendable () -> Double) {
        gauges.withLock { $0[name] = (help, "gauge", read) }
    }

    /// Declares a counter kept elsewhere (it must only grow), read when metrics are rendered.
    package func declareCounter(_ name: String, help: String, read: @escaping @Sendable () -> Double) {
        gauges.withLock { $0[name] = (help, "counter", read) }
    }

    /// The current value of a counter series (tests and `relayctl`); 0 for a series never updated.
    package func value(_ name: String, _ labels: [String] = []) -> Double {
        guard case .counter(let counter) = families.withLock({ $0[name] }) else { return 0 }
        return counter.series.withLock { $0[labels] ?? 0 }
    }

    /// The text exposition of every metric: counters and histograms by name, then the gauges and
    /// counters read at rendering, by name.
    package func render() -> String {
        var output = ""
        let declared = families.withLock { $0 }
        for name in declared.keys.sorted() {
            switch declared[name]! {
            case .counter(let counter):
                output += "# HELP \(name) \(counter.help)\n# TYPE \(name) counter\n"
                for (labels, value) in Self.sorted(counter.series.withLock { $0 }) {
                    output += "\(name)\(Self.braces(Self.pairs(counter.labelNames, labels))) \(Self.format(value))\n"
                }
            case .histogram(let histogram):
                output += "# HELP \(name) \(histogram.help)\n# TYPE \(name) histogram\n"
                for (labels, series) in Self.sorted(histogram.series.withLock { $0 }) {
                    let pairs = Self.pairs(histogram.labelNames, labels)
                    for (bound, count) in zip(histogram.buckets, series.bucketCounts) {
                        output += "\(name)_bucket\(Self.braces(pairs + ["le=\"\(Self.format(bound))\""])) \(count)\n"
                    }
                    output += "\(name)_bucket\(Self.braces(pairs + ["le=\"+Inf\""])) \(series.count)\n"
                    output += "\(name)_sum\(Self.braces(pairs)) \(Self.format(series.sum))\n"
                    output += "\(name)_count\(Self.braces(pairs)) \(series.count)\n"
                }
            }
        }
        let gaugeSnapshot = gauges.withLock { $0 }
        for name in gaugeSnapshot.keys.sorted() {
            let gauge = gaugeSnapshot[name]!
            output +=
                "# HELP \(name) \(gauge.help)\n# TYPE \(name) \(gauge.kind)\n\(name) \(Self.format(gauge.read()))\n"
        }
        return output
    }

    /// Series in the order they render: by their label values.
    private static func sorted<Value>(_ series: [[String]: Value]) -> [(key: [String], value: Value)] {
        series.sorted { $0.key.joined(separator: "\u{0}") < $1.key.joined(separator: "\u{0}") }
    }

    private static func pairs(_ names: [String], _ values: [String]) -> [String] {
        zip(names, values).map { "\($0)=\"\(escape($1))\"" }
    }

    private static func braces(_ pairs: [String]) -> String { pairs.isEmpty ? "" : "{\(pairs.joined(separator: ","))}" }

    private static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    private static func format(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

/// Stops the process when an update names another number of label values than its family declared.
private func checkArity(_ labels: [String], _ names: [String], _ family: String) {
    precondition(
        labels.count == names.count, "metric \(family) takes \(names.count) label values, not \(labels.count)")
}
