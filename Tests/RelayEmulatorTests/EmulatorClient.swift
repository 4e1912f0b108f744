import Foundation
import RelayEmulator
import RelayHTTP
import RelayJSON
import Testing

/// Raw HTTP against an emulator on a free port: what a client sees on the wire.
final class EmulatorClient: Sendable {
    struct Reply {
        var status: Int
        var json: JSONValue
        var headers: HTTPHeaders
        var text: String
    }

    let emulator: Emulator
    let http: HTTPClient
    /// The environment database calls name: production (the relay's schema, strict) unless a test says otherwise.
    let environment: String

    init(_ configuration: EmulatorConfiguration = EmulatorConfiguration(), environment: String = "production") throws {
        self.environment = environment
        emulator = try Emulator(configuration: configuration)
        try emulator.start()
        http = try HTTPClient()
    }

    deinit { emulator.shutdown() }

    var base: String { emulator.baseURL }

    /// A database call; the token is percent-encoded as a correct client does.
    func database(
        _ operation: String, token: String?, body: JSONValue? = nil, database: String = "private",
        apiToken: String = "emulator-api-token"
    ) async throws -> Reply {
        var url = "\(base)/database/1/iCloud.test/\(environment)/\(database)/\(operation)?ckAPIToken=\(apiToken)"
        if let token { url += "&ckWebAuthToken=" + FormDecoding.encode(token) }
        let request = ClientRequest(
            method: body == nil ? .get : .post, url: url,
            headers: body == nil ? [:] : ["Content-Type": "text/plain"], body: body?.bytes ?? [])
        return try await send(request)
    }

    /// A control API call.
    func control(_ path: String, _ body: JSONValue? = nil) async throws -> Reply {
        try await send(
            ClientRequest(
                method: body == nil ? .get : .post, url: base + path,
                headers: body == nil ? [:] : ["Content-Type": "application/json"], body: body?.bytes ?? []))
    }

    func send(_ request: ClientRequest) async throws -> Reply {
        let response = try await http.send(request)
        let json = (try? JSONValue(parsing: response.body)) ?? .null
        return Reply(status: response.status, json: json, headers: response.headers, text: response.text)
    }

    /// A session for an Apple ID (through the control API).
    func signIn(_ appleID: String = "alice@example.com") throws -> String {
        try emulator.createSession(appleID: appleID).webAuthToken
    }
}

/// Calls `body` with a token and returns the reply; keeps the rotated token for the next call.
final class Session {
    let client: EmulatorClient
    private(set) var token: String

    init(_ client: EmulatorClient, appleID: String = "alice@example.com") throws {
        self.client = client
        token = try client.signIn(appleID)
    }

    func call(_ operation: String, _ body: JSONValue? = nil) async throws -> EmulatorClient.Reply {
        let reply = try await client.database(operation, token: token, body: body)
        if let next = reply.headers["x-apple-cloudkit-web-auth-token"] { token = next }
        return reply
    }
}
