/// Runs `body`, then `cleanup` whether `body` returned or threw (an asynchronous `defer`): a test's
/// server, harness or child process is stopped even when an expectation inside throws, so the next
/// test does not inherit its port, files or threads.
package func withCleanup<Value>(
    _ body: () async throws -> Value, cleanup: () async -> Void
) async throws -> Value {
    let value: Value
    do {
        value = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return value
}
