import Foundation
import RelayTestSupport

/// moto (a DynamoDB stand-in) for the command-line tests: RelayTestSupport's `MotoServer`, with
/// what the relay and relayctl need in their environment to reach it.
final class MotoProcess: Sendable {
    let server: MotoServer

    var port: Int { server.port }
    var endpoint: String { server.endpoint }

    /// What the relay and relayctl need in their environment to reach moto.
    static let credentials = ["AWS_ACCESS_KEY_ID": "AKIDMOTOTESTING", "AWS_SECRET_ACCESS_KEY": "moto-secret-key"]

    init() async throws {
        server = try await MotoServer()
    }

    func stop() {
        server.kill()
    }
}
