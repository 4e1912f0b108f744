import RelayJSON

/// One JSON-RPC 2.0 message received from a client.
package enum JSONRPCMessage: Sendable, Equatable {
    /// A call that expects exactly one response.
    case request(JSONRPCRequest)
    /// A call without an id; nothing is answered.
    case notification(JSONRPCNotification)
    /// A response to a server request. The relay never sends requests, so these are accepted and ignored.
    case response(id: JSONRPCID?)

    /// What reading one element of a POST body gave.
    package enum Parsed: Sendable, Equatable {
        /// A well-formed message.
        case message(JSONRPCMessage)
        /// Not a valid message; `id` is set when it could still be read.
        case invalid(id: JSONRPCID?, MCPError)
    }

    /// Reads one message. Requests need `"jsonrpc": "2.0"`, a string `method`, a string or integer
    /// `id` (null is refused, as MCP requires) and, if present, object `params`.
    package static func parse(_ value: JSONValue) -> Parsed {
        guard case .object(let object) = value else {
            return .invalid(id: nil, .invalidRequest("A JSON-RPC message must be an object."))
        }
        var version: JSONValue?
        var idValue: JSONValue?
        var method: JSONValue?
        var params: JSONValue?
        var hasResult = false
        var hasError = false
        for (key, member) in object {
            switch key {
            case "jsonrpc": version = member
            case "id": idValue = member
            case "method": method = member
            case "params": params = member
            case "result": hasResult = true
            case "error": hasError = true
            default: continue
            }
        }
        let id = idValue.flatMap(JSONRPCID.init)
        guard version == .string("2.0") else {
            return .invalid(id: id, .invalidRequest("\"jsonrpc\" must be \"2.0\"."))
        }
        if let idValue, id == nil {
            let reason = idValue.isNull ? "must not be null" : "must be a string or an integer"
            return .invalid(id: nil, .invalidRequest("\"id\" \(reason)."))
        }
        guard let method else {
            if hasResult != hasError { return .message(.response(id: id)) }
            return .invalid(id: id, .invalidRequest("A request needs a \"method\"."))
        }
        guard case .string(let name) = method, !name.isEmpty else {
            return .invalid(id: id, .invalidRequest("\"method\" must be a non-empty string."))
        }
        var paramsObject: JSONObject?
        if let params {
            guard case .object(let members) = params else {
                return .invalid(id: id, .invalidRequest("\"params\" must be an object."))
            }
            paramsObject = members
        }
        if let id { return .message(.request(JSONRPCRequest(id: id, method: name, params: paramsObject))) }
        return .message(.notification(JSONRPCNotification(method: name, params: paramsObject)))
    }
}

/// A request: method, parameters, id.
package struct JSONRPCRequest: Sendable, Equatable {
    /// The id the response must carry.
    package var id: JSONRPCID
    /// The method name.
    package var method: String
    /// The parameters object, if any.
    package var params: JSONObject?

    /// A request.
    package init(id: JSONRPCID, method: String, params: JSONObject? = nil) {
        self.id = id
        self.method = method
        self.params = params
    }
}

/// A notification: method and parameters, no id.
package struct JSONRPCNotification: Sendable, Equatable {
    /// The method name.
    package var method: String
    /// The parameters object, if any.
    package var params: JSONObject?

    /// A notification.
    package init(method: String, params: JSONObject? = nil) {
        self.method = method
        self.params = params
    }
}
