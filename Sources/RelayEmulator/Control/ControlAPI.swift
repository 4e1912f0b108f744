import RelayHTTP
import RelayJSON

/// `/control/…`: fault injection, sessions, users and records for tests and benchmarks.
/// Loopback peers only; anything else gets 403.
struct ControlAPI {
    let state: EmulatorState
    let server: ServerReference

    func register(on router: inout Router) {
        get(&router, "/control/stats") { _ in
            state.update(changed: false) { world, _ in world.statsJSON(openConnections: server.openConnections) }
        }
        post(&router, "/control/reset") { _ in
            state.update { world, _ in world.reset() }
            return ["reset": true]
        }
        get(&router, "/control/settings") { _ in state.update(changed: false) { world, _ in world.settings.json } }
        get(&router, "/control/schema") { request in
            let environment = try request.query()["environment"] ?? "production"
            guard ["production", "development"].contains(environment) else {
                throw EmulatorError.control("environment is production or development")
            }
            return state.update(changed: false) { world, _ in
                let mode = world.schemas.mode(environment)
                return [
                    "environment": .string(environment), "lenient": .bool(world.schemas.lenient),
                    "schema": .string(world.schemas.schema(mode).text),
                ]
            }
        }
        post(&router, "/control/settings") { request in
            let json = try request.jsonBody()
            return try state.withWorld(changed: false) { world, _ throws(EmulatorError) in
                try world.settings.apply(json)
                return world.settings.json
            }
        }
        post(&router, "/control/callback") { request in
            let json = try request.jsonBody()
            guard let url = json["url"], url.isNull || url.stringValue != nil else {
                throw EmulatorError.control("url (a string or null) is required")
            }
            state.update(changed: false) { world, _ in world.callbackURL = url.stringValue }
            return ["url": url]
        }
        post(&router, "/control/latency") { request in
            guard let milliseconds = try request.jsonBody()["milliseconds"]?.intValue, milliseconds >= 0 else {
                throw EmulatorError.control("milliseconds (>= 0) is required")
            }
            state.update(changed: false) { world, _ in world.latency = .milliseconds(milliseconds) }
            return ["milliseconds": .int(milliseconds)]
        }
        post(&router, "/control/clock") { request in
            guard let seconds = try request.jsonBody()["advanceSeconds"]?.intValue, seconds >= 0 else {
                throw EmulatorError.control("advanceSeconds (>= 0) is required")
            }
            let offset = state.update(changed: false) { world, _ in
                world.clockOffsetMilliseconds += Int64(seconds) * 1000
                return world.clockOffsetMilliseconds
            }
            return ["offsetSeconds": .int(Int(offset / 1000))]
        }
        post(&router, "/control/faults") { request in
            let fault = try World.fault(try request.jsonBody())
            state.update(changed: false) { world, _ in world.faults.append(fault) }
            return ["queued": .int(fault.remaining)]
        }
        post(&router, "/control/item-faults") { request in
            let fault = try World.itemFault(try request.jsonBody())
            state.update(changed: false) { world, _ in world.itemFaults.append(fault) }
            return ["queued": .int(fault.remaining)]
        }
        post(&router, "/control/faults/clear") { _ in
            state.update(changed: false) { world, _ in
                world.faults.removeAll()
                world.itemFaults.removeAll()
            }
            return ["cleared": true]
        }
        post(&router, "/control/sessions/expire") { request in
            let user = request.body.isEmpty ? nil : try request.jsonBody()["user"]?.stringValue
            let expired = try state.withWorld { world, _ throws(EmulatorError) in
                world.expireSessions(
                    userKey: try user.map { (id: String) throws(EmulatorError) in try world.knownUser(id) })
            }
            return ["expired": .int(expired)]
        }
        registerUsers(on: &router)
    }

    private func registerUsers(on router: inout Router) {
        let zoneName = state.configuration.zoneName
        let zoneAtSignIn = state.configuration.zoneAtSignIn
        get(&router, "/control/users") { _ in
            state.update(changed: false) { world, now in
                .array(world.users.keys.sorted().map { world.userJSON($0, now: now) })
            }
        }
        get(&router, "/control/users/:user") { request in
            try state.withWorld(changed: false) { world, now throws(EmulatorError) in
                world.userJSON(try world.knownUser(request.parameters["user"] ?? ""), now: now)
            }
        }
        post(&router, "/control/users/:user/sessions") { request in
            let keep = request.body.isEmpty ? false : (try request.jsonBody()["keepSignedIn"]?.boolValue ?? false)
            return try state.withWorld { world, now throws(EmulatorError) in
                let key = try world.controlUser(request.parameters["user"] ?? "", zoneName: zoneAtSignIn, now: now)
                let lifetime = world.settings.sessionLifetime(keepSignedIn: keep)
                let token = world.mintSession(userKey: key, lifetime: lifetime, now: now)
                return ["userRecordName": .string(key), "webAuthToken": .string(token)]
            }
        }
        post(&router, "/control/users/:user/flags") { request in
            let json = try request.jsonBody()
            return try state.withWorld { world, now throws(EmulatorError) in
                let key = try world.controlUser(request.parameters["user"] ?? "", zoneName: zoneAtSignIn, now: now)
                world.setFlags(
                    key, advancedDataProtection: json["advancedDataProtection"]?.boolValue,
                    webAccessOff: json["webAccessOff"]?.boolValue)
                return world.userJSON(key, now: now)
            }
        }
        get(&router, "/control/users/:user/records") { request in
            let query = try request.query()
            return try state.withWorld(changed: false) { world, _ throws(EmulatorError) in
                let key = try world.knownUser(request.parameters["user"] ?? "")
                return try world.recordsJSON(key, zone: query["zone"] ?? zoneName, recordType: query["recordType"])
            }
        }
        post(&router, "/control/users/:user/records") { request in
            let json = try request.jsonBody()
            guard let records = json["records"]?.arrayValue else { throw EmulatorError.control("records is required") }
            return try state.withWorld { world, now throws(EmulatorError) in
                let key = try world.controlUser(request.parameters["user"] ?? "", zoneName: zoneAtSignIn, now: now)
                return try world.seed(key, zone: json["zone"]?.stringValue ?? zoneName, records: records, now: now)
            }
        }
    }

    private func get(_ router: inout Router, _ path: String, _ body: @escaping @Sendable (Request) throws -> JSONValue)
    {
        router.get(path, immediate: guarded(body))
    }

    private func post(_ router: inout Router, _ path: String, _ body: @escaping @Sendable (Request) throws -> JSONValue)
    {
        router.on(.post, path, immediate: guarded(body))
    }

    private func guarded(_ body: @escaping @Sendable (Request) throws -> JSONValue) -> Router.ImmediateHandler {
        { request in
            guard request.origin.peer?.isLoopback == true else {
                throw HTTPError(.forbidden, message: "The control API answers loopback clients only.")
            }
            return .json(try body(request))
        }
    }
}
