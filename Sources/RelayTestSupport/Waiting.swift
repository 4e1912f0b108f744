/// Polls `condition` every `interval` until it holds; throws, naming `what`, once `timeout` has
/// passed. The default is long on purpose: the Swift cooperative pool has two threads on a two-core
/// machine, and a busy test process can leave a waiting test unscheduled for many seconds. A wait
/// that ends early costs nothing; one that gives up early fails a test for no fault of its own.
package func waitUntil(
    _ what: @autoclosure () -> String = "the condition", timeout: Duration = .seconds(90),
    every interval: Duration = .milliseconds(20), _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return }
        guard ContinuousClock.now < deadline else {
            throw TestSupportFailure("timed out after \(timeout) waiting for \(what())")
        }
        try await Task.sleep(for: interval)
    }
}
