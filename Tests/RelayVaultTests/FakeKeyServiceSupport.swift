import Dispatch
import RelayCrypto
import RelaySync
import RelayVault

/// Test double: a `LocalKeyService` that counts calls and can be made slow or broken.
final class FakeKeyService: KeyService {
    enum Mode: Sendable {
        case normal
        /// Takes this long and ignores cancellation, like a hung network call, then fails.
        case hang(seconds: Double)
        case failing(VaultError)
    }

    private let inner: LocalKeyService
    private let state = Locked((generated: 0, unwrapped: 0, mode: Mode.normal))

    init() throws {
        inner = try LocalKeyService(keys: [("k1", SymmetricKey.random())])
    }

    var generateCalls: Int { state.withLock { $0.generated } }
    var unwrapCalls: Int { state.withLock { $0.unwrapped } }

    func set(_ mode: Mode) {
        state.withLock { $0.mode = mode }
    }

    func generateDataKey(context: EncryptionContext) async throws(VaultError) -> DataKey {
        let mode = state.withLock { state in
            state.generated += 1
            return state.mode
        }
        try await behave(mode)
        return try await inner.generateDataKey(context: context)
    }

    func unwrap(_ wrapped: WrappedKey, context: EncryptionContext) async throws(VaultError) -> SymmetricKey {
        let mode = state.withLock { state in
            state.unwrapped += 1
            return state.mode
        }
        try await behave(mode)
        return try await inner.unwrap(wrapped, context: context)
    }

    private func behave(_ mode: Mode) async throws(VaultError) {
        switch mode {
        case .normal:
            return
        case .hang(let seconds):
            // A wait that ignores cancellation and holds no thread.
            await withCheckedContinuation { continuation in
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { continuation.resume() }
            }
            throw .keyServiceUnavailable("answered after \(seconds) s")
        case .failing(let error):
            throw error
        }
    }
}
