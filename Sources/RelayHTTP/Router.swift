/// Method + path routing. Paths are matched on the raw (still percent-encoded) path; a segment
/// written `:name` matches any one segment and is captured into `Request.parameters`.
///
/// Unknown paths get 404, known paths with another method 405 with `Allow`, HEAD runs the GET
/// handler (the server drops the body), OPTIONS without a handler gets 204 with `Allow`.
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

    private struct Route: Sendable {
        var segments: [Substring]
        var handlers: [HTTPMethod: Entry]
    }

    private var exact: [String: [HTTPMethod: Entry]] = [:]
    private var patterns: [Route] = []
    /// Called with every error that became a 500.
    package var onError: @Sendable (any Error, Request) -> Void

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
                patterns[index].handlers[method] = handler
            } else {
                patterns.append(Route(segments: segments, handlers: [method: handler]))
            }
        } else {
            exact[path, default: [:]][method] = handler
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
        var request = request
        guard let handlers = match(&request) else {
            return .now(Self.notFound)
        }
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
        if exact[path] != nil { return path }
        var copy = request
        guard match(&copy) != nil else { return nil }
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

    private func match(_ request: inout Request) -> [HTTPMethod: Entry]? {
        let path = request.path
        if let handlers = exact[String(path)] { return handlers }
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
                return route.handlers
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
