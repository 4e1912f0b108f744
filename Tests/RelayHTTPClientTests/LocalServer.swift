import Foundation
import RelayHTTP
import Synchronization

/// A real `Server` on an ephemeral loopback port, stopped when released.
final class LocalServer: Sendable {
    let server: Server
    let hits = Counter()

    init(keepAlive: Duration = .seconds(60), _ configure: (inout Router) -> Void) throws {
        var router = Router()
        configure(&router)
        let inner = router.responder
        let hits = hits
        server = Server(
            configuration: ServerConfiguration(
                host: "127.0.0.1", port: 0, eventLoops: 1, keepAliveTimeout: keepAlive),
            responder: Responder { request in
                hits.increment()
                return inner(request)
            }
        )
        try server.start()
    }

    deinit { server.shutdown() }

    var base: String { "http://127.0.0.1:\(server.port)" }

    func url(_ path: String) -> String { base + path }
}

/// A shared counter for handlers.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    func increment() { value.add(1, ordering: .relaxed) }

    func load() -> Int { value.load(ordering: .relaxed) }
}
