import RelayHTTP
import RelayMCP
import RelaySync
import RelayTodo

/// A connected user as the tools see it: their CloudKit session.
struct TestGrant: TodoPrincipal {
    let user: String
    let session: any CloudKitSession
    var scopes: [String] = [TodoScope.read, TodoScope.write]
    /// The person, as the hosted relay's user ID would be.
    var cursorOwner: String { user }
}

/// Bearer tokens → grants, as the OAuth authenticator would resolve them. `sessionEnded` forgets the grant
/// (as RelayService deletes it) and answers the 401 challenge.
final class FakeGrantAuthenticator: MCPAuthenticator, Sendable {
    typealias Principal = TestGrant

    static let challenge = #"Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp""#

    private let state = Locked<(grants: [String: TestGrant], ended: [String])>(([:], []))

    /// Lets `bearer` act as `grant`.
    func register(_ bearer: String, _ grant: TestGrant) { state.withLock { $0.grants[bearer] = grant } }

    /// Users whose grant a tool ended, in order.
    var ended: [String] { state.withLock { $0.ended } }

    /// Whether `bearer` still names a grant.
    func isConnected(_ bearer: String) -> Bool { state.withLock { $0.grants[bearer] != nil } }

    func authenticateImmediately(_ request: Request) -> MCPAuthentication<TestGrant>? {
        let header = request.headers["authorization"] ?? ""
        guard header.hasPrefix("Bearer "), let grant = state.withLock({ $0.grants[String(header.dropFirst(7))] })
        else { return .rejected(Self.unauthorized) }
        return .authorized(grant)
    }

    func authenticate(_ request: Request) async -> MCPAuthentication<TestGrant> {
        authenticateImmediately(request) ?? .rejected(Self.unauthorized)
    }

    func sessionEnded(_ request: Request, principal: TestGrant) async -> Response {
        state.withLock { state in
            state.ended.append(principal.user)
            state.grants = state.grants.filter { $0.value.user != principal.user }
        }
        return Self.unauthorized
    }

    func insufficientScopeChallenge(principal: TestGrant, needed: [String]) -> String {
        "Bearer error=\"insufficient_scope\", scope=\"" + Set(principal.scopes + needed).sorted().joined(separator: " ")
            + "\""
    }

    static var unauthorized: Response {
        var response = Response.json(["error": "invalid_token"], status: .unauthorized)
        response.headers.add("WWW-Authenticate", challenge + #", error="invalid_token""#)
        return response
    }
}
