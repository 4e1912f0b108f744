/// Method + path routing. Paths are matched on the raw (still percent-encoded) path; a segment
/// written `:name` matches any one segment and is captured into `Request.parameters`.
///
/// Unknown paths get 404, known paths with another method 405 with `Allow`, HEAD runs the GET
/// handler (the server drops the body), OPTIONS without a handler gets 204 with `Allow`. A
/// responder mounted on a path (`mount(_:as:_:)`, the MCP endpoint) answers every method there
/// itself, at once or later as it decides.
/// Errors conforming to `HTTPResponseError` render themselves; anything else is a bare 500 and
/// goes to `onError` for the log.
package struct Router: Sendable {
    /// A route handler.
    package typealias Handler = @Sendable (Request) async throws -> Response
    /// A handler that answers without suspending (health checks, static documents).
    package typealias ImmediateHandler = @Sendable (Request) throws -> Response

    private enum Entry: Sendable {
        case immediate(ImmediateHandler)
        case deferred(Handler)
    }

    /// What one path answers: a handler per method, or one responder for every method.
    private struct Methods: Sendable {
        var handlers: [HTTPMethod: Entry] = [:]
        var everyMethod: Responder?
        /// The route's name in logs and metrics when it is not the path (several paths, one route).
        var name: String?
    }

    private struct Route: Sendable {
        var segments: [Substring]
        var methods: Methods
    }

    private var exact: [String: Methods] = [:]
    private var patterns: [Route] = []
    /// Called with every error that became a 500.
    package var onError: @Sendable (any Error, Request) -> Void
    /// What an unknown path answers; nil: the JSON 404 (`HTTPError`). The relay answers a browser
    /// a page (`AuthorizationServer.register(on:)`).
    package var notFound: (@Sendable (Request) -> Response)?

    /// An empty router.
    package init(onError: @escaping @Sendable (any Error, Request) -> Void = { _, _ in }) {
        self.onError = onError
    }

    /// Adds a handler for `method` on `path`.
    package mutating func on(_ method: HTTPMethod, _ path: String, _ handler: @escaping Handler) {
        add(method, path, .deferred(handler))
    }

    /// Adds a handler that answers without suspending; the server skips creating a task for it.
    package mutating func on(_ method: HTTPMethod, _ path: String, immediate handler: @escaping ImmediateHandler) {
        add(method, path, .immediate(handler))
    }

    private mutating func add(_ method: HTTPMethod, _ path: String, _ handler: Entry) {
        if path.contains("/:") {
            let segments = path.split(separator: "/", omittingEmptySubsequences: false)
            if let index = patterns.firstIndex(where: { $0.segments == segments }) {
                patterns[index].methods.handlers[method] = handler
            } else {
                patterns.append(Route(segments: segments, methods: Methods(handlers: [method: handler])))
            }
        } else {
            exact[path, default: Methods()].handlers[method] = handler
        }
    }

    /// Hands every request to each of `paths` (exact paths), whatever its method, to `responder`,
    /// which answers now or later as it decides (the MCP endpoint authenticates before its own 405).
    /// Logs and metrics name all of them `name`.
    package mutating func mount(_ paths: [String], as name: String, _ responder: Responder) {
        for path in paths {
            precondition(!path.contains("/:"), "a mounted path is exact")
            exact[path] = Methods(everyMethod: responder, name: name)
        }
    }

    /// Adds a GET handler.
    package mutating func get(_ path: String, _ handler: @escaping Handler) { on(.get, path, handler) }

    /// Adds a GET handler that answers without suspending.
    package mutating func get(_ path: String, immediate handler: @escaping ImmediateHandler) {
        on(.get, path, immediate: handler)
    }

    /// Adds a POST handler.
    package mutating func post(_ path: String, _ handler: @escaping Handler) { on(.post, path, handler) }

    /// This router as the server's responder.
    package var responder: Responder { Responder { request in self.resolve(request) } }

    /// Routes one request and awaits the answer.
    package func respond(to request: Request) async -> Response { await responder.respond(to: request) }

    /// Routes one request: immediate handlers and routing errors answer now, others later.
    package func resolve(_ request: Request) -> Responder.Outcome {
        // An exact path (every route but the `:name` ones, /mcp included) needs no copy of the request.
        if let methods = exact[String(request.path)] { return answer(request, methods) }
        var request = request
        guard let methods = matchPattern(&request) else {
            return .now(notFound?(request) ?? Self.notFound)
        }
        return answer(request, methods)
    }

    private func answer(_ request: Request, _ methods: Methods) -> Responder.Outcome {
        if let responder = methods.everyMethod { return responder(request) }
        let handlers = methods.handlers
        let entry: Entry
        if let exactEntry = handlers[request.method] {
            entry = exactEntry
        } else if request.method == .head, let getEntry = handlers[.get] {
            entry = getEntry
        } else if request.method == .options {
            return .now(Response(status: .noContent, headers: ["Allow": Self.allow(handlers)]))
        } else {
            return .now(HTTPError(.methodNotAllowed, headers: ["Allow": Self.allow(handlers)]).response())
        }
        switch entry {
        case .immediate(let handler):
            do {
                return .now(try handler(request))
            } catch {
                return .now(render(error, request))
            }
        case .deferred(let handler):
            return .later { [self, request] in
                do {
                    return try await handler(request)
                } catch {
                    return render(error, request)
                }
            }
        }
    }

    /// The pattern of the route `request` matches (`/items/:id`), or nil. For logs and metrics,
    /// which must name routes, never raw targets.
    package func pattern(for request: Request) -> String? {
        let path = String(request.path)
        if let methods = exact[path] { return methods.name ?? path }
        var copy = request
        guard matchPattern(&copy) != nil else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        return patterns.first { route in
            route.segments.count == segments.count
                && zip(route.segments, segments).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
        }.map { $0.segments.joined(separator: "/") }
    }

    private func render(_ error: any Error, _ request: Request) -> Response {
        if let error = error as? any HTTPResponseError { return error.response() }
        onError(error, request)
        return Self.internalError
    }

    private static let notFound = HTTPError(.notFound).response()
    private static let internalError = Response.text("Internal Server Error", status: .internalServerError)

    private func matchPattern(_ request: inout Request) -> Methods? {
        let path = request.path
        guard !patterns.isEmpty else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for route in patterns where route.segments.count == segments.count {
            var parameters: [String: String] = [:]
            var matched = true
            for (pattern, segment) in zip(route.segments, segments) {
                if pattern.hasPrefix(":") {
                    guard !segment.isEmpty, let decoded = FormDecoding.decode(segment.utf8, plusAsSpace: false)
                    else {
                        matched = false
                        break
                    }
                    parameters[String(pattern.dropFirst())] = decoded
                } else if pattern != segment {
                    matched = false
                    break
                }
            }
            if matched {
                request.parameters = parameters
                return route.methods
            }
        }
        return nil
    }

    private static func allow(_ handlers: [HTTPMethod: Entry]) -> String {
        var methods = Set(handlers.keys.map(\.rawValue))
        if methods.contains("GET") { methods.insert("HEAD") }
        methods.insert("OPTIONS")
        return methods.sorted().joined(separator: ", ")
    }
}
