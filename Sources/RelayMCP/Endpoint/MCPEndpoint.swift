import RelayHTTP
import RelayJSON

/// The MCP endpoint: stateless Streamable HTTP on one path, in two eras side by side. The legacy
/// revisions (2025-03-26, 2025-06-18, 2025-11-25) open with `initialize`; the modern one
/// (2026-07-28) needs no handshake: every request carries its version and the client's capabilities
/// in `params._meta`, mirrored in routing headers. Each request is served in the era its body and
/// headers name; both eras share the tool code (lookup, argument validation, error mapping) and
/// differ only in how a result is framed and which HTTP status an error travels with. Every POST
/// carries one JSON-RPC message (or, in 2025-03-26, a batch) and gets one response; no session id is
/// ever issued, and GET and DELETE get 405.
///
/// Order of checks for every request: Host (421), Origin (403), OPTIONS preflight (204, no
/// token), body size (413), authentication (the authenticator's 401), method (405), then for
/// POST: Content-Type (415), Accept (406), JSON (400/-32700), then the era's own checks.
///
/// ```swift
/// let endpoint = try MCPEndpoint(configuration: configuration, tools: tools, authenticator: auth)
/// endpoint.mount(on: &router)
/// ```
package final class MCPEndpoint<Principal: MCPPrincipal>: Sendable {
    /// The settings it was built with.
    package let configuration: MCPEndpointConfiguration
    /// The registered tools.
    package let registry: ToolRegistry<Principal>
    /// The registered prompts (none: no `prompts` capability, and `prompts/*` are unknown methods).
    let prompts: PromptRegistry
    /// The registered resources (none: no `resources` capability, and `resources/*` are unknown methods).
    let resources: ResourceRegistry
    let authenticator: any MCPAuthenticator<Principal>
    let screen: RequestScreen
    let envelope: ResultEnvelope
    private let initializeResults: [ProtocolVersion: PreencodedResult]
    /// The `server/discover` result over HTTP, where both eras are served: the same for every
    /// caller, so encoded once.
    let discoverResult: PreencodedResult
    /// The `server/discover` result of a stdio process that a modern first request made modern: it
    /// accepts no `initialize` from then on, so it names only the modern versions.
    let modernOnlyDiscoverResult: PreencodedResult

    /// An endpoint serving `tools`, `prompts` and `resources`, declaring `extensions` (by extension id,
    /// e.g. `io.modelcontextprotocol/ui`) in its capabilities. Throws when a tool, prompt or resource
    /// definition is invalid (see `ToolRegistry`).
    package init(
        configuration: MCPEndpointConfiguration,
        tools: [any Tool<Principal>],
        prompts: [Prompt] = [],
        resources: [Resource] = [],
        extensions: JSONObject = [:],
        authenticator: some MCPAuthenticator<Principal>
    ) throws(MCPError) {
        self.configuration = configuration
        let envelope = ResultEnvelope(serverInfo: configuration.serverInfo, cache: configuration.cacheHint)
        self.envelope = envelope
        self.registry = try ToolRegistry(tools, pageSize: configuration.pageSize, envelope: envelope)
        self.prompts = try PromptRegistry(prompts, pageSize: configuration.pageSize, envelope: envelope)
        self.resources = try ResourceRegistry(resources, envelope: envelope)
        self.authenticator = authenticator
        self.screen = RequestScreen(configuration)
        let features = Self.capabilities(
            registry, prompts: self.prompts, resources: self.resources, extensions: extensions)
        var results: [ProtocolVersion: PreencodedResult] = [:]
        for version in ProtocolVersion.legacyVersions {
            results[version] = PreencodedResult(Self.initializeResult(configuration, features, version: version))
        }
        initializeResults = results
        discoverResult = PreencodedResult(
            Self.discoverResult(configuration, features, envelope, versions: ProtocolVersion.supportedStrings))
        modernOnlyDiscoverResult = PreencodedResult(
            Self.discoverResult(
                configuration, features, envelope, versions: ProtocolVersion.modernVersions.map(\.rawValue)))
    }

    private static func initializeResult(
        _ configuration: MCPEndpointConfiguration, _ capabilities: JSONObject, version: ProtocolVersion
    ) -> JSONValue {
        var serverInfo: JSONObject = ["name": .string(configuration.serverInfo.name)]
        if version.hasStructuredOutput, let title = configuration.serverInfo.title {
            serverInfo["title"] = .string(title)
        }
        serverInfo["version"] = .string(configuration.serverInfo.version)
        var result: JSONObject = [
            "protocolVersion": .string(version.rawValue),
            "capabilities": .object(capabilities),
            "serverInfo": .object(serverInfo),
        ]
        if let instructions = configuration.instructions { result["instructions"] = .string(instructions) }
        return .object(result)
    }

    /// `server/discover` (2026-07-28 `server/discover.mdx`): the versions the server accepts ("MCP
    /// Protocol Versions this server supports", the spec's `DiscoverResult`), the same capabilities
    /// and instructions as `initialize`, the identity in the `_meta` stamp, and the cache hint.
    private static func discoverResult(
        _ configuration: MCPEndpointConfiguration, _ capabilities: JSONObject, _ envelope: ResultEnvelope,
        versions: [String]
    ) -> JSONValue {
        var result: JSONObject = [
            "supportedVersions": .array(versions.map { .string($0) }),
            "capabilities": .object(capabilities),
        ]
        if let instructions = configuration.instructions { result["instructions"] = .string(instructions) }
        return envelope.finish(result, version: ProtocolVersion.modernVersions.last!, cacheable: true)
    }

    func initializeResult(for version: ProtocolVersion) -> PreencodedResult { initializeResults[version]! }

    /// Answers one request to the endpoint path: at once when nothing needs to wait (refusals, a
    /// synchronous authentication followed by anything but `tools/call`), otherwise as a task.
    package func respond(to request: Request) -> Responder.Outcome {
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

    private func proceed(_ request: Request, _ decision: MCPAuthentication<Principal>) -> Responder.Outcome {
        switch decision {
        case .rejected(let response): .now(MCPResponses.withCORS(response))
        case .authorized(let principal):
            request.method == .post ? post(request, principal: principal) : .now(MCPResponses.methodNotAllowed)
        }
    }

    /// The paths served: the configured one and the same with a trailing slash.
    package var paths: [String] { [configuration.path, configuration.path + "/"] }

    /// Mounts the endpoint on `router` at both paths for every method, so every request there is
    /// authenticated before its 405, and named by the configured path in logs and metrics. The
    /// router hands the request straight to `respond(to:)`: what it answers at once (refusals, a
    /// cached token's `tools/list`) creates no task.
    package func mount(on router: inout Router) {
        router.mount(paths, as: configuration.path, Responder { [self] request in respond(to: request) })
    }
}
