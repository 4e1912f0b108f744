import RelayHTTP
import RelayJSON
import RelaySync

/// The rules for client ID metadata documents (draft-ietf-oauth-client-id-metadata-document):
/// which client IDs are document URLs, what a fetched response must look like, and how long it
/// may be cached. Pure functions over values.
enum ClientMetadataPolicy {
    /// The largest document accepted.
    static let maximumBytes = 5120
    /// The longest a fetch may take.
    static let timeout = Duration.seconds(5)
    /// How long a document without cache headers is kept.
    static let defaultCache: Duration = .seconds(300)

    /// Whether `clientID` is a metadata document URL: https (loopback http only when the test
    /// setting allows it), a host, a path beyond `/`, and no query, fragment, userinfo or dot
    /// segment. A slash inside a query is not a path.
    static func isDocumentURL(_ clientID: String, allowLoopback: Bool) -> Bool {
        guard case .success(let uri) = ParsedURI.parse(clientID), uri.query == nil else { return false }
        let schemeOK = uri.scheme == "https" || (allowLoopback && uri.scheme == "http" && uri.isLoopback)
        return schemeOK && uri.path.count > 1 && uri.host == uri.host.lowercased()
    }

    /// The client a fetched response describes, or why it is refused.
    static func client(
        from document: FetchedDocument, url: String, redirects: RedirectURIPolicy, supportedScopes: [String], now: Int
    ) -> Result<RegisteredClient, OAuthError> {
        guard document.status == 200 else { return refuse("the metadata document answered HTTP \(document.status)") }
        guard document.body.count <= maximumBytes else { return refuse("the metadata document is larger than 5 KB") }
        guard isJSON(document.headers["content-type"]) else { return refuse("the metadata document is not JSON") }
        guard let object = (try? JSONValue(parsing: document.body))?.objectValue else {
            return refuse("the metadata document is not a JSON object")
        }
        guard object.string("client_id") == url else { return refuse("the document's client_id is not its URL") }
        if object["client_secret"] != nil || object["client_secret_expires_at"] != nil {
            return refuse("a metadata document must not carry a client secret")
        }
        switch object.string("token_endpoint_auth_method") {
        case nil, "none", "private_key_jwt": break
        default: return refuse("metadata document clients must be public (none)")
        }
        if let keys = object["jwks"]?["keys"]?.arrayValue,
            keys.contains(where: { key in ["d", "p", "q", "dp", "dq", "qi", "k"].contains { key[$0] != nil } })
        {
            return refuse("the document's jwks contains private key material")
        }
        guard let uriValues = object["redirect_uris"]?.arrayValue, !uriValues.isEmpty else {
            return refuse("the metadata document has no redirect_uris")
        }
        let uris = uriValues.compactMap(\.stringValue)
        guard uris.count == uriValues.count else { return refuse("redirect_uris must be strings") }
        let kept: [String]
        switch redirects.filter(uris) {
        case .success(let list): kept = list
        case .failure(let error): return refuse(error.detail ?? "a redirect URI is not allowed")
        }
        var grantTypes = ["authorization_code", "refresh_token"]
        if let listed = object.strings("grant_types") {
            guard listed.contains("authorization_code") else { return refuse("grant_types lacks authorization_code") }
            grantTypes = grantTypes.filter(listed.contains)
        }
        if let responseTypes = object.strings("response_types"), !responseTypes.contains("code") {
            return refuse("response_types lacks code")
        }
        // A name that is too long or holds hidden characters (`DisplayText`) is left out rather than
        // refusing the document: the person cannot fix someone else's document, and the consent page
        // then shows the document's host, which is what identifies such a client anyway.
        let name = object.string("client_name").flatMap { text in
            text.count <= RegistrationPolicy.maximumNameLength && !text.isEmpty && DisplayText.isShowable(text)
                ? text : nil
        }
        var scope: ScopeSet?
        if let text = object.string("scope"), let tokens = ScopeSet.parse(text) {
            let known = tokens.filter(supportedScopes.contains)
            scope = known.isEmpty ? nil : ScopeSet.resolve(known, supported: supportedScopes)
        }
        return .success(
            RegisteredClient(
                id: url, source: .metadataDocument, name: name, redirectURIs: kept, authMethod: .none,
                grantTypes: grantTypes, scope: scope, secretHash: nil, secretPepperVersion: nil, issuedAt: now))
    }

    /// Seconds to cache a document: `max-age` (or 0 for `no-store`/`no-cache`), else the default,
    /// never more than `maximum`.
    static func cacheSeconds(_ headers: HTTPHeaders, maximum: Int) -> Int {
        cacheLifetime(headers, maximumFresh: maximum, maximumStale: 0).fresh
    }

    /// How long a fetched document may be used (RFC 9111 §4.2, as a cache that stores documents
    /// for every request of the relay): fresh for `max-age` less the response's `Age` (the
    /// default 300 s without `max-age`), at most `maximumFresh`; then, while its host fails, for
    /// `stale` more seconds (RFC 5861 `stale-if-error`: the document's own value when it gives
    /// one, else `maximumStale`, never more). `no-store` and `no-cache` keep nothing (the relay
    /// does not revalidate); `must-revalidate` and `proxy-revalidate` forbid stale use
    /// (RFC 9111 §5.2.2.2, §5.2.2.8).
    static func cacheLifetime(_ headers: HTTPHeaders, maximumFresh: Int, maximumStale: Int) -> (fresh: Int, stale: Int)
    {
        let directives = headers.values("cache-control").flatMap { $0.split(separator: ",") }.map {
            trimmed($0, of: " \t").lowercased()
        }
        func seconds(_ name: String) -> Int? {
            guard let directive = directives.first(where: { $0.hasPrefix(name + "=") }) else { return nil }
            let value = trimmed(directive.dropFirst(name.count + 1), of: "\"")
            return Int(value).map { max(0, $0) } ?? 0  // malformed: nothing (RFC 9111 §4.2.1: stale)
        }
        if directives.contains(where: { $0 == "no-store" || $0.hasPrefix("no-cache") }) { return (0, 0) }
        var fresh = seconds("max-age") ?? defaultCache.wholeSeconds
        if let age = headers["age"].flatMap({ Int(trimmed($0, of: " \t")) }), age > 0 {
            fresh = max(0, fresh - age)
        }
        var stale = min(seconds("stale-if-error") ?? maximumStale, maximumStale)
        if directives.contains(where: { $0 == "must-revalidate" || $0 == "proxy-revalidate" }) { stale = 0 }
        return (min(fresh, maximumFresh), max(0, stale))
    }

    /// `text` without leading and trailing `characters` (not Foundation's `trimmingCharacters`:
    /// on Linux its first use in a process stalls every thread for most of a second).
    private static func trimmed(_ text: some StringProtocol, of characters: String) -> String {
        let inner = text.drop { characters.contains($0) }
        return String(inner.reversed().drop { characters.contains($0) }.reversed())
    }

    /// Whether a response that is not a usable document looks like a passing failure of its host
    /// (5xx, 429, 408, 401/403 from a firewall, a redirect, or a body that is not JSON at all, as
    /// an error page is) rather than the client's own answer. 404 and 410 say the document is
    /// gone, and a JSON object is the client's document whatever it says: those are never passing.
    static func isPassingFailure(_ document: FetchedDocument) -> Bool {
        switch document.status {
        case 200:
            return document.body.count > maximumBytes || !isJSON(document.headers["content-type"])
                || (try? JSONValue(parsing: document.body))?.objectValue == nil
        case 404, 410: return false
        default: return true
        }
    }

    private static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let media = contentType.split(separator: ";").first.map { $0.drop { $0 == " " }.lowercased() } ?? ""
        return media == "application/json" || (media.hasPrefix("application/") && media.hasSuffix("+json"))
    }

    private static func refuse(_ reason: String) -> Result<RegisteredClient, OAuthError> {
        .failure(OAuthError(.invalidClient, "The client metadata document was refused: \(reason)."))
    }
}
