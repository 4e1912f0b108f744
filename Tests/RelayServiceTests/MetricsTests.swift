import Foundation
import Testing

@testable import RelayService

/// Counters and histograms as Prometheus reads them, including under concurrent updates.
@Suite struct MetricsTests {
    @Test func histogramBucketsAreCumulative() {
        let metrics = Metrics()
        let latency = metrics.declareHistogram(
            "latency_seconds", help: "Latency.", labels: ["route"], buckets: [0.1, 1])
        for value in [0.05, 0.1, 0.5, 2] { latency.observe(value, "/mcp") }
        latency.observe(0.5, "/token")
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
    }

    /// A name declared again gives the same handle, and every label count renders in order.
    @Test func labelsNamedOrInAnArrayAreTheSameSeries() {
        let metrics = Metrics()
        let calls = metrics.declareCounter("calls_total", help: "Calls.", labels: ["tool", "outcome"])
        let single = metrics.declareCounter("single_total", help: "Single.", labels: ["kind"])
        let wide = metrics.declareCounter("wide_total", help: "Wide.", labels: ["a", "b", "c", "d"])
        let took = metrics.declareHistogram("took_seconds", help: "Took.", labels: ["route"], buckets: [1])
        calls.increment("get_me", "ok")
        metrics.declareCounter("calls_total", help: "Calls.", labels: ["tool", "outcome"]).increment("get_me", "ok")
        calls.increment("get_me", "failed")
        single.increment("x")
        single.increment("x", by: 2)
        wide.increment("1", "2", "3", "4")
        took.observe(0.5, "/mcp")
        took.observe(2, "/mcp")
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
        let requests = metrics.declareCounter("requests_total", help: "Requests.", labels: ["status"])
        let durations = metrics.declareHistogram("duration_seconds", help: "Durations.", buckets: [0.5])
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for _ in 0..<1000 {
                        requests.increment(task % 2 == 0 ? "200" : "500")
                        durations.observe(task % 2 == 0 ? 0.25 : 0.75)
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

    /// Threads of their own (as the event loops are) update the same series; what renders and
    /// what `value` reads is every update, each series once.
    @Test func updatesFromManyThreadsAddUp() async {
        let metrics = Metrics()
        let x = metrics.declareCounter("x_total", help: "X.", labels: ["kind"])
        let y = metrics.declareHistogram("y_seconds", help: "Y.", labels: ["kind"], buckets: [0.5])
        let threads = 12
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<threads {
                group.addTask {
                    await withCheckedContinuation { continuation in
                        Thread {
                            for _ in 0..<500 {
                                x.increment("shared")
                                y.observe(index % 2 == 0 ? 0.25 : 0.75, "shared")
                            }
                            if index == 3 { x.increment("only-thread-3") }
                            continuation.resume()
                        }.start()
                    }
                }
            }
        }
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

    /// What used to vanish without a word is now loud. A series can only be updated through the
    /// handle its declaration returns (there is no update by name, so an undeclared series does not
    /// compile); what is left to get wrong stops the process: another number of label values than
    /// declared (once rendered as a truncated series), or one name declared twice differently.
    @Test func aMisnamedSeriesStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            Metrics().declareCounter("calls_total", help: "Calls.", labels: ["tool", "outcome"]).increment("get_me")
        }
        await #expect(processExitsWith: .failure) {
            Metrics().declareHistogram("took_seconds", help: "Took.", labels: ["route"]).observe(1)
        }
        await #expect(processExitsWith: .failure) {
            let metrics = Metrics()
            metrics.declareCounter("calls_total", help: "Calls.", labels: ["tool"])
            metrics.declareHistogram("calls_total", help: "Calls.", labels: ["tool"])
        }
        await #expect(processExitsWith: .success) {
            let metrics = Metrics()
            metrics.declareCounter("calls_total", help: "Calls.", labels: ["tool"]).increment("get_me")
            metrics.declareCounter("calls_total", help: "Calls.", labels: ["tool"]).increment("get_me")
            guard metrics.value("calls_total", ["get_me"]) == 2 else { exit(1) }
        }
    }
}
