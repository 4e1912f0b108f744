import RelayHTTP
import RelayJSON

/// The MCP endpoint: stateless Streamable HTTP (revisions 2025-03-26, 2025-06-18, 2025-11-25) on
/// one path. Every POST carries one JSON-RPC message (or, in 2025-03-26, a batch) and gets one
/// JSON response; no session id is ever issued, GET and DELETE get 405, and 2026-era clients
/// probing with `server/discover` get an immediate 400 so they fall back to `initialize`.
///
/// Order of checks for every request: Host (421), Origin (403), OPTIONS preflight (204, no
/// token), body size (413), authentication (the authenticator's 401), method (405), then for
/// POST: Content-Type (415), Accept (406), JSON (400/-32700), protocol version (400).
///
/// ```swift
/// let endpoint = try MCPEndpoint(configuration: configuration, tools: tools, authenticator: auth)
/// endpoint.mount(on: &router)                  // or: endpoint.responder(otherwise: router.responder)
/// ```
public final class MCPEndpoint<Principal: MCPPrincipal>: Sendable {
    /// The settings it was built with.
    public let configuration: MCPEndpointConfiguration
    /// The registered tools.
    public let registry: ToolRegistry<Principal>
    let authenticator: any MCPAuthenticator<Principal>
    let screen: RequestScreen
    private let initializeResults: [ProtocolVersion: PreencodedResult]

    /// An endpoint serving `tools`. Throws when a tool definition is invalid (see `ToolRegistry`).
    public init(
        configuration: MCPEndpointConfiguration,
        tools: [any Tool<Principal>],
        authenticator: some MCPAuthenticator<Principal>
    ) throws(MCPError) {
        self.configuration = configuration
        self.registry = try ToolRegistry(tools, pageSize: configuration.pageSize)
        self.authenticator = authenticator
        self.screen = RequestScreen(configuration)
        var results: [ProtocolVersion: PreencodedResult] = [:]
        for version in ProtocolVersion.allCases {
            results[version] = PreencodedResult(Self.initializeResult(configuration, version: version))
        }
        initializeResults = results
    }

    private static func initializeResult(_ configuration: MCPEndpointConfiguration, version: ProtocolVersion)
        -> JSONValue
    {
        var serverInfo: JSONObject = ["name": .string(configuration.serverInfo.name)]
        if version.hasStructuredOutput, let title = configuration.serverInfo.title {
            serverInfo["title"] = .string(title)
        }
        serverInfo["version"] = .string(configuration.serverInfo.version)
        var result: JSONObject = [
            "protocolVersion": .string(version.rawValue),
            "capabilities": ["tools": ["listChanged": false]],
            "serverInfo": .object(serverInfo),
        ]
        if let instructions = configuration.instructions { result["instructions"] = .string(instructions) }
        return .object(result)
    }

    func initializeResult(for version: ProtocolVersion) -> PreencodedResult { initializeResults[version]! }

    /// Answers one request to the endpoint path: at once when nothing needs to wait (refusals, a
    /// synchronous authentication followed by anything but `tools/call`), otherwise as a task.
    public func respond(to request: Request) -> Responder.Outcome {
        if let refusal = screen.refusal(for: request) { return .now(refusal) }
        if request.method == .options { return .now(MCPResponses.preflight(request)) }
        if request.body.count > configuration.maxBodyBytes {
            return .now(
                MCPResponses.refusal(.contentTooLarge, "The body is larger than \(configuration.maxBodyBytes) bytes."))
        }
        if let decision = authenticator.authenticateImmediately(request) { return proceed(request, decision) }
        return .later { [self] in
            switch proceed(request, await authenticator.authenticate(request)) {
            case .now(let response): response
            case .later(let work): await work()
            }
        }
    }

    /// Answers one request, awaiting whatever work it needs.
    public func response(to request: Request) async -> Response {
        switch respond(to: request) {
        case .now(let response): response
        case .later(let work): await work()
        }
    }

    private func proceed(_ request: Request, _ decision: MCPAuthentication<Principal>) -> Responder.Outcome {
        switch decision {
        case .rejected(let response): .now(MCPResponses.withCORS(response))
        case .authorized(let principal):
            request.method == .post ? post(request, principal: principal) : .now(MCPResponses.methodNotAllowed)
        }
    }

    /// The paths served: the configured one and the same with a trailing slash.
    public var paths: [String] { [configuration.path, configuration.path + "/"] }

    /// Registers the endpoint on `router` for both paths and the methods clients use (POST, GET,
    /// DELETE, OPTIONS, PUT, PATCH; HEAD follows GET), so every one of them is authenticated before
    /// its 405. Router handlers always run as a task; `responder(otherwise:)` avoids that.
    public func mount(on router: inout Router) {
        for path in paths {
            for method in [HTTPMethod.post, .get, .delete, .options, .put, .patch] {
                router.on(method, path) { [self] request in await response(to: request) }
            }
        }
    }

    /// A responder that answers the endpoint's paths itself (any method) and hands every other
    /// request to `fallback`: the fastest way to serve `/mcp`.
    public func responder(otherwise fallback: Responder) -> Responder {
        let exact = configuration.path
        let slashed = configuration.path + "/"
        return Responder { [self] request in
            let path = request.path
            if path == exact || path == slashed { return respond(to: request) }
            return fallback(request)
        }
    }
}
