import RelayAWS
import RelayHTTP
import RelayStore
import RelaySync
import RelayVault

/// `/readyz`: 200 when the store answers a read and the key service makes a data key, 503 with
/// the failing part otherwise. Both checks run at once, each given the time the relay's own calls
/// give that service (`checkTimeout`), so the answer comes within about 3 s whatever hangs.
/// Results are cached for 10 seconds so probes cannot load KMS.
///
/// A CloudKit API token (or container) that CloudKit refuses, or a CloudKit that does not answer
/// the check at all (a wrong `RELAY_CLOUDKIT_BASE_URL`), is reported but keeps the instance
/// in rotation: `200 degraded: …`. It is one setting shared by every instance, so taking this
/// one out would move its traffic to instances that fail the same way — or, with all of them
/// out, turn clear tool errors (and working token refreshes, revocation and metadata) into a
/// load balancer's outage. The `relay_cloudkit_api_token_refused` gauge and the
/// `cloudkit.api_token_refused` log line are what to alert on (docs/operations.md).
final class Readiness: Sendable {
    private let store: any Store
    private let keyService: any KeyService
    private let credentials: APITokenMonitor
    private let clock: any WallClock
    private let cached = Locked<(at: Double, outages: Int, response: Response)?>(nil)

    init(store: any Store, keyService: any KeyService, credentials: APITokenMonitor, clock: any WallClock) {
        self.store = store
        self.keyService = keyService
        self.credentials = credentials
        self.clock = clock
    }

    func response() async -> Response {
        let now = clock.now()
        // A request that found the store or key service away since the cached answer makes it stale.
        let outages = BackendTiming.outages.load(ordering: .relaxed)
        if let hit = cached.withLock({ $0 }), now - hit.at < 10, hit.outages == outages { return hit.response }
        // Both checks at once, each given `checkTimeout`: a hung service must make the probe say so,
        // not time out, and the answer comes within one limit even when both hang.
        let store = self.store
        let keyService = self.keyService
        async let storeAnswered = Self.within(Self.checkTimeout) {
            do {
                _ = try await store.get(ItemKey(pk: "RELAY#READY", sk: "CHECK"))  // never written: nil is fine
                return true
            } catch {
                return false
            }
        }
        async let keyAnswered = Self.within(Self.checkTimeout) {
            do {
                _ = try await keyService.generateDataKey(context: ConfigurationCheck.probeContext)
                return true
            } catch {
                return false
            }
        }
        var failures: [String] = []
        switch await storeAnswered {
        case true?: break
        case false?: failures.append("store")
        case nil: failures.append("store (no answer)")
        }
        switch await keyAnswered {
        case true?: break
        case false?: failures.append("key service")
        case nil: failures.append("key service (no answer)")
        }
        // While CloudKit's verdict on the API token is missing or bad, ask again in the background
        // (at most one check per 10 s, never making the probe wait on CloudKit): a configuration
        // fixed meanwhile then shows here without waiting for a user's call.
        let apiToken = credentials.status.result
        if apiToken != .accepted {
            Task { [credentials] in _ = await credentials.refresh() }
        }
        var text = failures.isEmpty ? "ready" : "not ready: \(failures.joined(separator: ", "))"
        if apiToken == .refused {
            text =
                (failures.isEmpty ? "" : text + "; ")
                + "degraded: CloudKit refuses the API token (RELAY_CLOUDKIT_API_TOKEN_FILE, container or environment)"
        } else if apiToken == .unknown {
            // Reported, in rotation, for the same reason as a refused API token (see above).
            text =
                (failures.isEmpty ? "" : text + "; ")
                + "degraded: CloudKit does not answer (RELAY_CLOUDKIT_BASE_URL or the network)"
        }
        let response: Response = .text(text, status: failures.isEmpty ? .ok : .serviceUnavailable)
        cached.withLock { $0 = (now, BackendTiming.outages.load(ordering: .relaxed), response) }
        return response
    }

    /// How long one check may take before the probe reports the service as not answering: as long
    /// as the relay's own calls wait for the store or KMS (the AWS attempt timeout, 3 s). A service
    /// that answers within it serves those calls, slowly, and the instance is ready; one that does
    /// not fails them too. A shorter limit called a store slowed to 2 s "not ready" while every call
    /// it served succeeded (`make faults`, `store slow 2 s`), and a load balancer would have pulled
    /// every instance for it.
    static let checkTimeout: Duration = AWSConfiguration.defaultRequestTimeout

    /// `check`'s answer, or nil when it takes longer than `limit` (it then finishes unobserved).
    static func within(_ limit: Duration, _ check: @escaping @Sendable () async -> Bool) async -> Bool? {
        let settled = Locked(false)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool?, Never>) in
            @Sendable func settle(_ value: Bool?) {
                let first = settled.withLock { done -> Bool in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: value) }
            }
            Task { settle(await check()) }
            Task {
                try? await Task.sleep(for: limit)
                settle(nil)
            }
        }
    }
}
