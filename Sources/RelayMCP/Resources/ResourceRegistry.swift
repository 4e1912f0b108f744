import RelayJSON

/// The resources an endpoint offers, checked at startup, with `resources/list` and every
/// `resources/read` answer encoded once per protocol version (the lists are fixed for the life of the
/// process, so `listChanged` and `subscribe` are false and `resources/subscribe` stays unknown).
struct ResourceRegistry: Sendable {
    private let reads: [String: [ProtocolVersion: PreencodedResult]]
    private let lists: [ProtocolVersion: PreencodedResult]
    /// URIs in listing order.
    let uris: [String]

    /// Registers `resources` in order. Throws when a URI is empty or repeated, or a view's MIME type is
    /// not the one hosts render (a programming error, reported at startup).
    init(_ resources: [Resource], envelope: ResultEnvelope) throws(MCPError) {
        var reads: [String: [ProtocolVersion: PreencodedResult]] = [:]
        for resource in resources {
            guard !resource.uri.isEmpty, reads[resource.uri] == nil else {
                throw .internalError("Resource URI \"\(resource.uri)\" is empty or registered twice.")
            }
            if resource.uri.hasPrefix("ui://"), resource.mimeType != Resource.appMimeType {
                throw .internalError("The view \(resource.uri) must be served as \(Resource.appMimeType).")
            }
            var byVersion: [ProtocolVersion: PreencodedResult] = [:]
            for version in ProtocolVersion.allCases {
                byVersion[version] = PreencodedResult(
                    envelope.finish(["contents": resource.contents], version: version, cacheable: true))
            }
            reads[resource.uri] = byVersion
        }
        self.reads = reads
        self.uris = resources.map(\.uri)
        var lists: [ProtocolVersion: PreencodedResult] = [:]
        for version in ProtocolVersion.allCases {
            let result: JSONObject = ["resources": .array(resources.map { $0.listEntry(for: version) })]
            lists[version] = PreencodedResult(envelope.finish(result, version: version, cacheable: true))
        }
        self.lists = lists
    }

    /// Whether any resource is registered (the `resources` capability and methods exist only then).
    var isEmpty: Bool { uris.isEmpty }

    /// The encoded `resources/list` answer: one page (a cursor is refused, none was ever issued).
    func list(cursor: JSONValue?, version: ProtocolVersion) -> Result<PreencodedResult, MCPError> {
        if let cursor, !cursor.isNull { return .failure(.invalidParams("Invalid cursor.")) }
        return .success(lists[version]!)
    }

    /// The encoded `resources/read` answer for `params.uri`, or the error that refuses it: a URI not
    /// served is "Resource not found" with the URI in `data`, never an empty `contents`: -32602 in
    /// 2026-07-28 (SEP-2164; the conformance suite's `sep-2164-resource-not-found`), -32002 before.
    func read(_ params: JSONObject?, version: ProtocolVersion) -> Result<PreencodedResult, MCPError> {
        guard let uri = params?["uri"]?.stringValue else {
            return .failure(.invalidParams("resources/read needs params.uri (a string)."))
        }
        guard let encoded = reads[uri]?[version] else {
            // The 2025 revisions name -32002 for it (`server/resources.mdx` "Error Handling").
            let code = version.isModern ? MCPError.Code.invalidParams : MCPError.Code.resourceNotFound
            return .failure(MCPError(code: code, message: "Resource not found: \(uri)", data: ["uri": .string(uri)]))
        }
        return .success(encoded)
    }
}

extension Resource {
    /// The MIME type of an MCP Apps view (ext-apps `specification/2026-01-26/apps.mdx`).
    package static let appMimeType = "text/html;profile=mcp-app"
}
