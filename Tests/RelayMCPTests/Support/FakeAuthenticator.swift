import RelayHTTP
import RelayMCP
import RelaySync

/// Who a test request is for, and the scopes its token carries.
struct TestPrincipal: MCPPrincipal, Equatable {
    static let allScopes = ["todos:read", "todos:write"]

    var user: String
    var scopes: [String] = TestPrincipal.allScopes
}

/// Accepts `Authorization: Bearer <token>` for the configured tokens (and, when told to, requests
/// without a header, for SDK runs without OAuth). Everything else gets the 401 challenge the real
/// OAuth authenticator sends. `immediate` decides whether answers come through the synchronous
/// fast path or through `authenticate`.
final class FakeAuthenticator: MCPAuthenticator, Sendable {
    typealias Principal = TestPrincipal

    static let challenge =
        #"Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp", scope="todos""#

    /// A token whose user was granted `todos:read` only.
    static let readOnlyToken = "read-token"

    let tokens: [String: String]
    /// Scopes per user; a user not listed holds every scope.
    let scopes: [String: [String]]
    let allowsAnonymous: Bool
    let immediate: Bool
    /// Tool calls admitted in all before `admitToolCall` answers `RATE_LIMITED`; nil: no limit.
    let toolCallBudget: Int?
    /// Other requests (`admitRequest`) admitted in all before it answers 9 s to wait; nil: no limit.
    let requestBudget: Int?
    private let requests = Locked(0)
    private let endedSessions = Locked<[String]>([])
    private let calls = Locked(0)

    init(
        tokens: [String: String] = ["test-token": "alice", FakeAuthenticator.readOnlyToken: "reader"],
        scopes: [String: [String]] = ["reader": ["todos:read"]],
        allowsAnonymous: Bool = false, immediate: Bool = true, toolCallBudget: Int? = nil, requestBudget: Int? = nil
    ) {
        self.requestBudget = requestBudget
        self.tokens = tokens
        self.scopes = scopes
        self.allowsAnonymous = allowsAnonymous
        self.immediate = immediate
        self.toolCallBudget = toolCallBudget
    }

    /// How many times `admitToolCall` was asked.
    var admissionsAsked: Int { calls.withLock { $0 } }

    func admitToolCall(_ principal: TestPrincipal) -> ToolError? {
        let count = calls.withLock { count in
            count += 1
            return count
        }
        guard let toolCallBudget, count > toolCallBudget else { return nil }
        return ToolError(code: "RATE_LIMITED", message: "Too many calls.", details: ["retryAfter": 7])
    }

    /// How many times `admitRequest` was asked.
    var requestsAsked: Int { requests.withLock { $0 } }

    func admitRequest(_ principal: TestPrincipal) -> Int? {
        let count = requests.withLock { count in
            count += 1
            return count
        }
        guard let requestBudget, count > requestBudget else { return nil }
        return 9
    }

    /// Users whose session a tool reported as ended.
    var sessionsEnded: [String] { endedSessions.withLock { $0 } }

    func authenticateImmediately(_ request: Request) -> MCPAuthentication<TestPrincipal>? {
        immediate ? decide(request) : nil
    }

    func authenticate(_ request: Request) async -> MCPAuthentication<TestPrincipal> {
        await Task.yield()
        return decide(request)
    }

    func sessionEnded(_ request: Request, principal: TestPrincipal) async -> Response {
        endedSessions.withLock { $0.append(principal.user) }
        return Self.unauthorized(#", error="invalid_token""#)
    }

    private func decide(_ request: Request) -> MCPAuthentication<TestPrincipal> {
        guard let header = request.headers["authorization"] else {
            return allowsAnonymous ? .authorized(TestPrincipal(user: "anonymous")) : .rejected(Self.unauthorized(""))
        }
        guard header.hasPrefix("Bearer "), let user = tokens[String(header.dropFirst(7))] else {
            return .rejected(Self.unauthorized(#", error="invalid_token""#))
        }
        return .authorized(TestPrincipal(user: user, scopes: scopes[user] ?? TestPrincipal.allScopes))
    }

    /// The relay's shape: needed and granted, in the server's order, then the metadata.
    func insufficientScopeChallenge(principal: TestPrincipal, needed: [String]) -> String {
        let offered = TestPrincipal.allScopes
        let scopes =
            offered.filter { needed.contains($0) || principal.scopes.contains($0) }
            + needed.filter { !offered.contains($0) }
        return "Bearer error=\"insufficient_scope\", scope=\"" + scopes.joined(separator: " ")
            + "\", resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource/mcp\""
    }

    static func unauthorized(_ extra: String) -> Response {
        var response = Response.json(["error": "invalid_token"], status: .unauthorized)
        response.headers.add("WWW-Authenticate", challenge + extra)
        return response
    }
}
