import RelaySync

/// Runs `operation` but answers `keyServiceUnavailable` after `timeout` even if the operation
/// never returns (a hung key service must not hang the request). The operation is cancelled then;
/// its late result is dropped.
func withTimeout<T: Sendable>(
    _ timeout: Duration, _ operation: @escaping @Sendable () async throws(VaultError) -> T
) async throws(VaultError) -> T {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, VaultError>, Never>) in
        let waiter = Locked<CheckedContinuation<Result<T, VaultError>, Never>?>(continuation)
        let take: @Sendable () -> CheckedContinuation<Result<T, VaultError>, Never>? = {
            waiter.withLock { pending in
                defer { pending = nil }
                return pending
            }
        }
        let timerSlot = Locked<Task<Void, Never>?>(nil)
        let work = Task {
            let result: Result<T, VaultError>
            do throws(VaultError) { result = .success(try await operation()) } catch { result = .failure(error) }
            let pending = take()
            timerSlot.withLock { $0 }?.cancel()
            pending?.resume(returning: result)
        }
        let timer = Task {
            do { try await Task.sleep(for: timeout) } catch { return }
            guard let pending = take() else { return }
            work.cancel()
            pending.resume(returning: .failure(.keyServiceUnavailable("no answer within \(timeout)")))
        }
        timerSlot.withLock { $0 = timer }
    }
    return try result.get()
}
