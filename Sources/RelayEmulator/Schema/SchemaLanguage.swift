/// A parser for the CloudKit Schema Language, following Apple's grammar
/// (https://developer.apple.com/documentation/cloudkit/integrating-a-text-based-schema-into-your-workflow):
///
/// ```
/// DEFINE SCHEMA [ { CREATE ROLE %role% | record-type } ";" ] ...
/// record-type: RECORD TYPE %name% ( { %field% data-type [QUERYABLE|SORTABLE|SEARCHABLE]...
///                                   | GRANT {READ|CREATE|WRITE} [, ...] TO %role% } [, ...] )
/// data-type:   [ENCRYPTED] {ASSET|BYTES|DOUBLE|INT64|LOCATION|REFERENCE|STRING|TIMESTAMP}
///            | NUMBER [PREFERRED AS {INT64|DOUBLE}] | LIST<primitive-type>
/// ```
///
/// Keywords are case-insensitive; identifiers start with a letter and go on with letters, digits and `_`, or
/// are double-quoted (system fields such as `"___recordID"`, reserved words). Comments: `//`, `--`, `/* */`.
/// Anything else is an error naming the line, so a schema the emulator accepts is one `cktool` could read.
enum SchemaLanguage {
    static func parse(_ text: String) throws(EmulatorError) -> ContainerSchema {
        var parser = Parser(tokens: try Lexer.tokens(text))
        return try parser.schema()
    }

    struct Token: Equatable {
        enum Kind: Equatable {
            case word
            case quoted
            case symbol
        }

        var kind: Kind
        var text: String
        var line: Int

        /// Whether this is the unquoted keyword `keyword` (any case).
        func isKeyword(_ keyword: String) -> Bool { kind == .word && text.uppercased() == keyword }
    }

    static func error(_ line: Int, _ message: String) -> EmulatorError {
        EmulatorError(status: 400, code: nil, reason: "schema line \(line): \(message)")
    }

    static let reservedWords: Set<String> = ["GRANT", "PREFERRED", "QUERYABLE", "SORTABLE", "SEARCHABLE"]
    static let builtInRoles: Set<String> = ["_creator", "_icloud", "_world"]
}

extension SchemaLanguage {
    enum Lexer {
        static func tokens(_ text: String) throws(EmulatorError) -> [Token] {
            let characters = Array(text.unicodeScalars)
            var tokens: [Token] = []
            var index = 0
            var line = 1
            func peek(_ offset: Int = 0) -> Unicode.Scalar? {
                index + offset < characters.count ? characters[index + offset] : nil
            }
            while let character = peek() {
                if character == "\n" {
                    line += 1
                    index += 1
                } else if character.properties.isWhitespace {
                    index += 1
                } else if (character == "/" && peek(1) == "/") || (character == "-" && peek(1) == "-") {
                    while let next = peek(), next != "\n" { index += 1 }
                } else if character == "/" && peek(1) == "*" {
                    let start = line
                    index += 2
                    while !(peek() == "*" && peek(1) == "/") {
                        guard let next = peek() else { throw error(start, "a /* comment is never closed") }
                        if next == "\n" { line += 1 }
                        index += 1
                    }
                    index += 2
                } else if character == "\"" {
                    var name = ""
                    index += 1
                    while let next = peek(), next != "\"" {
                        guard next != "\n" else { throw error(line, "a quoted name runs past the end of the line") }
                        name.unicodeScalars.append(next)
                        index += 1
                    }
                    guard peek() == "\"" else { throw error(line, "a quoted name is never closed") }
                    index += 1
                    guard !name.isEmpty else { throw error(line, "an empty quoted name") }
                    tokens.append(Token(kind: .quoted, text: name, line: line))
                } else if "(),;<>".unicodeScalars.contains(character) {
                    tokens.append(Token(kind: .symbol, text: String(character), line: line))
                    index += 1
                } else if character.properties.isAlphabetic || character == "_" || ("0"..."9").contains(character) {
                    var word = ""
                    while let next = peek(), next.isASCII,
                        next == "_" || next.properties.isAlphabetic
                            || ("0"..."9").contains(next)
                    {
                        word.unicodeScalars.append(next)
                        index += 1
                    }
                    guard !word.isEmpty else { throw error(line, "unexpected character \"\(character)\"") }
                    tokens.append(Token(kind: .word, text: word, line: line))
                } else {
                    throw error(line, "unexpected character \"\(character)\"")
                }
            }
            return tokens
        }
    }
}

extension SchemaLanguage {
    struct Parser {
        let tokens: [Token]
        var position = 0

        init(tokens: [Token]) { self.tokens = tokens }

        var current: Token? { position < tokens.count ? tokens[position] : nil }
        var line: Int { current?.line ?? tokens.last?.line ?? 1 }

        mutating func schema() throws(EmulatorError) -> ContainerSchema {
            try expectKeyword("DEFINE")
            try expectKeyword("SCHEMA")
            var schema = ContainerSchema()
            var grantedRoles: [(role: String, line: Int)] = []
            while let token = current {
                if token.isKeyword("CREATE") {
                    position += 1
                    try expectKeyword("ROLE")
                    let role = try identifier("a role name")
                    guard !schema.roles.contains(role) else { throw error(token.line, "role \(role) is created twice") }
                    schema.roles.append(role)
                } else if token.isKeyword("RECORD") {
                    let type = try recordType(&grantedRoles)
                    guard schema.recordTypes[type.name] == nil else {
                        throw error(token.line, "record type \(type.name) is defined twice")
                    }
                    schema.recordTypes[type.name] = type
                } else {
                    throw error(token.line, "expected CREATE ROLE or RECORD TYPE, found \"\(token.text)\"")
                }
                try expectSymbol(";")
            }
            for (role, line) in grantedRoles where !builtInRoles.contains(role) && !schema.roles.contains(role) {
                throw error(line, "GRANT to role \(role), which is neither built in nor created with CREATE ROLE")
            }
            return schema
        }

        private mutating func recordType(_ grantedRoles: inout [(role: String, line: Int)]) throws(EmulatorError)
            -> ContainerSchema.RecordType
        {
            try expectKeyword("RECORD")
            try expectKeyword("TYPE")
            let name = try identifier("a record type name")
            try expectSymbol("(")
            var fields: [ContainerSchema.Field] = []
            var grants: [String] = []
            repeat {
                guard let token = current else { throw error(line, "the record type \(name) is never closed") }
                if token.isKeyword("GRANT") {
                    position += 1
                    var permissions = [try permission()]
                    while current?.text == ",", tokens.indices.contains(position + 1),
                        ["READ", "CREATE", "WRITE"].contains(where: { tokens[position + 1].isKeyword($0) })
                    {
                        position += 1
                        permissions.append(try permission())
                    }
                    try expectKeyword("TO")
                    let role = try identifier("a role name", underscore: true)
                    grantedRoles.append((role, token.line))
                    grants.append("GRANT \(permissions.joined(separator: ", ")) TO \(role)")
                } else {
                    let field = try self.field()
                    guard !fields.contains(where: { $0.name == field.name }) else {
                        throw error(token.line, "field \(field.name) of \(name) is defined twice")
                    }
                    if field.isSystem {
                        guard let system = ContainerSchema.Field.systemFields.first(where: { $0.name == field.name })
                        else { throw error(token.line, "\(field.name) is not a CloudKit system field") }
                        guard system.type == field.type else {
                            throw error(
                                token.line, "the system field \(field.name) is \(system.type), not \(field.type)")
                        }
                    }
                    fields.append(field)
                }
            } while acceptSymbol(",")
            try expectSymbol(")")
            return ContainerSchema.RecordType(name: name, fields: fields, grants: grants)
        }

        private mutating func field() throws(EmulatorError) -> ContainerSchema.Field {
            let name = try identifier("a field name", underscore: true)
            let type = try dataType()
            var field = ContainerSchema.Field(name, type)
            while let token = current, token.kind == .word {
                switch token.text.uppercased() {
                case "QUERYABLE": field.queryable = true
                case "SORTABLE": field.sortable = true
                case "SEARCHABLE":
                    guard type.primitive == .string else {
                        throw error(token.line, "SEARCHABLE needs a STRING field; \(name) is \(type)")
                    }
                    field.searchable = true
                default: throw error(token.line, "expected QUERYABLE, SORTABLE or SEARCHABLE, found \"\(token.text)\"")
                }
                position += 1
            }
            return field
        }

        private mutating func dataType() throws(EmulatorError) -> FieldType {
            if current?.isKeyword("LIST") == true {
                position += 1
                try expectSymbol("<")
                var element = try primitiveType()
                try expectSymbol(">")
                element.isList = true
                return element
            }
            return try primitiveType()
        }

        private mutating func primitiveType() throws(EmulatorError) -> FieldType {
            var encrypted = false
            if current?.isKeyword("ENCRYPTED") == true {
                encrypted = true
                position += 1
            }
            guard let token = current, token.kind == .word,
                let primitive = FieldType.Primitive(rawValue: token.text.uppercased())
            else {
                throw error(
                    line,
                    "expected a data type (STRING, INT64, TIMESTAMP, LIST<…>…), found \"\(current?.text ?? "the end")\""
                )
            }
            position += 1
            if encrypted, [.asset, .reference, .number].contains(primitive) {
                throw error(token.line, "\(primitive.rawValue) cannot be ENCRYPTED")
            }
            var type = FieldType(primitive, encrypted: encrypted)
            if primitive == .number, current?.isKeyword("PREFERRED") == true {
                position += 1
                try expectKeyword("AS")
                guard let choice = current, choice.isKeyword("INT64") || choice.isKeyword("DOUBLE") else {
                    throw error(line, "PREFERRED AS takes INT64 or DOUBLE")
                }
                position += 1
                type.preferred = FieldType.Primitive(rawValue: choice.text.uppercased())
            }
            return type
        }

        private mutating func permission() throws(EmulatorError) -> String {
            guard let token = current, ["READ", "CREATE", "WRITE"].contains(where: { token.isKeyword($0) }) else {
                throw error(line, "expected READ, CREATE or WRITE, found \"\(current?.text ?? "the end")\"")
            }
            position += 1
            return token.text.uppercased()
        }

        /// A name: quoted (anything), or a bare word that starts with a letter and is not a reserved word.
        private mutating func identifier(_ what: String, underscore: Bool = false) throws(EmulatorError) -> String {
            guard let token = current, token.kind != .symbol else {
                throw error(line, "expected \(what), found \"\(current?.text ?? "the end")\"")
            }
            position += 1
            if token.kind == .quoted {
                if token.text.hasPrefix("_"), !underscore {
                    throw error(token.line, "\(token.text): names starting with _ are CloudKit's")
                }
                return token.text
            }
            guard let first = token.text.unicodeScalars.first, first.properties.isAlphabetic, first.isASCII else {
                throw error(token.line, "\(token.text): a name starts with a letter (quote CloudKit's _ names)")
            }
            guard !reservedWords.contains(token.text.uppercased()) else {
                throw error(token.line, "\(token.text) is a reserved word: write it in double quotes")
            }
            return token.text
        }

        private mutating func expectKeyword(_ keyword: String) throws(EmulatorError) {
            guard current?.isKeyword(keyword) == true else {
                throw error(line, "expected \(keyword), found \"\(current?.text ?? "the end")\"")
            }
            position += 1
        }

        private mutating func expectSymbol(_ symbol: String) throws(EmulatorError) {
            guard acceptSymbol(symbol) else {
                throw error(line, "expected \"\(symbol)\", found \"\(current?.text ?? "the end")\"")
            }
        }

        private mutating func acceptSymbol(_ symbol: String) -> Bool {
            guard let token = current, token.kind == .symbol, token.text == symbol else { return false }
            position += 1
            return true
        }
    }
}
