/// What the server calls for every request. A responder either answers at once (static pages,
/// health checks, errors decided before any I/O) or hands back work to run as a task on the
/// connection's event loop. Answering at once skips creating a task, which is most of the cost
/// of a trivial request.
package struct Responder: Sendable {
    /// A responder's answer to one request.
    package enum Outcome: Sendable {
        /// The response, ready now.
        case now(Response)
        /// Work that produces the response; the server runs it as a task.
        case later(@Sendable () async -> Response)
    }

    private let body: @Sendable (Request) -> Outcome

    /// A responder from a function that decides per request.
    package init(_ body: @escaping @Sendable (Request) -> Outcome) { self.body = body }

    /// A responder that always runs `handler` as a task.
    package init(async handler: @escaping @Sendable (Request) async -> Response) {
        body = { request in .later { await handler(request) } }
    }

    /// Routes one request.
    package func callAsFunction(_ request: Request) -> Outcome { body(request) }

    /// The response, awaiting the work if there is any (for tests and wrappers).
    package func respond(to request: Request) async -> Response {
        switch body(request) {
        case .now(let response): response
        case .later(let work): await work()
        }
    }

    /// A responder that passes every response through `transform` (logging, headers, metrics).
    package func mapResponse(
        _ transform: @escaping @Sendable (Request, Response) -> Response
    ) -> Responder {
        let inner = body
        return Responder { request in
            switch inner(request) {
            case .now(let response): .now(transform(request, response))
            case .later(let work): .later { transform(request, await work()) }
            }
        }
    }
}
