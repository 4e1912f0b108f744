import RelayHTTP
import RelayStore
import RelayVault

/// `/readyz`: 200 when the store answers a read and the key service makes a data key, 503 with
/// the failing part otherwise. Results are cached for 10 seconds so probes cannot load KMS.
final class Readiness: Sendable {
    private let store: any Store
    private let keyService: any KeyService
    private let clock: any Clock
    private let cached = Locked<(at: Double, response: Response)?>(nil)

    init(store: any Store, keyService: any KeyService, clock: any Clock) {
        self.store = store
        self.keyService = keyService
        self.clock = clock
    }

    func response() async -> Response {
        let now = clock.now()
        if let hit = cached.withLock({ $0 }), now - hit.at < 10 { return hit.response }
        var failures: [String] = []
        do {
            _ = try await store.get(ItemKey(pk: "RELAY#READY", sk: "CHECK"))
        } catch {
            failures.append("store")
        }
        do {
            _ = try await keyService.generateDataKey(context: ConfigurationCheck.probeContext)
        } catch {
            failures.append("key service")
        }
        let response: Response =
            failures.isEmpty
            ? .text("ready") : .text("not ready: \(failures.joined(separator: ", "))", status: .serviceUnavailable)
        cached.withLock { $0 = (now, response) }
        return response
    }
}
