import Foundation
import RelayHTTP
import RelayStore
import RelaySync

/// A loopback HTTP server (the relay's own) on a port from the kernel, at any 127.0.0.x address:
/// every request goes to `handle`. The credential endpoints below are built on it.
final class FakeHTTPEndpoint: Sendable {
    private let server: Server
    let host: String

    var base: String { "http://\(host):\(server.port)" }

    init(host: String, handle: @escaping @Sendable (Request) async -> Response) throws {
        self.host = host
        server = Server(
            configuration: ServerConfiguration(host: host, port: 0, eventLoops: 1),
            responder: Responder(async: handle))
        try server.start()
    }

    deinit { server.shutdown() }
}

/// Temporary credentials a fake source issued: their key ID and expiration, so a test can tell
/// whether a request was signed with expired ones.
struct IssuedCredentials: Sendable, Equatable {
    let accessKeyID: String
    let expiration: Double
}

/// What the fake credential endpoints share: a counter of issued credentials, a gate that holds
/// answers until opened, and a switch that makes them fail.
final class FakeIssuer: Sendable {
    private struct State {
        var issued: [IssuedCredentials] = []
        var gateOpen = true
        var failStatus: Int?
        var fetches = 0
    }

    let clock: any WallClock
    let lifetime: Double
    let prefix: String
    private let state = Locked(State())

    init(clock: any WallClock, lifetime: Double, prefix: String) {
        self.clock = clock
        self.lifetime = lifetime
        self.prefix = prefix
    }

    var issued: [IssuedCredentials] { state.withLock { $0.issued } }
    /// Credential requests received (answered or not yet).
    var fetches: Int { state.withLock { $0.fetches } }

    func closeGate() { state.withLock { $0.gateOpen = false } }
    func openGate() { state.withLock { $0.gateOpen = true } }
    func fail(with status: Int?) { state.withLock { $0.failStatus = status } }

    /// The expiration of the credentials with `accessKeyID`.
    func expiration(of accessKeyID: String) -> Double? {
        issued.first { $0.accessKeyID == accessKeyID }?.expiration
    }

    /// Counts a request, waits while the gate is closed, then issues credentials as the JSON
    /// document of ECS and IMDS (or answers the failure status).
    func answer() async -> Response {
        state.withLock { $0.fetches += 1 }
        while !state.withLock({ $0.gateOpen }) { try? await Task.sleep(for: .milliseconds(5)) }
        if let status = state.withLock({ $0.failStatus }) {
            return Response(status: HTTPStatus(code: status, reason: "Injected"), body: Array("injected".utf8))
        }
        let credentials = issue()
        let document = """
            {"Code":"Success","LastUpdated":"2026-01-01T00:00:00Z","Type":"AWS-HMAC",\
            "AccessKeyId":"\(credentials.accessKeyID)","SecretAccessKey":"fake-secret-\(credentials.accessKeyID)",\
            "Token":"fake-token-\(credentials.accessKeyID)","Expiration":"\(Self.iso8601(credentials.expiration))"}
            """
        return Response(headers: ["Content-Type": "application/json"], body: Array(document.utf8))
    }

    func issue() -> IssuedCredentials {
        let now = clock.now()
        return state.withLock { state in
            let credentials = IssuedCredentials(
                accessKeyID: "\(prefix)\(String(format: "%04d", state.issued.count + 1))", expiration: now + lifetime)
            state.issued.append(credentials)
            return credentials
        }
    }

    static func iso8601(_ seconds: Double) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: seconds.rounded(.down)))
    }
}

/// The EC2 instance metadata service, IMDSv2 only: `PUT /latest/api/token` with a TTL header gives
/// a session token, which every GET must carry (else 401); tokens can be expired on demand.
final class FakeInstanceMetadata: Sendable {
    private final class Sessions: Sendable {
        let state = Locked<(issued: Int, valid: Set<String>, ttls: [String])>((0, [], []))
    }

    let issuer: FakeIssuer
    let role: String
    private let sessions: Sessions
    private let endpoint: FakeHTTPEndpoint

    var base: String { endpoint.base }
    /// The TTL header of every token request, in order.
    var requestedTTLs: [String] { sessions.state.withLock { $0.ttls } }

    init(host: String = "127.0.0.3", clock: any WallClock, lifetime: Double = 3600, role: String = "relay-role") throws
    {
        let issuer = FakeIssuer(clock: clock, lifetime: lifetime, prefix: "ASIAIMDS")
        let sessions = Sessions()
        self.sessions = sessions
        self.issuer = issuer
        self.role = role
        endpoint = try FakeHTTPEndpoint(host: host) { request in
            await Self.handle(request, issuer: issuer, role: role, sessions: sessions)
        }
    }

    /// Makes every session token issued so far invalid (as if its TTL passed).
    func expireTokens() { sessions.state.withLock { $0.valid.removeAll() } }

    private static func handle(_ request: Request, issuer: FakeIssuer, role: String, sessions: Sessions) async
        -> Response
    {
        let path = String(request.path)
        if request.method == .put, path == "/latest/api/token" {
            guard let ttl = request.headers["x-aws-ec2-metadata-token-ttl-seconds"], let seconds = Int(ttl),
                (1...21600).contains(seconds)
            else { return Response(status: HTTPStatus(code: 400, reason: "Bad Request")) }
            let token = sessions.state.withLock { state -> String in
                state.issued += 1
                state.ttls.append(ttl)
                let token = "imds-session-\(state.issued)"
                state.valid.insert(token)
                return token
            }
            return Response(body: Array(token.utf8))
        }
        guard request.method == .get, let token = request.headers["x-aws-ec2-metadata-token"],
            sessions.state.withLock({ $0.valid.contains(token) })
        else { return Response(status: HTTPStatus(code: 401, reason: "Unauthorized")) }
        switch path {
        case "/latest/meta-data/iam/security-credentials/":
            return Response(body: Array(role.utf8))
        case "/latest/meta-data/iam/security-credentials/\(role)":
            return await issuer.answer()
        default:
            return Response(status: HTTPStatus(code: 404, reason: "Not Found"))
        }
    }
}

/// The ECS/EKS container credentials endpoint at `/creds`: answers only with the expected
/// `Authorization` value (when one is set), and records every value it was sent.
final class FakeContainerEndpoint: Sendable {
    private final class Book: Sendable {
        let expected = Locked<String?>(nil)
        let seen = Locked<[String?]>([])
    }

    let issuer: FakeIssuer
    private let book: Book
    private let endpoint: FakeHTTPEndpoint

    var base: String { endpoint.base }
    var url: String { base + "/creds" }
    var authorizations: [String?] { book.seen.withLock { $0 } }

    init(host: String = "127.0.0.2", clock: any WallClock, lifetime: Double = 3600) throws {
        let issuer = FakeIssuer(clock: clock, lifetime: lifetime, prefix: "ASIAECS0")
        let book = Book()
        self.book = book
        self.issuer = issuer
        endpoint = try FakeHTTPEndpoint(host: host) { request in
            let authorization = request.headers["authorization"]
            book.seen.withLock { $0.append(authorization) }
            guard request.method == .get, request.path == "/creds" else {
                return Response(status: HTTPStatus(code: 404, reason: "Not Found"))
            }
            if let wanted = book.expected.withLock({ $0 }), authorization != wanted {
                return Response(status: HTTPStatus(code: 401, reason: "Unauthorized"))
            }
            return await issuer.answer()
        }
    }

    func expect(authorization: String?) { book.expected.withLock { $0 = authorization } }
}

/// A signed AWS JSON service that records, for every request, the access key it was signed with
/// and the clock's time when it arrived, and answers `{}`.
final class RecordingService: Sendable {
    private final class Book: Sendable {
        let seen = Locked<[(accessKeyID: String, at: Double)]>([])
    }

    private let book: Book
    private let endpoint: FakeHTTPEndpoint

    var base: String { endpoint.base }
    var requests: [(accessKeyID: String, at: Double)] { book.seen.withLock { $0 } }

    init(clock: any WallClock) throws {
        let book = Book()
        self.book = book
        endpoint = try FakeHTTPEndpoint(host: "127.0.0.1") { request in
            let authorization = request.headers["authorization"] ?? ""
            let key = authorization.split(separator: "Credential=").dropFirst().first?.split(separator: "/").first
            let now = clock.now()
            book.seen.withLock { $0.append((key.map(String.init) ?? "", now)) }
            return Response(headers: ["Content-Type": "application/x-amz-json-1.0"], body: Array("{}".utf8))
        }
    }
}
