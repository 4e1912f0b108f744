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
}
