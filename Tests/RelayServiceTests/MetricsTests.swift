import Foundation
import Testing

@testable import RelayService

/// Counters and histograms as Prometheus reads them, including under concurrent updates.
@Suite struct MetricsTests {
    @Test func histogramBucketsAreCumulative() {
        let metrics = Metrics()
        metrics.declareHistogram("latency_seconds", help: "Latency.", labels: ["route"], buckets: [0.1, 1])
        for value in [0.05, 0.1, 0.5, 2] { metrics.observe("latency_seconds", ["/mcp"], value) }
        metrics.observe("latency_seconds", ["/token"], 0.5)
        metrics.observe("undeclared", [], 1)
        let text = metrics.render()
        for line in [
            #"latency_seconds_bucket{route="/mcp",le="0.1"} 2"#,
            #"latency_seconds_bucket{route="/mcp",le="1"} 3"#,
            #"latency_seconds_bucket{route="/mcp",le="+Inf"} 4"#,
            #"latency_seconds_sum{route="/mcp"} 2.65"#,
            #"latency_seconds_count{route="/mcp"} 4"#,
            #"latency_seconds_bucket{route="/token",le="0.1"} 0"#,
            #"latency_seconds_count{route="/token"} 1"#,
        ] {
            #expect(text.contains(line + "\n"), "\(line) missing from:\n\(text)")
        }
        #expect(!text.contains("undeclared"))
    }

    /// The per-request forms (labels named, no array) reach the same series as the array forms,
    /// and every label count renders in order: none, one, two, and past the three held inline.
    @Test func labelsNamedOrInAnArrayAreTheSameSeries() {
        let metrics = Metrics()
        metrics.declareCounter("calls_total", help: "Calls.", labels: ["tool", "outcome"])
        metrics.declareCounter("single_total", help: "Single.", labels: ["kind"])
        metrics.declareCounter("wide_total", help: "Wide.", labels: ["a", "b", "c", "d"])
        metrics.declareHistogram("took_seconds", help: "Took.", labels: ["route"], buckets: [1])
        metrics.increment("calls_total", "get_me", "ok")
        metrics.increment("calls_total", ["get_me", "ok"])
        metrics.increment("calls_total", "get_me", "failed")
        metrics.increment("single_total", "x")
        metrics.increment("single_total", ["x"], by: 2)
        metrics.increment("wide_total", ["1", "2", "3", "4"])
        metrics.observe("took_seconds", label: "/mcp", 0.5)
        metrics.observe("took_seconds", ["/mcp"], 2)
        #expect(metrics.value("calls_total", ["get_me", "ok"]) == 2)
        #expect(metrics.value("calls_total", ["get_me", "failed"]) == 1)
        #expect(metrics.value("calls_total", ["get_me"]) == 0, "one label is another series than two")
        #expect(metrics.value("single_total", ["x"]) == 3)
        let text = metrics.render()
        for line in [
            #"calls_total{tool="get_me",outcome="ok"} 2"#, #"calls_total{tool="get_me",outcome="failed"} 1"#,
            #"single_total{kind="x"} 3"#, #"wide_total{a="1",b="2",c="3",d="4"} 1"#,
            #"took_seconds_bucket{route="/mcp",le="1"} 1"#, #"took_seconds_count{route="/mcp"} 2"#,
        ] {
            #expect(text.contains(line + "\n"), "\(line) missing from:\n\(text)")
        }
    }

    @Test func concurrentUpdatesAreAllCounted() async {
        let metrics = Metrics()
        metrics.declareCounter("requests_total", help: "Requests.", labels: ["status"])
        metrics.declareHistogram("duration_seconds", help: "Durations.", buckets: [0.5])
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for _ in 0..<1000 {
                        metrics.increment("requests_total", [task % 2 == 0 ? "200" : "500"])
                        metrics.observe("duration_seconds", [], task % 2 == 0 ? 0.25 : 0.75)
                    }
                }
            }
        }
        #expect(metrics.value("requests_total", ["200"]) == 4000)
        #expect(metrics.value("requests_total", ["500"]) == 4000)
        let text = metrics.render()
        #expect(text.contains("duration_seconds_bucket{le=\"0.5\"} 4000\n"))
        #expect(text.contains("duration_seconds_count 8000\n"))
    }

    /// Threads update their own shards (one per thread slot, slots shared past `shardCount`
    /// threads); what renders and what `value` reads is the sum, each series once.
    @Test func updatesFromManyThreadsAddUpAcrossShards() async {
        let metrics = Metrics()
        metrics.declareCounter("x_total", help: "X.", labels: ["kind"])
        metrics.declareHistogram("y_seconds", help: "Y.", labels: ["kind"], buckets: [0.5])
        let threads = Metrics.shardCount + 4
        let slots = await withTaskGroup(of: Int.self) { group in
            for index in 0..<threads {
                group.addTask {
                    await withCheckedContinuation { continuation in
                        Thread {
                            for _ in 0..<500 {
                                metrics.increment("x_total", "shared")
                                metrics.observe("y_seconds", label: "shared", index % 2 == 0 ? 0.25 : 0.75)
                            }
                            if index == 3 { metrics.increment("x_total", "only-thread-3") }
                            continuation.resume(returning: ThreadSlot.current)
                        }.start()
                    }
                }
            }
            var slots: [Int] = []
            for await slot in group { slots.append(slot) }
            return slots
        }
        #expect(Set(slots).count == threads)  // every thread its own slot
        #expect(metrics.value("x_total", ["shared"]) == Double(threads * 500))
        #expect(metrics.value("x_total", ["only-thread-3"]) == 1)
        let text = metrics.render()
        let lines = text.split(separator: "\n").map(String.init)
        let shared = lines.filter { $0.hasPrefix(#"x_total{kind="shared"}"#) }
        #expect(shared == [#"x_total{kind="shared"} \#(threads * 500)"#])
        let single = lines.filter { $0.hasPrefix(#"x_total{kind="only-thread-3"}"#) }
        #expect(single == [#"x_total{kind="only-thread-3"} 1"#])
        #expect(lines.contains(#"y_seconds_bucket{kind="shared",le="0.5"} \#(threads / 2 * 500)"#), "\(text)")
        #expect(lines.contains(#"y_seconds_count{kind="shared"} \#(threads * 500)"#), "\(text)")
        // 0.25 and 0.75 per pair of threads: 1 per pair.
        #expect(lines.contains(#"y_seconds_sum{kind="shared"} \#(threads / 2 * 500)"#), "\(text)")
        #expect(lines.filter { $0.hasPrefix("# TYPE x_total") }.count == 1)
    }
}
