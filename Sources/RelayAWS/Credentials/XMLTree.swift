/// A small, strict XML reader for the AWS query protocol's answers (STS): elements with their
/// text, nothing else. Foundation's `XMLParser` would pull libxml2 into the relay for a handful
/// of fixed, tiny documents; this reads exactly what STS sends and refuses the rest: a DTD
/// (`<!DOCTYPE`, hence no entity expansion), processing instructions after the declaration,
/// unknown entities, mismatched or unclosed tags, text after the root, nesting deeper than 32.
/// Attributes are checked for shape and dropped; names lose their namespace prefix.
struct XMLTree: Equatable {
    /// The element's local name (after any `prefix:`).
    var name: String
    /// Child elements, in order.
    var children: [XMLTree] = []
    /// The element's own character data, entities decoded (CDATA included).
    var text = ""

    /// The first child element called `name`.
    subscript(_ name: String) -> XMLTree? { children.first { $0.name == name } }

    /// The element at `path` below this one, e.g. `["Result", "Credentials", "AccessKeyId"]`.
    func find(_ path: [String]) -> XMLTree? {
        var node = self
        for name in path {
            guard let child = node[name] else { return nil }
            node = child
        }
        return node
    }

    struct Malformed: Error, Equatable {
        let reason: String
    }

    static let maximumDepth = 32

    /// The root element of `bytes` (UTF-8).
    static func parse(_ bytes: [UInt8]) throws(Malformed) -> XMLTree {
        var reader = Reader(bytes: bytes)
        if reader.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index += 3 }
        reader.skipWhitespace()
        if reader.starts(with: "<?xml") { try reader.skip(past: "?>") }
        try reader.skipMisc()
        guard reader.starts(with: "<"), !reader.starts(with: "</") else { throw Malformed(reason: "no root element") }
        var stack: [XMLTree] = []
        var root: XMLTree?
        while root == nil {
            guard reader.index < bytes.count else { throw Malformed(reason: "unclosed element") }
            if reader.starts(with: "<!--") {
                try reader.skip(past: "-->")
            } else if reader.starts(with: "<![CDATA[") {
                reader.index += 9
                let start = reader.index
                try reader.skip(past: "]]>")
                stack[stack.count - 1].text += String(decoding: bytes[start..<(reader.index - 3)], as: UTF8.self)
            } else if reader.starts(with: "<!") || reader.starts(with: "<?") {
                throw Malformed(reason: "a DTD or processing instruction")
            } else if reader.starts(with: "</") {
                reader.index += 2
                let name = try reader.name()
                reader.skipWhitespace()
                guard reader.take(">"), let open = stack.popLast(), open.name == localName(name) else {
                    throw Malformed(reason: "mismatched closing tag")
                }
                if stack.isEmpty { root = open } else { stack[stack.count - 1].children.append(open) }
            } else if reader.take("<") {
                let element = XMLTree(name: localName(try reader.name()))
                let selfClosing = try reader.attributes()
                if selfClosing {
                    if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
                } else {
                    guard stack.count < maximumDepth else { throw Malformed(reason: "nested too deeply") }
                    stack.append(element)
                }
            } else {
                let text = try reader.text()
                stack[stack.count - 1].text += text
            }
        }
        try reader.skipMisc()
        guard reader.index == bytes.count else { throw Malformed(reason: "content after the root element") }
        return root!
    }

    private static func localName(_ name: String) -> String {
        name.split(separator: ":").last.map(String.init) ?? name
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        func starts(with prefix: String) -> Bool { starts(with: Array(prefix.utf8)) }

        func starts(with prefix: [UInt8]) -> Bool {
            bytes.count - index >= prefix.count && bytes[index..<(index + prefix.count)].elementsEqual(prefix)
        }

        mutating func take(_ prefix: String) -> Bool {
            guard starts(with: prefix) else { return false }
            index += prefix.utf8.count
            return true
        }

        mutating func skip(past terminator: String) throws(Malformed) {
            let pattern = Array(terminator.utf8)
            while index < bytes.count {
                if starts(with: pattern) {
                    index += pattern.count
                    return
                }
                index += 1
            }
            throw Malformed(reason: "unterminated \(terminator)")
        }

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        /// Whitespace and comments (between the declaration and the root, and after it).
        mutating func skipMisc() throws(Malformed) {
            skipWhitespace()
            while starts(with: "<!--") {
                try skip(past: "-->")
                skipWhitespace()
            }
        }

        mutating func name() throws(Malformed) -> String {
            let start = index
            while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
            guard index > start else { throw Malformed(reason: "a tag without a name") }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// Attributes up to the end of a start tag; true for `/>`.
        mutating func attributes() throws(Malformed) -> Bool {
            while true {
                let hadSpace = index < bytes.count && [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index])
                skipWhitespace()
                if take("/>") { return true }
                if take(">") { return false }
                guard hadSpace else { throw Malformed(reason: "a malformed start tag") }
                _ = try name()
                skipWhitespace()
                guard take("=") else { throw Malformed(reason: "an attribute without =") }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'")
                else { throw Malformed(reason: "an unquoted attribute") }
                let quote = bytes[index]
                index += 1
                while index < bytes.count, bytes[index] != quote {
                    guard bytes[index] != UInt8(ascii: "<") else { throw Malformed(reason: "< in an attribute") }
                    index += 1
                }
                guard index < bytes.count else { throw Malformed(reason: "an unterminated attribute") }
                index += 1
            }
        }

        /// Character data up to the next `<`, entities decoded.
        mutating func text() throws(Malformed) -> String {
            var out: [UInt8] = []
            while index < bytes.count, bytes[index] != UInt8(ascii: "<") {
                if bytes[index] == UInt8(ascii: "&") {
                    let start = index + 1
                    guard let end = bytes[start...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                        throw Malformed(reason: "an unterminated entity")
                    }
                    out += try Self.entity(String(decoding: bytes[start..<end], as: UTF8.self))
                    index = end + 1
                } else {
                    out.append(bytes[index])
                    index += 1
                }
            }
            return String(decoding: out, as: UTF8.self)
        }

        static func entity(_ name: String) throws(Malformed) -> [UInt8] {
            switch name {
            case "amp": return [UInt8(ascii: "&")]
            case "lt": return [UInt8(ascii: "<")]
            case "gt": return [UInt8(ascii: ">")]
            case "quot": return [UInt8(ascii: "\"")]
            case "apos": return [UInt8(ascii: "'")]
            default:
                let value: UInt32?
                if name.hasPrefix("#x") {
                    value = UInt32(name.dropFirst(2), radix: 16)
                } else if name.hasPrefix("#") {
                    value = UInt32(name.dropFirst(), radix: 10)
                } else {
                    value = nil
                }
                guard let value, value != 0, let scalar = Unicode.Scalar(value) else {
                    throw Malformed(reason: "an unknown entity")
                }
                return Array(String(Character(scalar)).utf8)
            }
        }

        static func isNameByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: ":"), 0x80...0xFF:
                true
            default: false
            }
        }
    }
}
