import Foundation
import RelayCrypto
import RelayHTTP
import RelayJSON
import RelayStore
import RelaySync
import RelayTestSupport
import Testing

@testable import RelayOAuth

/// The authorization server on a real HTTP server (port 0) with a real SQLite file, a manual
/// clock and fake CloudKit, vault and metadata-document seams. Each test gets its own.
final class OAuthHarness: Sendable {
    static let issuer = "https://relay.example"
    static let claudeRedirect = "https://claude.ai/api/mcp/auth_callback"

    let directory: String
    let store: any Store
    let clock: ManualClock
    let signIn: FakeAppleSignIn
    let sealer = FakeGrantSealer()
    let binder = FakeTokenBinder()
    let fetcher = FakeMetadataFetcher()
    let secrets: OAuthSecrets
    let oauth: AuthorizationServer
    let server: Server
    let client: TestHTTPClient
    let events = EventLog()

    private init(
        directory: String, store: any Store, clock: ManualClock, signIn: FakeAppleSignIn, secrets: OAuthSecrets,
        configuration: OAuthConfiguration, vault: (any GrantSealer, any TokenBinder)?,
        metadataFetcher: (any ClientMetadataFetcher)?
    ) throws {
        self.directory = directory
        self.store = store
        self.clock = clock
        self.signIn = signIn
        self.secrets = secrets
        let events = self.events
        oauth = AuthorizationServer(
            configuration: configuration, store: store, secrets: secrets, signIn: signIn, sealer: vault?.0 ?? sealer,
            binder: vault?.1 ?? binder, metadataFetcher: metadataFetcher ?? fetcher, clock: clock,
            events: { event in events.record(event) })
        var router = Router()
        oauth.register(on: &router)
        let oauth = self.oauth
        // The MCP endpoint answers on its path as typed with or without a trailing slash.
        for path in ["/mcp", "/mcp/"] {
            router.post(path) { request in
                do throws(OAuthError) {
                    let grant = try await oauth.validateBearer(request)
                    return .text("hello \(grant.clientID)")
                } catch {
                    return error.response()
                }
            }
        }
        server = Server(
            configuration: ServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 2), responder: router.responder)
        try server.start()
        client = TestHTTPClient(port: server.port)
    }

    /// Starts a harness; `configure` adjusts the configuration, `memory` uses MemoryStore.
    static func start(
        issuer: String = OAuthHarness.issuer, secrets: OAuthSecrets = .random(), memory: Bool = false,
        directory: String? = nil, vault: (any GrantSealer, any TokenBinder)? = nil,
        wrap: ((any Store) -> any Store)? = nil, fetcher: (any ClientMetadataFetcher)? = nil,
        configure: (inout OAuthConfiguration) -> Void = { _ in }
    ) async throws -> OAuthHarness {
        let clock = ManualClock()
        let directory = directory ?? (NSTemporaryDirectory() + "oauth-tests-" + UUID().uuidString)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let base: any Store =
            memory
            ? MemoryStore(clock: clock, purgeInterval: nil)
            : try await SQLiteStore.open(path: directory + "/relay.sqlite", clock: clock)
        let store = wrap?(base) ?? base
        var configuration = OAuthConfiguration(issuer: issuer)
        configuration.allowsLoopbackMetadataDocuments = true
        configure(&configuration)
        return try OAuthHarness(
            directory: directory, store: store, clock: clock, signIn: FakeAppleSignIn(), secrets: secrets,
            configuration: configuration, vault: vault, metadataFetcher: fetcher)
    }

    func stop(removeFiles: Bool = true) async {
        server.shutdown()
        await server.waitUntilStopped()
        let base = (store as? FailingStore)?.base ?? store
        if let sqlite = base as? SQLiteStore { await sqlite.close() }
        if removeFiles { try? FileManager.default.removeItem(atPath: directory) }
    }

    var recordedEvents: [OAuthEvent] { events.all }

    func browser() -> TestBrowser { TestBrowser(client: client) }

    // MARK: AI-client steps

    private let registrations = Locked(0)

    /// Registers a client; returns its ID and secret. Registrations of identical metadata share
    /// one client, so each call is named apart ("Test Client", then "Test Client 2", …) unless
    /// `name` is given: every call makes a client of its own, as tests of two clients need.
    func register(
        redirectURIs: [String] = [OAuthHarness.claudeRedirect], method: String = "none", extra: String = "",
        name: String? = nil
    ) async throws -> (id: String, secret: String?) {
        let uris = redirectURIs.map { "\"\($0)\"" }.joined(separator: ",")
        let count = registrations.withLock { count in
            count += 1
            return count
        }
        let name = name ?? (count == 1 ? "Test Client" : "Test Client \(count)")
        let response = try await client.postJSON(
            "/register",
            "{\"redirect_uris\":[\(uris)],\"token_endpoint_auth_method\":\"\(method)\",\"client_name\":\"\(name)\"\(extra)}"
        )
        #expect(response.status == 201, "registration failed: \(response.text)")
        let json = try JSONValue(parsing: response.body)
        return (try #require(json["client_id"]?.stringValue), json["client_secret"]?.stringValue)
    }

    /// The `/authorize` URL for a client.
    static func authorizePath(
        clientID: String, verifier: String, redirectURI: String? = OAuthHarness.claudeRedirect, state: String = "st-1",
        extra: [(String, String)] = []
    ) -> String {
        var pairs = [
            ("response_type", "code"), ("client_id", clientID), ("state", state),
            ("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", "S256"),
        ]
        if let redirectURI { pairs.append(("redirect_uri", redirectURI)) }
        return "/authorize?" + FormDecoding.encode(pairs + extra)
    }

    static func newVerifier() -> String { Base64URL.encode(SecureRandom.bytes(count: 32)) }

    /// The browser half: authorize, press Continue, sign in at "Apple", come back through the
    /// callback. Returns the callback's response (a 303 to the client on success).
    func signIn(
        browser: TestBrowser, authorizePath: String, appleID: String = "alice@example.com"
    ) async throws -> TestResponse {
        let page = try await browser.get(authorizePath)
        #expect(page.status == 200, "consent page: \(page.status) \(page.text)")
        let consent = try await pressContinue(browser: browser, page: page)
        #expect(consent.status == 303)
        #expect(consent.header("location") == signIn.url)
        return try await browser.get(callbackPath(token: signIn.token(for: appleID)))
    }

    func pressContinue(browser: TestBrowser, page: TestResponse) async throws -> TestResponse {
        let requestID = try #require(TestBrowser.hidden("request", in: page.text))
        let csrf = try #require(TestBrowser.hidden("csrf", in: page.text))
        return try await browser.post(
            "/authorize/consent", [("request", requestID), ("csrf", csrf), ("action", "continue")])
    }

    /// Apple's redirect back, with the token percent-encoded the way Apple's docs ask.
    func callbackPath(token: String) -> String {
        let encoded = FormDecoding.encode(token)
        return oauth.configuration.callbackPath + "?ckWebAuthToken=\(encoded)&ckSession=\(encoded)"
    }

    /// Everything up to the code: returns the code from the redirect.
    func code(
        clientID: String, verifier: String, appleID: String = "alice@example.com",
        redirectURI: String = OAuthHarness.claudeRedirect
    ) async throws -> String {
        let response = try await signIn(
            browser: browser(),
            authorizePath: Self.authorizePath(clientID: clientID, verifier: verifier, redirectURI: redirectURI),
            appleID: appleID)
        #expect(response.status == 303, "callback: \(response.status) \(response.header("location") ?? "")")
        return try #require(response.locationQuery["code"]?.first)
    }

    func exchange(
        code: String, verifier: String, clientID: String, redirectURI: String? = OAuthHarness.claudeRedirect,
        extra: [(String, String)] = [], headers: [(String, String)] = []
    ) async throws -> TestResponse {
        var pairs = [
            ("grant_type", "authorization_code"), ("code", code), ("code_verifier", verifier), ("client_id", clientID),
        ]
        if let redirectURI { pairs.append(("redirect_uri", redirectURI)) }
        return try await client.postForm("/token", pairs + extra, headers: headers)
    }

    func refresh(_ token: String, clientID: String, extra: [(String, String)] = []) async throws -> TestResponse {
        try await client.postForm(
            "/token", [("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", clientID)] + extra)
    }

    /// A connected client: registration, browser flow and code exchange.
    func connect(appleID: String = "alice@example.com", clientID: String? = nil) async throws -> Tokens {
        let id: String
        if let clientID { id = clientID } else { id = try await register().id }
        let verifier = Self.newVerifier()
        let code = try await code(clientID: id, verifier: verifier, appleID: appleID)
        let response = try await exchange(code: code, verifier: verifier, clientID: id)
        #expect(response.status == 200, "exchange: \(response.text)")
        return try Tokens(response, clientID: id)
    }

    func mcp(_ accessToken: String) async throws -> TestResponse {
        try await client.send("POST", "/mcp", headers: [("Authorization", "Bearer " + accessToken)])
    }

    /// A `Request` carrying a bearer token, for calling the validation API directly.
    static func bearerRequest(_ token: String) -> Request {
        Request(method: .post, target: "/mcp", headers: ["authorization": "Bearer " + token])
    }
}

/// The tokens of a token response.
struct Tokens: Sendable, Equatable {
    var accessToken: String
    var refreshToken: String?
    var expiresIn: Int
    var scope: String?
    var clientID: String

    init(_ response: TestResponse, clientID: String) throws {
        let json = try JSONValue(parsing: response.body)
        accessToken = try #require(json["access_token"]?.stringValue)
        refreshToken = json["refresh_token"]?.stringValue
        expiresIn = try #require(json["expires_in"]?.intValue)
        scope = json["scope"]?.stringValue
        self.clientID = clientID
    }
}

/// Runs `body` with a started harness and always stops it.
func withHarness(
    issuer: String = OAuthHarness.issuer, secrets: OAuthSecrets = .random(), memory: Bool = false,
    configure: (inout OAuthConfiguration) -> Void = { _ in }, _ body: (OAuthHarness) async throws -> Void
) async throws {
    let harness = try await OAuthHarness.start(issuer: issuer, secrets: secrets, memory: memory, configure: configure)
    try await withCleanup {
        try await body(harness)
    } cleanup: {
        await harness.stop()
    }
}

/// The audit events a harness saw.
final class EventLog: Sendable {
    private let items = Locked<[OAuthEvent]>([])

    func record(_ event: OAuthEvent) { items.withLock { $0.append(event) } }

    var all: [OAuthEvent] { items.withLock { $0 } }
}
