import RelayJSON
import RelaySync

/// How long a client may consider a result fresh and who may share a cached copy: the 2026-07-28
/// `ttlMs` and `cacheScope` (`server/utilities/caching.mdx`), sent on results that are the same for
/// every caller while a deployment runs (`server/discover`, `tools/list`).
package struct MCPCacheHint: Sendable, Equatable {
    /// Who may reuse a cached result.
    package enum Scope: String, Sendable {
        /// Any client or shared intermediary, across access tokens: nothing in it is per person.
        case `public`
        /// Only within the authorization context that fetched it.
        case `private`
    }

    /// Freshness (`ttlMs`, whole milliseconds); zero means stale at once.
    package var ttl: Duration
    /// `cacheScope`.
    package var scope: Scope

    /// A hint; a negative TTL is a programming error.
    package init(ttl: Duration, scope: Scope) {
        precondition(ttl >= .zero, "ttlMs must not be negative")
        self.ttl = ttl
        self.scope = scope
    }

    /// One hour, shareable: the tool list and capabilities change only when a new version is
    /// deployed, and a client that meets an unknown tool re-fetches early anyway (the spec allows it).
    package static let staticPerDeployment = MCPCacheHint(ttl: .seconds(3600), scope: .public)
}

/// What a modern (2026-07-28) result carries besides its own members: `resultType: "complete"` and
/// the server's identity in `_meta["io.modelcontextprotocol/serverInfo"]` on every result, and the
/// cache hint on cacheable ones. Legacy results are left exactly as they were.
struct ResultEnvelope: Sendable {
    static let serverInfoKey = "io.modelcontextprotocol/serverInfo"
    static let subscriptionIDKey = "io.modelcontextprotocol/subscriptionId"

    /// The `Implementation` object of the stamp, nil to leave the stamp out.
    let serverInfo: JSONValue?
    let cache: MCPCacheHint
    /// `"resultType":"complete","_meta":{…}` (no braces), spliced into results built per request.
    let trailer: [UInt8]

    init(serverInfo: MCPServerInfo?, cache: MCPCacheHint) {
        self.serverInfo = serverInfo.map { info in
            var object: JSONObject = ["name": .string(info.name)]
            if let title = info.title { object["title"] = .string(title) }
            object["version"] = .string(info.version)
            return .object(object)
        }
        self.cache = cache
        var members: JSONObject = ["resultType": "complete"]
        if let meta = Self.meta(serverInfo: self.serverInfo) { members["_meta"] = meta }
        var trailer = JSONValue.object(members).bytes
        trailer.removeFirst()
        trailer.removeLast()
        self.trailer = trailer
    }

    /// `result` as a client speaking `version` receives it.
    func finish(_ result: JSONObject, version: ProtocolVersion, cacheable: Bool, meta: JSONObject = [:]) -> JSONValue {
        guard version.isModern else { return .object(result) }
        var object = result
        object["resultType"] = "complete"
        if cacheable {
            object["ttlMs"] = .int(cache.ttl.wholeMilliseconds)
            object["cacheScope"] = .string(cache.scope.rawValue)
        }
        var stamped = meta
        if let serverInfo { stamped[Self.serverInfoKey] = serverInfo }
        if stamped.count > 0 { object["_meta"] = .object(stamped) }
        return .object(object)
    }

    /// The members to splice into a per-request result for `version`, or nil for a legacy revision.
    func trailer(for version: ProtocolVersion) -> [UInt8]? { version.isModern ? trailer : nil }

    private static func meta(serverInfo: JSONValue?) -> JSONValue? {
        serverInfo.map { [serverInfoKey: $0] }
    }
}
