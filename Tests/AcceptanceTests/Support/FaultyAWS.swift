import Foundation
import RelayHTTP
import RelayTestSupport

@testable import RelayAWS

/// moto (DynamoDB and KMS) behind `python/fault_proxy.py`: each relay instance reaches each service
/// through a route of its own (`store-a`, `kms-a`, `store-b`, `kms-b`), and each route can refuse,
/// hang or slow its traffic: DynamoDB or KMS alone down, for every instance or for one (a partition).
final class FaultyAWS: Sendable {
    let moto: MotoServer
    let proxy: ChildProcess
    let controlPort: Int
    let ports: [String: Int]
    let table = "mustdo-relay-faults"
    let keyID: String
    let http: HTTPClient

    /// What each route can play.
    enum Mode {
        case pass, refuse, hang
        case delay(milliseconds: Int)

        var path: String {
            switch self {
            case .pass: "pass"
            case .refuse: "refuse"
            case .hang: "hang"
            case .delay(let milliseconds): "delay/\(milliseconds)"
            }
        }
    }

    init(http: HTTPClient, instances: [String] = ["a", "b"]) async throws {
        self.http = http
        moto = try await MotoServer()
        controlPort = try freePort()
        var ports: [String: Int] = [:]
        for instance in instances {
            for service in ["store", "kms"] { ports["\(service)-\(instance)"] = try freePort() }
        }
        self.ports = ports
        let motoPort = moto.port
        let script = ChildProcess.repository.appendingPathComponent("Tests/AcceptanceTests/python/fault_proxy.py")
        proxy = try ChildProcess(
            executable: "/usr/bin/env",
            ["python3", script.path, String(controlPort)]
                + ports.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value):\(motoPort)" })
        _ = try await proxy.waitForOutput(matching: "fault proxy listening")
        keyID = try await MotoProcess.makeTableAndKey(
            table, key: "fault key", endpoint: moto.endpoint, credentials: try MotoProcess.awsCredentials, http: http)
    }

    /// The settings every instance shares (the endpoints are each instance's own: `endpoints(for:)`).
    var relaySettings: [String: String] {
        [
            "RELAY_STORE": "dynamodb", "RELAY_DYNAMODB_TABLE": table,
            "RELAY_DYNAMODB_ENDPOINT": "http://127.0.0.1:\(ports["store-a"]!)",
            "RELAY_KEY_SERVICE": "aws-kms", "RELAY_KMS_KEY_ID": keyID,
            "RELAY_KMS_ENDPOINT": "http://127.0.0.1:\(ports["kms-a"]!)", "RELAY_AWS_REGION": "us-east-1",
        ]
    }

    /// The endpoints of `instance` (given to its process; the environment wins over the env file).
    func endpoints(for instance: String) -> [String: String] {
        [
            "RELAY_DYNAMODB_ENDPOINT": "http://127.0.0.1:\(ports["store-\(instance)"]!)",
            "RELAY_KMS_ENDPOINT": "http://127.0.0.1:\(ports["kms-\(instance)"]!)",
        ]
    }

    /// Sets the mode of routes (`store-a`, `kms-b`…).
    func set(_ routes: [String], _ mode: Mode) async throws {
        let response = try await http.send(
            ClientRequest(url: "http://127.0.0.1:\(controlPort)/\(routes.joined(separator: ","))/\(mode.path)"))
        guard response.status == 200 else {
            throw AcceptanceFailure("fault proxy: \(response.status) \(response.text)")
        }
    }
}
