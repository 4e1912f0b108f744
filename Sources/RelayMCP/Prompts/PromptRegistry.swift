import RelayJSON

/// The prompts an endpoint offers, checked at startup, with every `prompts/list` page encoded once per
/// protocol version (the modern ones with `resultType`, the cache hint and the server stamp), as
/// `ToolRegistry` does for tools. `prompts/get` is checked here and rendered per request.
struct PromptRegistry: Sendable {
    private let prompts: [String: Prompt]
    /// Prompt names in listing order.
    let names: [String]
    private let pages: [ProtocolVersion: [PreencodedResult]]

    /// Registers `prompts` in order. Throws when a name is invalid or repeated, or a prompt repeats an
    /// argument name (a programming error, reported at startup).
    init(_ prompts: [Prompt], pageSize: Int, envelope: ResultEnvelope) throws(MCPError) {
        precondition(pageSize > 0, "pageSize must be positive")
        var byName: [String: Prompt] = [:]
        var names: [String] = []
        for prompt in prompts {
            let definition = prompt.definition
            guard ToolDefinition.isValidName(definition.name) else {
                throw .internalError("Prompt name \"\(definition.name)\" is not 1–128 characters of A–Z a–z 0–9 _ - .")
            }
            guard byName[definition.name] == nil else {
                throw .internalError("Prompt name \"\(definition.name)\" is registered twice.")
            }
            let argumentNames = definition.arguments.map(\.name)
            guard Set(argumentNames).count == argumentNames.count, !argumentNames.contains(where: \.isEmpty) else {
                throw .internalError("Prompt \(definition.name) repeats an argument name or has an empty one.")
            }
            byName[definition.name] = prompt
            names.append(definition.name)
        }
        self.prompts = byName
        self.names = names
        var pages: [ProtocolVersion: [PreencodedResult]] = [:]
        let definitions = prompts.map(\.definition)
        for version in ProtocolVersion.allCases {
            let count = max(1, (definitions.count + pageSize - 1) / pageSize)
            pages[version] = (0..<count).map { index in
                let slice = definitions.dropFirst(index * pageSize).prefix(pageSize)
                var result: JSONObject = ["prompts": .array(slice.map { $0.json(for: version) })]
                if index + 1 < count { result["nextCursor"] = .string("page-\(index + 1)") }
                // prompts/list is a cacheable result in 2026-07-28 (`server/utilities/caching.mdx`); the list
                // is the same for every caller and changes only with a deployment.
                return PreencodedResult(envelope.finish(result, version: version, cacheable: true))
            }
        }
        self.pages = pages
    }

    /// Whether any prompt is registered (the `prompts` capability and methods exist only then).
    var isEmpty: Bool { names.isEmpty }

    /// The encoded `prompts/list` page for `cursor` (nil: the first), or nil for a cursor not issued here.
    func page(cursor: String?, version: ProtocolVersion) -> PreencodedResult? {
        guard let versionPages = pages[version] else { return nil }
        guard let cursor else { return versionPages[0] }
        guard cursor.hasPrefix("page-"), let index = Int(cursor.dropFirst(5)), index > 0, index < versionPages.count,
            "page-\(index)" == cursor
        else { return nil }
        return versionPages[index]
    }

    /// The result of `prompts/get` with `params`, or the -32602 that refuses it.
    func get(_ params: JSONObject?) -> Result<PromptResult, MCPError> {
        guard let name = params?["name"]?.stringValue else {
            return .failure(.invalidParams("prompts/get needs params.name (a string)."))
        }
        guard let prompt = prompts[name] else {
            return .failure(.invalidParams("Unknown prompt: \(name)."))
        }
        var arguments: [String: String] = [:]
        switch params?["arguments"] {
        case nil, .null?:
            break
        case .object(let object)?:
            let declared = Set(prompt.definition.arguments.map(\.name))
            for (key, value) in object {
                guard declared.contains(key) else {
                    let known = prompt.definition.arguments.map(\.name).joined(separator: ", ")
                    return .failure(
                        .invalidParams(
                            "Unknown argument \"\(key)\" for prompt \(name)"
                                + (known.isEmpty ? " (it takes none)." : " (it takes: \(known)).")))
                }
                guard let string = value.stringValue else {
                    return .failure(.invalidParams("Argument \"\(key)\" must be a string."))
                }
                // Clients that show a form send "" for a field left empty: that is an argument not given.
                if !string.allSatisfy(\.isWhitespace) { arguments[key] = string }
            }
        default:
            return .failure(.invalidParams("params.arguments must be an object of strings."))
        }
        for argument in prompt.definition.arguments where argument.required && arguments[argument.name] == nil {
            return .failure(.invalidParams("Missing required argument \"\(argument.name)\" for prompt \(name)."))
        }
        do {
            return .success(try prompt.render(arguments))
        } catch {
            return .failure(.invalidParams("Invalid argument \"\(error.argument)\": \(error.message)"))
        }
    }
}
