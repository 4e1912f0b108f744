import RelayCloudKit
import RelayEmulator
import RelayHTTP
import RelayJSON
import Testing

/// An emulator on a free port and a CloudKit client pointed at it, over real sockets: the production
/// environment with the relay's schema (`deploy/cloudkit/schema.ckdb`) unless a test passes another.
final class Harness: Sendable {
    let emulator: Emulator
    let http: HTTPClient
    let client: CloudKitClient

    init(
        settings: EmulatorSettings = EmulatorSettings(),
        retry: CloudKitRetryPolicy = CloudKitRetryPolicy(
            maxAttempts: 3, baseDelay: .milliseconds(5), maxDelay: .milliseconds(20), maxRetryAfter: .seconds(1)),
        zoneName: String = "MustDo",
        apiToken: String = "emulator-api-token",
        timeout: Duration = .seconds(15),
        lateAnswerWait: Duration = .zero,
        schema: ContainerSchema = .relay
    ) throws {
        emulator = try Emulator(
            configuration: EmulatorConfiguration(apiToken: "emulator-api-token", schema: schema, settings: settings))
        try emulator.start()
        http = try HTTPClient()
        client = CloudKitClient(
            configuration: CloudKitConfiguration(
                baseURL: emulator.baseURL, container: "iCloud.jp.lightning.mustdo", environment: .production,
                apiToken: CloudKitAPIToken(apiToken), zoneName: zoneName, timeout: timeout, retry: retry,
                lateAnswerWait: lateAnswerWait),
            http: http)
    }

    deinit { emulator.shutdown() }

    /// A signed-in user's token (through the control API, not the page).
    func signIn(_ appleID: String = "alice@example.com") throws -> CloudKitWebAuthToken {
        CloudKitWebAuthToken(try emulator.createSession(appleID: appleID).webAuthToken)
    }

    /// The emulator's count of faults served so far.
    var faultsServed: Int { emulator.statistics()["faultsServed"]?.intValue ?? -1 }
}

/// Runs a call that must fail and returns its `CloudKitError` (nil, and a recorded issue, if it
/// succeeded or threw something else).
func failure<T>(
    _ body: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation
) async -> CloudKitError? {
    do {
        _ = try await body()
        Issue.record("the call succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as CloudKitError {
        return error
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
