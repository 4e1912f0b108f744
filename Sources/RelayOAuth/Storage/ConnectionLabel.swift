import RelayJSON

/// What a connection keeps so its person (the connections page) and the operator (`grants list`)
/// can tell it apart: the app's name and origin as the consent page showed them, and where it sent
/// the person back to. Captured at `/authorize`, so the list shows what the person agreed to, and
/// listing never fetches a client metadata document.
struct ConnectionLabel: Sendable, Equatable {
    /// The name the client gave itself (untrusted; shown escaped, only if `DisplayText` allows).
    var clientName: String?
    /// DCR (self-registered, name unverified) or a client ID metadata document.
    var source: RegisteredClient.Source
    /// The redirect URI's host (and port), or `scheme://host` for an app's custom scheme.
    var redirectHost: String

    init(clientName: String?, source: RegisteredClient.Source, redirectHost: String) {
        self.clientName = clientName
        self.source = source
        self.redirectHost = redirectHost
    }

    /// The label of `client` answering at `redirectURI`.
    init(client: RegisteredClient, redirectURI: String) {
        self.init(clientName: client.name, source: client.source, redirectHost: Self.host(of: redirectURI))
    }

    /// How the pages show a redirect URI: `host[:port]` for http(s), `scheme://host` otherwise.
    static func host(of redirectURI: String) -> String {
        guard case .success(let uri) = ParsedURI.parse(redirectURI) else { return redirectURI }
        return uri.scheme == "https" || uri.scheme == "http"
            ? uri.host + (uri.port.map { ":\($0)" } ?? "") : uri.scheme + "://" + uri.host
    }
}

extension ConnectionLabel {
    /// The label stored in a record's attributes (`client_name`, `client_source`, `redirect_host`).
    init?(attributes a: JSONObject) {
        guard let source = a.string("client_source").flatMap(RegisteredClient.Source.init(rawValue:)),
            let host = a.string("redirect_host")
        else { return nil }
        self.init(clientName: a.string("client_name"), source: source, redirectHost: host)
    }

    /// Writes the label's attributes.
    func write(into a: inout JSONObject) {
        a.set("client_name", clientName.map(JSONValue.string))
        a["client_source"] = .string(source.rawValue)
        a["redirect_host"] = .string(redirectHost)
    }
}
