import RelayJSON

/// The database API pipeline: API token, route, faults, session, operation, rotation.
extension World {
    struct Environment {
        var apiToken: String
        var container: String?
        var zoneName: String
        var publicBase: String
        var now: Int64
    }

    mutating func handle(_ call: DatabaseCall, _ environment: Environment) -> DatabaseReply {
        stats.databaseRequests += 1
        stats.operations[call.operation, default: 0] += 1
        let now = environment.now
        guard call.apiToken == environment.apiToken else {
            return DatabaseReply(
                EmulatorError(status: 401, code: "AUTHENTICATION_FAILED", reason: "Authentication failed"))
        }
        if let container = environment.container, container != call.container {
            return DatabaseReply(.badRequest("unknown container"))
        }
        guard ["development", "production"].contains(call.environment) else {
            return DatabaseReply(.badRequest("unknown environment \(call.environment)"))
        }
        guard ["public", "private", "shared"].contains(call.database) else {
            return DatabaseReply(.badRequest("unknown database type \(call.database)"))
        }
        guard let route = OperationRoute(call.operation) else {
            return DatabaseReply(EmulatorError(status: 404, code: "NOT_FOUND", reason: "Unknown operation"))
        }
        guard call.method == route.method || (call.method == "HEAD" && route.method == "GET") else {
            return DatabaseReply(.badRequest("\(call.operation) expects \(route.method)"))
        }
        let session = session(for: call.webAuthToken, now: now)
        if let fault = takeFault(call.operation) {
            var reply = fault.reply(redirectURL: redirectURL(environment))
            if settings.rotateOnErrors, session != nil, let token = call.webAuthToken {
                reply.rotatedToken = rotate(token, now: now)
            }
            return reply
        }
        guard let session, let token = call.webAuthToken else {
            return DatabaseReply(deadSession(tokenSent: call.webAuthToken != nil, environment))
        }
        var reply: DatabaseReply
        do {
            let body = try run(route, call, userKey: session.userRecordName, environment)
            reply = DatabaseReply(status: 200, body: body.bytes)
        } catch {
            reply = DatabaseReply(error)
            guard settings.rotateOnErrors else { return reply }
        }
        reply.rotatedToken = rotate(token, now: now)
        return reply
    }

    private mutating func run(
        _ route: OperationRoute, _ call: DatabaseCall, userKey: String, _ environment: Environment
    ) throws(EmulatorError) -> WireValue {
        if route == .usersCaller {
            guard call.database == "public" else {
                throw .badRequest("endpoint not applicable in the database type '\(call.database)db'")
            }
            return .json(usersCaller(userKey))
        }
        guard call.database == "private" else {
            throw .badRequest("the emulator serves \(call.operation) on the private database only")
        }
        if let user = users[userKey], user.advancedDataProtection, settings.protectedSessions == .deny {
            throw EmulatorError(
                status: 403, code: "ACCESS_DENIED",
                reason: "Advanced Data Protection is on: this database is not available on the web")
        }
        let body = try Self.parseBody(call.body, required: route.method == "POST")
        let mode = schemas.mode(call.environment)
        switch route {
        case .usersCaller: return .json(usersCaller(userKey))
        case .zonesList: return .json(zonesList(userKey))
        case .zonesLookup: return .json(try zonesLookup(userKey, body))
        case .zonesModify: return .json(try zonesModify(userKey, body))
        case .recordsQuery: return try recordsQuery(userKey, body, environment.now, mode: mode)
        case .recordsLookup: return try recordsLookup(userKey, body)
        case .recordsModify: return .json(try recordsModify(userKey, body, environment.now, mode: mode))
        case .changesZone: return try changesZone(userKey, body)
        }
    }

    private mutating func deadSession(tokenSent: Bool, _ environment: Environment) -> EmulatorError {
        if tokenSent, settings.deadTokenStatus == 401 {
            return EmulatorError(status: 401, code: "AUTHENTICATION_FAILED", reason: "Authentication failed")
        }
        return EmulatorError(
            status: 421, code: "AUTHENTICATION_REQUIRED", reason: "request needs authorization",
            extra: ["redirectURL": .string(redirectURL(environment))])
    }

    mutating func redirectURL(_ environment: Environment) -> String {
        environment.publicBase + "/IDMSWebAuth/auth?oauth_token=" + pendingSignIn(now: environment.now)
    }

    private mutating func takeFault(_ operation: String) -> Fault? {
        guard let index = faults.firstIndex(where: { $0.operations?.contains(operation) ?? true }) else { return nil }
        let fault = faults[index]
        faults[index].remaining -= 1
        if faults[index].remaining <= 0 { faults.remove(at: index) }
        stats.faultsServed += 1
        return fault
    }

    private static func parseBody(_ bytes: [UInt8], required: Bool) throws(EmulatorError) -> JSONObject {
        if bytes.isEmpty, !required { return [:] }
        guard let json = try? JSONValue(parsing: bytes), let object = json.objectValue else {
            throw .badRequest("Unexpected input: the body must be a JSON object")
        }
        return object
    }
}

extension Fault {
    func reply(redirectURL: String) -> DatabaseReply {
        var reply: DatabaseReply
        switch body {
        case .html:
            let html = "<html><body><h1>\(status) Service Unavailable</h1></body></html>"
            reply = DatabaseReply(status: status, body: Array(html.utf8), contentType: "text/html")
        case .empty:
            reply = DatabaseReply(status: status, body: [], contentType: "text/plain")
        case .json:
            let code = serverErrorCode ?? Self.defaultCode(status)
            var extra: JSONObject = [:]
            if let retryAfter {
                extra["retryAfter"] = retryAfter.rounded() == retryAfter ? .int(Int(retryAfter)) : .double(retryAfter)
            }
            if code == "THROTTLED" {
                // TN3162's example body carries these two as well.
                extra["error_code"] = "THROTTLED"
                extra["messageForDeveloper"] = .string(reason ?? "Database throttled, retry later")
            }
            if status == 421 || code == "AUTHENTICATION_REQUIRED" { extra["redirectURL"] = .string(redirectURL) }
            let error = EmulatorError(
                status: status, code: code, reason: reason ?? Self.defaultReason(code), extra: extra)
            reply = DatabaseReply(error)
        }
        if let retryAfterHeader { reply.headers.append(("Retry-After", String(retryAfterHeader))) }
        return reply
    }

    static func defaultCode(_ status: Int) -> String {
        switch status {
        case 400: "BAD_REQUEST"
        case 401: "AUTHENTICATION_FAILED"
        case 403: "ACCESS_DENIED"
        case 404: "NOT_FOUND"
        case 409: "CONFLICT"
        case 413: "QUOTA_EXCEEDED"
        case 421: "AUTHENTICATION_REQUIRED"
        case 429: "THROTTLED"
        case 500: "INTERNAL_ERROR"
        default: "TRY_AGAIN_LATER"
        }
    }

    static func defaultReason(_ code: String) -> String {
        switch code {
        case "THROTTLED": "Database throttled, retry later"
        case "TRY_AGAIN_LATER": "Service temporarily unavailable, try again later"
        case "AUTHENTICATION_REQUIRED": "request needs authorization"
        case "AUTHENTICATION_FAILED": "Authentication failed"
        default: "Injected fault"
        }
    }
}
