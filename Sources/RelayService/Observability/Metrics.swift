import Foundation
import RelaySync
import Synchronization

/// Prometheus metrics: counters and histograms with labels, rendered in the text exposition
/// format (version 0.0.4) on the separate metrics listener. Label values come from code-defined
/// sets (routes, statuses, tool names, outcome codes), never from request data.
///
/// Updates go to one of `shardCount` shards, each with its own lock, chosen by the calling thread
/// (`ThreadSlot`): the event loops update their own shards instead of taking turns at one lock
/// (~7 updates per tool call; at one lock the loops woke each other through futex calls). A
/// family is declared in every shard; rendering and `value` add the shards' series up.
package final class Metrics: Sendable {
    /// Shards: more than the event loops and store threads of a typical instance.
    static let shardCount = 8
    /// Default latency buckets in seconds.
    package static let latencyBuckets: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    /// A family and its series are classes, reached and changed only under `families`' lock: an
    /// observation finds its series with two dictionary reads and changes it in place. (Mutating
    /// through nested dictionary subscripts costs a heap-allocated accessor frame per level.)
    ///
    /// `@unchecked Sendable`: `series` (and every `Series`) is read and changed only under the lock;
    /// the rest is immutable.
    private final class Family: @unchecked Sendable {
        let help: String
        let kind: String
        let buckets: [Double]
        let labelNames: [String]
        var series: [Labels: Series] = [:]

        init(help: String, kind: String, buckets: [Double], labelNames: [String]) {
            self.help = help
            self.kind = kind
            self.buckets = buckets
            self.labelNames = labelNames
        }

        /// The series for `labels`, created on first use.
        func series(_ labels: Labels) -> Series {
            if let existing = series[labels] { return existing }
            let created = Series(buckets: buckets.count)
            series[labels] = created
            return created
        }
    }

    /// `@unchecked Sendable`: read and changed only under `families`' lock.
    private final class Series: @unchecked Sendable {
        var value: Double = 0
        var bucketCounts: [Int]
        var sum: Double = 0
        var count: Int = 0

        init(buckets: Int) { bucketCounts = Array(repeating: 0, count: buckets) }

        func record(_ value: Double, buckets: [Double]) {
            for index in buckets.indices where value <= buckets[index] { bucketCounts[index] += 1 }
            sum += value
            count += 1
        }
    }

    /// A series' label values, the first three held inline: an update names them without building
    /// an array (`increment(_:_:_:)`), and a lookup hashes them without one.
    struct Labels: Hashable {
        var first: String?
        var second: String?
        var third: String?
        var more: [String] = []

        init(_ first: String? = nil, _ second: String? = nil) {
            self.first = first
            self.second = second
        }

        init(_ labels: [String]) {
            first = labels.first
            second = labels.count > 1 ? labels[1] : nil
            third = labels.count > 2 ? labels[2] : nil
            more = labels.count > 3 ? Array(labels[3...]) : []
        }

        var array: [String] { [first, second, third].compactMap { $0 } + more }
    }

    /// A series' numbers, copied out under the lock for rendering.
    private struct SeriesValues {
        var labels: [String]
        var value: Double
        var bucketCounts: [Int]
        var sum: Double
        var count: Int
    }

    private let shards: [Locked<[String: Family]>] = (0..<shardCount).map { _ in Locked([:]) }
    /// The calling thread's shard.
    private var shard: Locked<[String: Family]> { shards[ThreadSlot.current % Self.shardCount] }
    private let gauges = Locked<[String: (help: String, kind: String, read: @Sendable () -> Double)]>([:])

    package init() {}

    /// Declares a counter (idempotent).
    package func declareCounter(_ name: String, help: String, labels: [String] = []) {
        declare(name) { Family(help: help, kind: "counter", buckets: [], labelNames: labels) }
    }

    /// Declares a histogram (idempotent).
    package func declareHistogram(
        _ name: String, help: String, labels: [String] = [], buckets: [Double] = latencyBuckets
    ) {
        declare(name) { Family(help: help, kind: "histogram", buckets: buckets, labelNames: labels) }
    }

    /// Adds the family `make` builds to every shard that lacks `name` (each shard its own instance).
    private func declare(_ name: String, _ make: () -> Family) {
        for shard in shards {
            shard.withLock { families in
                if families[name] == nil { families[name] = make() }
            }
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

    /// Adds `amount` to a counter.
    package func increment(_ name: String, _ labels: [String] = [], by amount: Double = 1) {
        increment(name, Labels(labels), by: amount)
    }

    /// Adds one to a counter with one or two labels, named without an array (the per-request path).
    package func increment(_ name: String, _ first: String, _ second: String? = nil) {
        increment(name, Labels(first, second), by: 1)
    }

    private func increment(_ name: String, _ labels: Labels, by amount: Double) {
        shard.withLock { families in
            guard let family = families[name] else { return }
            family.series(labels).value += amount
        }
    }

    /// Records one observation in a histogram.
    package func observe(_ name: String, _ labels: [String] = [], _ value: Double) {
        observe(name, Labels(labels), value)
    }

    /// Records one observation in a histogram with one label, named without an array.
    package func observe(_ name: String, label: String, _ value: Double) {
        observe(name, Labels(label), value)
    }

    private func observe(_ name: String, _ labels: Labels, _ value: Double) {
        shard.withLock { families in
            guard let family = families[name] else { return }
            family.series(labels).record(value, buckets: family.buckets)
        }
    }

    /// The current value of a counter series (tests and `relayctl`).
    package func value(_ name: String, _ labels: [String] = []) -> Double {
        let labels = Labels(labels)
        return shards.reduce(0) { total, shard in total + shard.withLock { $0[name]?.series[labels]?.value ?? 0 } }
    }

    /// The text exposition of every metric.
    package func render() -> String {
        var output = ""
        // Every shard's series, added up per family and labels (the shards share the declarations).
        var snapshot: [String: (family: Family, series: [Labels: SeriesValues])] = [:]
        for shard in shards {
            shard.withLock { families in
                for (name, family) in families {
                    var merged = snapshot[name] ?? (family, [:])
                    for (labels, series) in family.series {
                        var values =
                            merged.series[labels]
                            ?? SeriesValues(
                                labels: labels.array, value: 0,
                                bucketCounts: Array(repeating: 0, count: series.bucketCounts.count), sum: 0, count: 0)
                        values.value += series.value
                        for index in values.bucketCounts.indices {
                            values.bucketCounts[index] += series.bucketCounts[index]
                        }
                        values.sum += series.sum
                        values.count += series.count
                        merged.series[labels] = values
                    }
                    snapshot[name] = merged
                }
            }
        }
        for name in snapshot.keys.sorted() {
            let (family, allSeries) = snapshot[name]!
            output += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.kind)\n"
            for series in allSeries.values.sorted(by: {
                $0.labels.joined(separator: "\u{0}") < $1.labels.joined(separator: "\u{0}")
            }) {
                let labels = series.labels
                let pairs = zip(family.labelNames, labels).map { "\($0)=\"\(Self.escape($1))\"" }
                if family.kind == "counter" {
                    output += "\(name)\(Self.braces(pairs)) \(Self.format(series.value))\n"
                } else {
                    for (bound, count) in zip(family.buckets, series.bucketCounts) {
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

    private static func braces(_ pairs: [String]) -> String { pairs.isEmpty ? "" : "{\(pairs.joined(separator: ","))}" }

    private static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    private static func format(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

/// A small number per thread, given out in order on a thread's first use: which metrics shard
/// the thread updates. Kept in a pthread key (Swift has no thread-local storage on Linux), the
/// number itself as the key's pointer value, so nothing is allocated or freed.
enum ThreadSlot {
    private static let next = Atomic<Int>(0)

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()

    static var current: Int {
        if let stored = pthread_getspecific(key) { return Int(bitPattern: stored) - 1 }
        let slot = next.add(1, ordering: .relaxed).oldValue
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: slot + 1))
        return slot
    }
}
