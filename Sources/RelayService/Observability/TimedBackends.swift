import RelayCrypto
import RelayJSON
import RelayStore
import RelayVault
import Synchronization

/// Store and key-service latency for `/metrics`: thin decorators around the backends the app is
/// given, recording each call's duration and failure kind. Labels are operation and error names
/// chosen here, never keys or values.
enum BackendTiming {
    /// Buckets from 100 µs (a warm SQLite read) to 10 s (a hung DynamoDB or KMS call).
    static let buckets: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    /// One backend's series: call latency by operation, failures by operation and kind.
    struct Series: Sendable {
        let durations: Metrics.Histogram
        let errors: Metrics.Counter

        /// Runs `body`, recording its duration and, when it fails, the failure's `kind` (and an
        /// outage when the service was away).
        func timed<T, Failure: Error>(
            _ operation: String, _ body: () async throws(Failure) -> T,
            kind: (Failure) -> (name: String, outage: Bool)
        ) async throws(Failure) -> T {
            let start = ContinuousClock.now
            do {
                let result = try await body()
                durations.observe(BackendTiming.seconds(since: start), operation)
                return result
            } catch {
                durations.observe(BackendTiming.seconds(since: start), operation)
                let (name, outage) = kind(error)
                if outage { BackendTiming.outages.add(1, ordering: .relaxed) }
                errors.increment(operation, name)
                throw error
            }
        }
    }

    /// The store's and the key service's series, declared together so both render from the start.
    struct Handles: Sendable {
        let store: Series
        let keyService: Series
    }

    static func declare(_ metrics: Metrics) -> Handles {
        Handles(
            store: Series(
                durations: metrics.declareHistogram(
                    "relay_store_operation_duration_seconds", help: "Store call latency by operation.",
                    labels: ["operation"], buckets: buckets),
                errors: metrics.declareCounter(
                    "relay_store_errors_total", help: "Store calls that failed, by operation and error.",
                    labels: ["operation", "error"])),
            keyService: Series(
                durations: metrics.declareHistogram(
                    "relay_key_service_duration_seconds", help: "Key service (local or KMS) call latency by operation.",
                    labels: ["operation"], buckets: buckets),
                errors: metrics.declareCounter(
                    "relay_key_service_errors_total", help: "Key service calls that failed, by operation and error.",
                    labels: ["operation", "error"])))
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double { (ContinuousClock.now - start).seconds }

    /// Store and key-service calls of this process that found the service away (unavailable or
    /// throttled): `/readyz` checks again, rather than repeat a cached "ready", once this moves.
    static let outages = Atomic<Int>(0)
}

/// A `Store` that times every call on its way to the real one.
struct TimedStore: Store {
    let base: any Store
    let metrics: BackendTiming.Handles

    init(_ base: any Store, metrics: Metrics) {
        self.base = base
        self.metrics = BackendTiming.declare(metrics)
    }

    private func timed<T>(_ operation: String, _ body: () async throws(StoreError) -> T) async throws(StoreError) -> T {
        try await metrics.store.timed(operation, body) { error in
            switch error {
            case .conditionFailed: ("condition_failed", false)
            case .throttled: ("throttled", true)
            case .unavailable: ("unavailable", true)
            case .invalid: ("invalid", false)
            }
        }
    }

    func get(_ key: ItemKey) async throws(StoreError) -> Item? {
        try await timed("get") { () throws(StoreError) in try await base.get(key) }
    }

    func put(_ key: ItemKey, attributes: JSONObject, expiresAt: Int?, condition: WriteCondition)
        async throws(StoreError) -> Item
    {
        try await timed("put") { () throws(StoreError) in
            try await base.put(key, attributes: attributes, expiresAt: expiresAt, condition: condition)
        }
    }

    func update(_ key: ItemKey, _ update: ItemUpdate, condition: WriteCondition) async throws(StoreError) -> Item {
        try await timed("update") { () throws(StoreError) in try await base.update(key, update, condition: condition) }
    }

    func transact(_ writes: [StoreWrite]) async throws(StoreError) {
        try await timed("transact") { () throws(StoreError) in try await base.transact(writes) }
    }

    func delete(_ key: ItemKey, condition: WriteCondition) async throws(StoreError) -> Item? {
        try await timed("delete") { () throws(StoreError) in try await base.delete(key, condition: condition) }
    }

    func query(_ query: Query) async throws(StoreError) -> QueryPage {
        try await timed("query") { () throws(StoreError) in try await base.query(query) }
    }

    func scan(pkPrefix: String, cursor: ScanCursor?, limit: Int) async throws(StoreError) -> ScanPage {
        try await timed("scan") { () throws(StoreError) in
            try await base.scan(pkPrefix: pkPrefix, cursor: cursor, limit: limit)
        }
    }
}

/// A `KeyService` that times every call on its way to the real one.
struct TimedKeyService: KeyService {
    let base: any KeyService
    let metrics: BackendTiming.Handles

    init(_ base: any KeyService, metrics: Metrics) {
        self.base = base
        self.metrics = BackendTiming.declare(metrics)
    }

    private func timed<T>(_ operation: String, _ body: () async throws(VaultError) -> T) async throws(VaultError) -> T {
        try await metrics.keyService.timed(operation, body) { error in
            switch error {
            case .authenticationFailed: ("authentication_failed", false)
            case .malformed: ("malformed", false)
            case .unknownKey: ("unknown_key", false)
            case .keyServiceUnavailable: ("unavailable", true)
            case .keyServiceThrottled: ("throttled", true)
            case .keyFile: ("key_file", false)
            }
        }
    }

    func generateDataKey(context: EncryptionContext) async throws(VaultError) -> DataKey {
        try await timed("generate_data_key") { () throws(VaultError) in
            try await base.generateDataKey(context: context)
        }
    }

    func unwrap(_ wrapped: WrappedKey, context: EncryptionContext) async throws(VaultError) -> SymmetricKey {
        try await timed("unwrap") { () throws(VaultError) in try await base.unwrap(wrapped, context: context) }
    }
}
