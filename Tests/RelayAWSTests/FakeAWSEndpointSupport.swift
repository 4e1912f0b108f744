import Foundation
import RelayHTTP
import RelaySync
import RelayTestSupport
import Synchronization

/// A local AWS endpoint on port 0 that answers the first `faults` requests with an AWS error and
/// passes the rest to `upstream` (moto), or answers them all with the error when there is none.
final class FaultyEndpoint: Sendable {
    private let server: Server
    private let counter = RequestCounter()

    var endpoint: String { "http://127.0.0.1:\(server.port)" }
    var requests: Int { counter.value.load(ordering: .relaxed) }

    /// `extra` is more JSON members for the fault's body (`"CancellationReasons":[…]`).
    init(
        faults: Int, status: Int = 400, errorType: String, extra: String = "", upstream: String?, client: HTTPClient
    ) throws {
        let counter = counter
        let members = extra.isEmpty ? "" : "," + extra
        let fault = Response(
            status: HTTPStatus(code: status, reason: status == 400 ? "Bad Request" : "Internal Server Error"),
            headers: ["Content-Type": "application/x-amz-json-1.0"],
            body: Array(
                #"{"__type":"com.amazonaws.dynamodb.v20120810#\#(errorType)","message":"injected"\#(members)}"#.utf8))
        var router = Router()
        router.post("/") { request in
            let seen = counter.value.add(1, ordering: .relaxed).newValue
            guard seen > faults, let upstream else { return fault }
            var headers = HTTPHeaders()
            for field in request.headers
            where !["host", "content-length", "connection", "accept-encoding"].contains(field.name.lowercased()) {
                headers.add(field.name, field.value)
            }
            let answer = try await client.send(
                ClientRequest(method: .post, url: upstream + "/", headers: headers, body: request.body))
            return Response(
                status: HTTPStatus(code: answer.status, reason: "Upstream"),
                headers: ["Content-Type": answer.headers["content-type"] ?? "application/x-amz-json-1.0"],
                body: answer.body)
        }
        server = Server(
            configuration: ServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 1), responder: router.responder)
        try server.start()
    }

    deinit { server.shutdown() }
}

/// A loopback port that accepts connections and never answers: a hung service. It counts the
/// connections it accepted, so a test can tell one attempt from a retry without timing anything.
final class SilentEndpoint: Sendable {
    private let descriptor: Int32
    private let accepted = AcceptedConnections()
    let port: Int

    var endpoint: String { "http://127.0.0.1:\(port)" }
    /// Connections accepted so far.
    var connections: Int { accepted.descriptors.withLock { $0.count } }

    init() throws {
        let (descriptor, port) = try loopbackListener(backlog: 64)
        self.descriptor = descriptor
        self.port = port
        let accepted = accepted
        // A thread of its own: accept blocks, and the test's tasks must not wait behind it. The thread
        // closes every descriptor itself once accept fails, so it never accepts on a number that was
        // closed and handed to another test.
        Thread {
            while true {
                let connection = accept(descriptor, nil, nil)
                guard connection >= 0 else { break }
                accepted.descriptors.withLock { $0.append(connection) }
            }
            close(descriptor)
            accepted.descriptors.withLock { for connection in $0 { close(connection) } }
        }.start()
    }

    deinit {
        shutdown(descriptor, Int32(SHUT_RDWR))  // accept fails, and the thread closes everything
    }
}

/// The connections a `SilentEndpoint` holds open without answering.
final class AcceptedConnections: Sendable {
    let descriptors = Locked<[Int32]>([])
}

/// Requests seen by a fake endpoint's handlers.
final class RequestCounter: Sendable {
    let value = Atomic<Int>(0)
}
