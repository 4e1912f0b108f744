import Foundation
import RelayJSON

/// One real client's connection, as recorded in `Tests/EndToEndTests/clients/<client>.json` from
/// its source, its docs or an issue thread (each fixture names its sources): what it registers or
/// publishes, where it looks for metadata and in which order, which redirect URI it sends, whether
/// it sends `resource` and `scope`, how it authenticates at `/token`, and the protocol version
/// of its `initialize`. `ClientReplay` sends exactly that to the relay. A new client is one file.
struct ClientFixture {
    /// How the client identifies itself to the authorization server.
    enum Registration {
        /// RFC 7591: this body is POSTed to `registration_endpoint` as is.
        case dynamic(body: JSONValue)
        /// A client ID metadata document: the client ID (its URL) and the document's exact text.
        case metadataDocument(url: String, text: String)
        /// A client that only takes a pasted client ID (and secret): the operator runs
        /// `mustdo-relayctl clients add` with these arguments, then the client uses what it printed.
        case preRegistered(clientsAdd: [String])
    }

    /// What the client sends as `scope` at `/authorize`.
    enum Scope: String {
        /// Every scope of the protected-resource metadata, space-separated (the SDKs, VS Code…).
        case metadata
        /// `scope=` with nothing in it (ChatGPT without `scopes_supported`).
        case empty
        /// No `scope` parameter.
        case none
    }

    /// How the client checks the metadata's `resource` against the URL it was given.
    enum ResourceCheck: String {
        /// Identical after URL normalisation (VS Code; RFC 9728 §3.3).
        case exact
        /// Same origin, and the URL's path under the resource's (both SDKs' `checkResourceAllowed`).
        case prefix
        /// Not checked.
        case none
    }

    let file: String
    let client: String
    /// The MCP URL's path as the person typed it (`/mcp`, `/mcp/`).
    let typedPath: String
    let protocolVersion: String
    /// What the client fetches, in order: `challenge` (the `WWW-Authenticate` URL) or a path.
    let discovery: [String]
    let resourceCheck: ResourceCheck
    let registration: Registration
    let redirectURI: String
    let sendsResource: Bool
    let scope: Scope
    /// `none`, `client_secret_post` or `client_secret_basic`.
    let tokenAuth: String
    /// Where each fact comes from.
    let sources: [String]
    /// The page origin of a client running in a browser (the MCP Inspector's direct mode): sent
    /// on every request, with a CORS preflight before `/mcp`. Nil for server-side clients.
    let origin: String?

    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    /// The folder of the fixtures.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("clients")

    /// Every fixture, in file-name order.
    static func all() throws -> [ClientFixture] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
            .sorted()
        return try names.map { try load(folder.appendingPathComponent($0)) }
    }

    static func load(_ url: URL) throws -> ClientFixture {
        let file = url.lastPathComponent
        let json = try JSONValue(parsing: Array(try Data(contentsOf: url)))
        func string(_ key: String) throws -> String {
            guard let value = json[key]?.stringValue else { throw Invalid(description: "\(file): \(key) is missing") }
            return value
        }
        let registration: Registration
        switch json["registration"]?["kind"]?.stringValue {
        case "dcr":
            guard let body = json["registration"]?["body"] else { throw Invalid(description: "\(file): no body") }
            registration = .dynamic(body: body)
        case "cimd":
            guard let url = json["registration"]?["clientID"]?.stringValue,
                let text = json["registration"]?["document"]?.stringValue
            else { throw Invalid(description: "\(file): clientID and document (its text) are required") }
            registration = .metadataDocument(url: url, text: text)
        case "preregistered":
            guard let arguments = json["registration"]?["clientsAdd"]?.arrayValue?.compactMap(\.stringValue),
                !arguments.isEmpty
            else {
                throw Invalid(description: "\(file): clientsAdd (mustdo-relayctl clients add's arguments) is required")
            }
            registration = .preRegistered(clientsAdd: arguments)
        default:
            throw Invalid(description: "\(file): registration.kind must be dcr, cimd or preregistered")
        }
        guard let scope = Scope(rawValue: try string("scope")),
            let check = ResourceCheck(rawValue: try string("resourceCheck")),
            let discovery = json["discovery"]?.arrayValue?.compactMap(\.stringValue), !discovery.isEmpty,
            let sendsResource = json["sendsResource"]?.boolValue,
            let sources = json["sources"]?.arrayValue?.compactMap(\.stringValue), !sources.isEmpty
        else { throw Invalid(description: "\(file): scope, resourceCheck, discovery, sendsResource, sources") }
        return ClientFixture(
            file: file, client: try string("client"), typedPath: try string("typedPath"),
            protocolVersion: try string("protocolVersion"), discovery: discovery, resourceCheck: check,
            registration: registration, redirectURI: try string("redirectURI"), sendsResource: sendsResource,
            scope: scope, tokenAuth: try string("tokenAuth"), sources: sources, origin: json["origin"]?.stringValue)
    }
}
