import Foundation
import RelayHTTP
import RelayJSON
import RelaySync

/// The emulator's HTTP surface: `/database/1/…`, the sign-in pages, `/control/…`.
final class EmulatorRoutes: Sendable {
    let state: EmulatorState
    /// The server, set after it is created (for connection counts).
    let server = ServerReference()

    init(state: EmulatorState) { self.state = state }

    var responder: Responder {
        var router = Router()
        SignInPages.register(on: &router, state: state)
        ControlAPI(state: state, server: server).register(on: &router)
        router.get("/", immediate: { _ in .text("CloudKit Web Services emulator. See cloudkit-emulator --help.\n") })
        let inner = router.responder
        return Responder { [self] request in
            // The database API skips the generic router: it is the hot path under benchmarks.
            if let route = DatabaseRoute(path: request.path) {
                return .later { await self.databaseCall(request, route) }
            }
            let open = server.openConnections
            state.update(changed: false) { world, _ in world.count(openConnections: open) }
            return inner(request)
        }
    }

    private func databaseCall(_ request: Request, _ route: DatabaseRoute) async -> Response {
        let open = server.openConnections
        let latency = state.update(changed: false) { world, _ in
            world.count(openConnections: open)
            return world.latency
        }
        if latency > .zero { try? await Task.sleep(for: latency) }
        guard let query = try? request.query() else {
            return EmulatorError.badRequest("the query string is malformed").response()
        }
        let call = DatabaseCall(
            method: request.method.rawValue,
            container: route.container,
            environment: route.environment,
            database: route.database,
            operation: route.operation,
            apiToken: query["ckAPIToken"],
            webAuthToken: query["ckWebAuthToken"] ?? query["ckSession"],
            body: request.body
        )
        let configuration = state.configuration
        let publicBase = publicBase(request)
        let reply = state.update { world, now in
            world.handle(
                call,
                World.Environment(
                    apiToken: configuration.apiToken, container: configuration.container,
                    zoneName: configuration.zoneName, publicBase: publicBase, now: now))
        }
        var headers: HTTPHeaders = [
            "Content-Type": reply.contentType,
            "X-Apple-CloudKit-Version": "1.0",
            "X-Apple-Request-UUID": Opaque.uuid(),
            "Access-Control-Expose-Headers":
                "X-Apple-Request-UUID,X-Apple-CloudKit-Web-Auth-Token,X-Responding-Instance,Via",
        ]
        if let token = reply.rotatedToken { headers.add("X-Apple-CloudKit-Web-Auth-Token", token) }
        for (name, value) in reply.headers { headers.add(name, value) }
        return Response(
            status: HTTPStatus(code: reply.status, reason: EmulatorError.reasonPhrase(reply.status)),
            headers: headers, body: reply.body)
    }

    /// The origin browsers use for the sign-in page.
    func publicBase(_ request: Request) -> String {
        if let configured = state.configuration.publicURL { return configured }
        if let host = request.headers["host"], !host.isEmpty { return "http://\(host)" }
        return "http://127.0.0.1:\(server.port)"
    }
}

/// Lets the routes reach the server created after them.
final class ServerReference: Sendable {
    private let server = Locked<Server?>(nil)

    func set(_ value: Server) { server.withLock { $0 = value } }

    var openConnections: Int { server.withLock { $0?.openConnections ?? 0 } }

    var port: Int { server.withLock { $0?.port ?? 0 } }
}

/// `/database/1/{container}/{environment}/{database}/{entity}/{action}`, split without the router.
struct DatabaseRoute {
    var container: String
    var environment: String
    var database: String
    var operation: String

    init?(path: Substring) {
        guard path.hasPrefix("/database/1/") else { return nil }
        let parts = path.dropFirst("/database/1/".count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, parts.allSatisfy({ !$0.isEmpty }),
            let container = FormDecoding.decode(parts[0].utf8, plusAsSpace: false)
        else { return nil }
        self.container = container
        environment = String(parts[1])
        database = String(parts[2])
        operation = "\(parts[3])/\(parts[4])"
    }
}
